"""Provably-fair randomness and plan commitments.

RULES.md ruling (provably fair): a heist's seed combines a server seed, whose SHA-256 digest is
shown when the heist starts, with an optional seed supplied by the player; both are published at
the end so anyone can replay every shuffle and loot draw. Everything here is a pure function of
its inputs, so an independent verifier can re-implement it from this docstring alone.

Exact formulas (all strings are UTF-8; ``ns(x)`` is the netstring ``b"<len(x)>:" + x + b","``)::

    seed_commitment = hex(SHA256(server_seed))
    heist_key       = HMAC-SHA256(key=b"veyltak/heist-key/v1",
                                  msg=ns(server_seed) + ns(client_seed))          # 32 bytes
    block(label, i) = HMAC-SHA256(key=heist_key, msg=label + "#" + decimal(i))    # i = 0, 1, ...

The netstrings make the pair unambiguous ("ab" + "c" and "a" + "bc" give different keys).

A :class:`Stream` for ``label`` reads block(label, 0), block(label, 1), ... as consecutive
big-endian unsigned 32-bit words (8 per block). ``randbelow(n)`` (1 <= n <= 2**32) rejects words
``w >= 2**32 - (2**32 mod n)`` and returns ``w mod n`` for the first accepted word, so it is
exactly uniform. ``randint(a, b) = a + randbelow(b - a + 1)``. ``shuffle(seq)`` is Fisher-Yates:
for ``i`` from ``len(seq) - 1`` down to 1, swap positions ``i`` and ``randbelow(i + 1)``.

Labels, one stream per purpose, so that the order of play never shifts another draw:

* ``shuffle/{side}/{k}``: the k-th shuffle of ``side``'s cards (k = 0 is the opening shuffle of the
  decklist's card ids 0..11; k >= 1 reshuffles the discard pile, in discard order);
* ``loot/{night}/{vault}``: the loot of ``vault`` on ``night`` (1-based), ``randint(loot_min,
  loot_max)``, drawn before any encounter modifier.

The computer rival's own stream for a night (:func:`rival_stream`)::

    rival_key    = HMAC-SHA256(key=heist_key, msg=b"veyltak/rival-stream/v1")
    rival stream = Stream(rival_key, "rival/{night}")

Derived from the heist key, so the same position and policy always give the same plan (a worker
and the web fallback racing each other compute the same plan), under a one-way sub-key, so the
policy, which holds the stream, can never recover the heist key (and with it the future loot or
the player's draws) from it.

Plan commitments (DESIGN.md section 5)::

    canonical  = json.dumps({"boost": b, "crew": sorted([[crew_slug, vault], ...])},
                            sort_keys=True, separators=(",", ":"))
    commitment = hex(SHA256(nonce + canonical))
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

_KEY_DOMAIN = b"veyltak/heist-key/v1"
_RIVAL_KEY_DOMAIN = b"veyltak/rival-stream/v1"
_WORD = struct.Struct(">I")
_TWO32 = 1 << 32


def _netstring(text: str) -> bytes:
    raw = text.encode("utf-8")
    return str(len(raw)).encode("ascii") + b":" + raw + b","


def heist_key(server_seed: str, client_seed: str = "") -> bytes:
    """The 32-byte key every draw of a heist derives from (formula in the module docstring)."""
    if not isinstance(server_seed, str) or not isinstance(client_seed, str):
        raise TypeError("seeds are strings")
    return hmac.digest(_KEY_DOMAIN, _netstring(server_seed) + _netstring(client_seed), "sha256")


def seed_commitment(server_seed: str) -> str:
    """What is shown when the heist starts: hex SHA-256 of the server seed."""
    return hashlib.sha256(server_seed.encode("utf-8")).hexdigest()


class Stream:
    """A deterministic stream of uniform integers for one (key, label); not Python's ``random``."""

    __slots__ = ("_block", "_counter", "_key", "_pos", "_prefix")

    def __init__(self, key: bytes, label: str) -> None:
        self._key = key
        self._prefix = (label + "#").encode("utf-8")
        self._counter = 0
        self._block = b""
        self._pos = 32  # byte offset into the current block; 32 = exhausted

    def _word(self) -> int:
        pos = self._pos
        if pos >= 32:
            self._block = hmac.digest(
                self._key, self._prefix + str(self._counter).encode(), "sha256"
            )
            self._counter += 1
            pos = 0
        self._pos = pos + 4
        return _WORD.unpack_from(self._block, pos)[0]

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, by rejection sampling (no modulo bias)."""
        if n < 1 or n > _TWO32:
            raise ValueError(f"randbelow needs 1 <= n <= 2**32, got {n}")
        limit = _TWO32 - (_TWO32 % n)
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def randint(self, a: int, b: int) -> int:
        """Uniform integer in ``[a, b]`` (both ends included)."""
        if b < a:
            raise ValueError(f"randint needs a <= b, got {a}, {b}")
        return a + self.randbelow(b - a + 1)

    def shuffle(self, seq: Sequence[T] | Iterable[T]) -> tuple[T, ...]:
        """Fisher-Yates shuffle; returns a new tuple and leaves ``seq`` alone."""
        items = list(seq)
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
        return tuple(items)


def rival_stream(key: bytes, night: int) -> Stream:
    """The rival policy's random stream for ``night`` of the heist with key ``key``."""
    return Stream(hmac.digest(key, _RIVAL_KEY_DOMAIN, "sha256"), f"rival/{night}")


def randint_once(key: bytes, label: str, a: int, b: int) -> int:
    """Exactly ``Stream(key, label).randint(a, b)``, faster for a stream used for one draw.

    Each night draws one loot value per vault from a fresh stream; this reads the first word of
    block 0 directly and only builds a :class:`Stream` in the rare case that word is rejected.
    """
    n = b - a + 1
    if n < 1 or n > _TWO32:
        raise ValueError(f"randint needs a <= b, got {a}, {b}")
    block = hmac.digest(key, (label + "#0").encode("utf-8"), "sha256")
    w = _WORD.unpack_from(block, 0)[0]
    if w < _TWO32 - (_TWO32 % n):
        return a + w % n
    return Stream(key, label).randint(a, b)


def canonical_plan(crew: Iterable[Sequence[str]], boost: bool) -> str:
    """The canonical text of a plan given as (crew slug, vault) pairs (DESIGN.md section 5).

    Card ids are deliberately absent: the commitment binds what the rival sends, and two copies
    of one crew type are interchangeable for the rules.
    """
    pairs = sorted([str(slug), str(vault)] for slug, vault in crew)
    return json.dumps({"boost": bool(boost), "crew": pairs}, sort_keys=True, separators=(",", ":"))


def commit_plan(nonce: str, canonical: str) -> str:
    """``hex(SHA256(nonce + canonical))``; the nonce is published at reveal."""
    return hashlib.sha256((nonce + canonical).encode("utf-8")).hexdigest()
