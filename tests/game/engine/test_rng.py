"""The provably-fair generator, checked against an independent reading of its docstring."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections import Counter

import pytest

from game.engine import PLAYER, RIVAL, Plan, legal_plans, resolve
from game.engine.rng import (
    Stream,
    canonical_plan,
    commit_plan,
    heist_key,
    seed_commitment,
)
from game.engine.setup import new_heist
from tests.support.engine import fill_deck


# A second implementation written from the rng module docstring, for known-answer checks.
def ref_key(server: str, client: str) -> bytes:
    def ns(x: str) -> bytes:
        raw = x.encode()
        return f"{len(raw)}:".encode() + raw + b","

    return hmac.new(b"veyltak/heist-key/v1", ns(server) + ns(client), hashlib.sha256).digest()


def ref_words(key: bytes, label: str):
    i = 0
    while True:
        block = hmac.new(key, f"{label}#{i}".encode(), hashlib.sha256).digest()
        yield from struct.unpack(">8I", block)
        i += 1


def ref_randbelow(words, n: int) -> int:
    limit = 2**32 - (2**32 % n)
    for w in words:
        if w < limit:
            return w % n
    raise AssertionError


def test_key_matches_reference_and_is_unambiguous():
    assert heist_key("server", "client") == ref_key("server", "client")
    assert heist_key("ab", "c") != heist_key("a", "bc")
    assert heist_key("s") == heist_key("s", "")
    assert heist_key("s", "x") != heist_key("s", "y")
    assert len(heist_key("s")) == 32
    with pytest.raises(TypeError):
        heist_key(b"bytes")  # type: ignore[arg-type]


def test_stream_matches_reference():
    key = ref_key("a" * 64, "player-seed")
    for label in ("loot/1/crown-vault", "shuffle/player/0", "x"):
        ours = Stream(key, label)
        words = ref_words(key, label)
        for n in (1, 2, 3, 4, 7, 12, 1000, 2**31 + 1, 2**32):
            assert ours.randbelow(n) == ref_randbelow(words, n)


def test_shuffle_matches_reference_fisher_yates():
    key = heist_key("seed")
    words = ref_words(key, "shuffle/rival/0")
    items = list(range(12))
    for i in range(11, 0, -1):
        j = ref_randbelow(words, i + 1)
        items[i], items[j] = items[j], items[i]
    assert Stream(key, "shuffle/rival/0").shuffle(range(12)) == tuple(items)


def test_heist_uses_documented_labels():
    deck = fill_deck([])
    state = new_heist(ruleset="2026.11", player_deck=deck, rival_deck=deck, server_seed="s1")
    key = heist_key("s1", "")
    order = Stream(key, "shuffle/player/0").shuffle(range(12))
    assert state.player.hand == order[:3] and state.player.deck == order[3:]
    order = Stream(key, "shuffle/rival/0").shuffle(range(12))
    assert state.rival.hand == order[:3]
    for vault, loot in state.loot.items():
        assert loot == 1 + ref_randbelow(ref_words(key, f"loot/1/{vault}"), 4)


def test_play_never_shifts_later_loot():
    deck = fill_deck([])
    a = new_heist(ruleset="2026.11", player_deck=deck, rival_deck=deck, server_seed="same")
    b = a
    a, _ = resolve(a, {PLAYER: Plan(), RIVAL: Plan()})
    plans = legal_plans(b, PLAYER)
    b, _ = resolve(b, {PLAYER: plans[-1], RIVAL: legal_plans(b, RIVAL)[-1]})
    assert a.loot == b.loot


def test_randbelow_is_uniform_and_in_range():
    s = Stream(b"k" * 32, "uniform")
    counts = Counter(s.randbelow(3) for _ in range(30_000))
    assert set(counts) == {0, 1, 2}
    assert all(abs(c - 10_000) < 500 for c in counts.values())
    assert all(1 <= s.randint(1, 4) <= 4 for _ in range(200))
    assert s.randint(5, 5) == 5
    with pytest.raises(ValueError):
        s.randbelow(0)
    with pytest.raises(ValueError):
        s.randbelow(2**32 + 1)
    with pytest.raises(ValueError):
        s.randint(3, 2)


def test_shuffle_is_a_permutation_and_leaves_input_alone():
    seq = [5, 3, 1, 9]
    out = Stream(b"k", "p").shuffle(seq)
    assert sorted(out) == sorted(seq) and seq == [5, 3, 1, 9]
    assert Stream(b"k", "p").shuffle(seq) == out
    assert Stream(b"k", "q").shuffle(()) == ()


def test_commitments_follow_design():
    assert seed_commitment("abc") == hashlib.sha256(b"abc").hexdigest()
    canonical = canonical_plan([("spark", "crown-vault"), ("borrowed-face", "crown-vault")], True)
    assert canonical == json.dumps(
        {
            "boost": True,
            "crew": sorted([["spark", "crown-vault"], ["borrowed-face", "crown-vault"]]),
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    assert (
        canonical
        == '{"boost":true,"crew":[["borrowed-face","crown-vault"],["spark","crown-vault"]]}'
    )
    nonce = "0" * 64
    assert commit_plan(nonce, canonical) == hashlib.sha256((nonce + canonical).encode()).hexdigest()
    assert canonical_plan([], False) == '{"boost":false,"crew":[]}'


def test_randint_once_equals_a_fresh_stream():
    from game.engine.rng import randint_once

    key = heist_key("once")
    for i in range(300):
        label = f"loot/{i}/x"
        for a, b in ((1, 4), (0, 2), (1, 3), (5, 5), (0, 2**32 - 1), (0, 2**31 + 5)):
            assert randint_once(key, label, a, b) == Stream(key, label).randint(a, b)
    # A range whose first word is likely rejected still agrees (falls back to the stream).
    big = 2**31 + 1
    assert any(next(ref_words(key, f"r{i}")) >= 2**32 - (2**32 % big) for i in range(20))
    for i in range(20):
        assert randint_once(key, f"r{i}", 0, big - 1) == Stream(key, f"r{i}").randbelow(big)
