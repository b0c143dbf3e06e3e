"""A purchase's Idempotency-Key (DESIGN.md section 5): its check, its claim for one
transaction, its stored answer, and the beat task that forgets old answers."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from shop.models import IdempotencyRecord
from veyltak_site.exceptions import ApplicationError
from veyltak_site.locks import advisory_xact_lock, lock_key

IDEMPOTENCY_KEY_MAX = IdempotencyRecord._meta.get_field("key").max_length


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """A purchase request's answer as sent the first time: ``body`` byte for byte.
    ``replayed`` is True when this request found the answer stored by an earlier one."""

    status_code: int
    body: bytes
    replayed: bool


def idempotency_key_check(key: object) -> str:
    """The ``Idempotency-Key`` header: 1 to 64 visible ASCII characters, else 400."""
    if (
        not isinstance(key, str)
        or not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX
        or not all("!" <= c <= "~" for c in key)
    ):
        raise ApplicationError(
            "idempotency_key_required",
            f"A purchase needs an Idempotency-Key header of 1 to {IDEMPOTENCY_KEY_MAX} "
            "visible ASCII characters, new for each purchase.",
        )
    return key


def purchase_request_hash(data: dict) -> str:
    """A purchase's body in one canonical form, stored with its key: the same key sent again
    with another body is refused (422 ``idempotency_key_reused``), from the API or the page."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def purchase_lock_id(user_id: int, key: str) -> int:
    """The advisory lock number of one player's Idempotency-Key (64 bits of a hash)."""
    return lock_key(f"shop-purchase:{user_id}:{key}")


def _key_lock(user_id: int, key: str) -> None:
    """Claim the player's key for this transaction, or refuse at once: 409
    ``request_in_progress`` while another request with the same key runs.

    PostgreSQL: a transaction-scoped advisory lock, tried without waiting (a retried request
    should learn its first copy is still running, not queue behind it). It is released after
    the commit is visible, so whoever takes it next finds the stored answer. SQLite runs one
    writing transaction at a time (IMMEDIATE), which serialises the same way.
    """
    if not advisory_xact_lock(purchase_lock_id(user_id, key), wait=False):
        raise ApplicationError(
            "request_in_progress",
            "A request with this Idempotency-Key is still being processed; ask again shortly.",
            status_code=409,
        )


def idempotency_records_clear(*, now: dt.datetime | None = None) -> int:
    """Remove stored purchase answers older than IDEMPOTENCY_KEY_HOURS (beat task). Returns
    how many went. The purchases themselves stay; only the key's answer is forgotten."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
