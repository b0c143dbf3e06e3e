"""PostgreSQL advisory locks held to the end of the caller's transaction, for what has no row
to lock (a guest's heist starts, an Idempotency-Key, the featured rotation).

A lock is named; its number is 64 bits of the name's BLAKE2b, so every process of every release
derives the same number from the same name and they all queue on one lock. SQLite runs one
writing transaction at a time (IMMEDIATE), which already serialises what these locks do: there
the helper takes nothing and answers that the lock is held.
"""

from __future__ import annotations

import hashlib

from django.db import connection


def lock_key(name: str) -> int:
    """The advisory lock number of ``name``: a signed 64-bit integer, as PostgreSQL takes it."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def advisory_xact_lock(lock: str | int, *, wait: bool = True) -> bool:
    """Take the advisory lock ``lock`` (a name, or a number kept from before names) until the
    end of the current transaction. ``wait``: queue for it (always True), or try once and
    answer False when another transaction holds it."""
    if connection.vendor != "postgresql":
        return True
    key = lock_key(lock) if isinstance(lock, str) else lock
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
            return True
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [key])
        (claimed,) = cursor.fetchone()
    return claimed
