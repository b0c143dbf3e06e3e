"""Writes of featured heists: the rotation's slots, starting a slot's heist, a ranked finish,
closing a slot (RULES.md "Featured heists", DESIGN.md section 8).

- ``featured_reconcile`` is the beat task's body. It closes every slot whose end has passed and
  makes sure the slot in play now and the next two exist. Slots are a chain: each starts where
  the one before ends (the first at a multiple of FEATURED_SLOT_MINUTES since the Unix epoch,
  UTC), and each plays the rotation entry after the one before, so running it twice, at once,
  late or after a retry changes nothing: runs queue on an advisory lock, and a unique start
  refuses a second slot at one time whatever happens.
- ``featured_heist_start`` starts a slot's heist: its seed (no client seed), deck, encounter,
  rival and difficulty. A signed-in player's first heist of the slot is ranked, every later one
  practice; guests play practice. One ranked heist per player and slot is a database constraint
  (the start's owner lock makes it the usual answer, the constraint the guarantee).
- ``featured_heist_finished`` (game.services.ranked, from ``heist_finish`` in its transaction)
  puts a ranked heist that finished inside its slot on the leaderboard and pays the ranked
  bonus, once.
- ``featured_slot_close`` publishes the seed, freezes the top places and pays them, once.

Lock order, everywhere: a heist row, then a slot row, then wallets (the ledger's own order).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from game import catalogue
from game.catalogue import Featured
from game.domain import HeistSnapshot
from game.engine import seed_commitment
from game.models import FeaturedSlot
from game.owners import Owner
from game.selectors.featured import leaderboard_top
from game.services.heists import heist_create
from shop import services as shop_services
from shop.models import Reason
from veyltak_site.exceptions import ApplicationError
from veyltak_site.locks import advisory_xact_lock

logger = logging.getLogger(__name__)

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
AHEAD = 3  # the slot in play and the next two


def slot_length() -> dt.timedelta:
    return dt.timedelta(minutes=settings.FEATURED_SLOT_MINUTES)


def _aligned(now: dt.datetime, length: dt.timedelta) -> dt.datetime:
    """The latest multiple of ``length`` since the Unix epoch at or before ``now`` (UTC)."""
    return EPOCH + ((now - EPOCH) // length) * length


def slot_slug(starts_at: dt.datetime, length: dt.timedelta) -> str:
    """``2026-11-02`` for a slot of whole days starting at midnight, else ``2026-11-02-0930``.
    Each names its start exactly (slots start on whole minutes), so starts and slugs are both
    unique."""
    start = starts_at.astimezone(dt.UTC)
    whole_days = length % dt.timedelta(days=1) == dt.timedelta(0)
    if whole_days and start.time() == dt.time(0, 0):
        return f"{start:%Y-%m-%d}"
    return f"{start:%Y-%m-%d-%H%M}"


# The rotation's lock number from before locks were named (BLAKE2b of "featured-rotation", read
# unsigned, less 2**63): kept as it was, so during a rolling deploy the beats of both releases
# still queue on one lock.
ROTATION_LOCK = -2164819665738630905


def _rotation_lock() -> None:
    """Serialise reconciles (to the end of the transaction). PostgreSQL: an advisory lock, so a
    second run waits and then sees the first one's slots; SQLite runs one writing transaction
    at a time anyway. The unique start is the guarantee either way."""
    advisory_xact_lock(ROTATION_LOCK)


def _entry_after(previous: FeaturedSlot | None, rotation: tuple[Featured, ...]) -> int:
    """The rotation position of the slot after ``previous``: the next one, skipping any entry
    that would repeat it (possible only when the rotation data changed between the two)."""
    if previous is None:
        return 0
    position = previous.position + 1
    for step in range(len(rotation)):
        entry = rotation[(position + step) % len(rotation)]
        if entry.encounter.slug != previous.encounter_slug and entry.rival != previous.rival:
            return position + step
    raise RuntimeError("the featured rotation has no entry that differs from the last slot")


def _slot_create(
    starts_at: dt.datetime, length: dt.timedelta, previous: FeaturedSlot | None
) -> FeaturedSlot | None:
    """Insert the slot starting at ``starts_at``; None when a slot starts there already."""
    active = catalogue.active()
    position = _entry_after(previous, active.rotation)
    entry = active.rotation[position % len(active.rotation)]
    server_seed = secrets.token_hex(32)
    slot = FeaturedSlot(
        slug=slot_slug(starts_at, length),
        name=entry.name,
        starts_at=starts_at,
        ends_at=starts_at + length,
        position=position,
        ruleset=active.ruleset.version,
        encounter_slug=entry.encounter.slug,
        encounter=entry.encounter.to_dict(),
        rival=entry.rival,
        difficulty=entry.difficulty,
        deck=list(entry.deck),
        server_seed=server_seed,
        seed_commitment=seed_commitment(server_seed),
    )
    try:
        with transaction.atomic():
            slot.save(force_insert=True)
    except IntegrityError:
        # Another run made it (only without the advisory lock): the unique start decides.
        return None
    return slot


@dataclass
class Reconciled:
    created: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)


def featured_reconcile(*, now: dt.datetime | None = None) -> Reconciled:
    """Close what has ended, then make sure the slot in play and the next two exist.

    Idempotent: a second run, two at once, a retry or a late run change nothing more. A slot
    is never moved or replaced once made (players may be in it); a changed
    FEATURED_SLOT_MINUTES applies from the end of the slots already made.
    """
    now = now or timezone.now()
    done = Reconciled()
    due = FeaturedSlot.objects.filter(closed_at__isnull=True, ends_at__lte=now)
    for slug in due.order_by("starts_at").values_list("slug", flat=True):
        if featured_slot_close(slug=slug, now=now):
            done.closed.append(slug)
    if not catalogue.active().rotation:
        return done
    length = slot_length()
    with transaction.atomic():
        _rotation_lock()
        latest = FeaturedSlot.objects.order_by("-starts_at").first()
        if latest is None or latest.ends_at <= now:
            # Nothing in play: start a chain at the current multiple of the length, never
            # overlapping the last slot (which a changed length could otherwise do).
            start = _aligned(now, length)
            if latest is not None:
                start = max(start, latest.ends_at)
            made = _slot_create(start, length, latest)
            if made is None:
                return done
            done.created.append(made.slug)
            latest = made
        ahead = FeaturedSlot.objects.filter(ends_at__gt=now).count()
        for _ in range(AHEAD - ahead):
            made = _slot_create(latest.ends_at, length, latest)
            if made is None:
                break
            done.created.append(made.slug)
            latest = made
    return done


def featured_slot_close(*, slug: str, now: dt.datetime | None = None) -> bool:
    """Close a slot whose end has passed: publish its seed (``closed_at`` set), freeze its top
    places and pay them through the ledger. True if this call closed it; False when it was
    closed already or has not ended.

    Under the slot's row lock: a ranked finish writes its leaderboard entry under a share lock
    of the same row, so it either lands before the close counts the board or is refused as
    finished after the slot. The payout is one ledger transaction keyed by the slot, so even a
    close repeated past the lock would pay once.
    """
    now = now or timezone.now()
    prizes = catalogue.active().prizes
    with transaction.atomic():
        slot = FeaturedSlot.objects.select_for_update().filter(pk=slug).first()
        if slot is None or slot.closed_at is not None or slot.ends_at > now:
            return False
        winners = []
        top = [e for e in leaderboard_top(slot=slot, limit=len(prizes.top) + 10) if e.user_id]
        for rank, (entry, amount) in enumerate(zip(top, prizes.top, strict=False), start=1):
            winners.append(
                {
                    "rank": rank,
                    "user_id": entry.user_id,
                    "player": entry.handle,
                    "score": entry.score,
                    "rival_score": entry.rival_score,
                    "finished_at": entry.finished_at.isoformat(),
                    "heist": str(entry.heist_id),
                    "signs": amount,
                }
            )
        if winners:
            shop_services.signs_payout(
                payouts=[(w["user_id"], w["signs"]) for w in winners],
                reason=Reason.FEATURED,
                key=f"featured:{slot.slug}",
                reference=f"featured:{slot.slug}",
                memo=f"Featured heist “{slot.name}”: a top-{len(prizes.top)} place",
            )
        slot.closed_at = now
        slot.winners = winners
        slot.save(update_fields=["closed_at", "winners"])
    logger.info("featured slot %s closed; %d paid", slug, len(winners))
    return True


# --- Heists of a slot ------------------------------------------------------------------------


def _not_found() -> ApplicationError:
    return ApplicationError("not_found", "There is no such featured heist.", status_code=404)


def featured_heist_start(*, owner: Owner, slug: str) -> HeistSnapshot:
    """Start the featured heist of slot ``slug``: 404 ``not_found`` for no such slot, 409
    ``slot_closed`` before its start or from its end on (whether or not the beat has closed it
    yet). Ranked for a signed-in player's first heist of the slot, else practice."""
    slot = FeaturedSlot.objects.filter(pk=slug).first()
    if slot is None:
        raise _not_found()
    now = timezone.now()
    if not slot.is_open(now):
        when = "has not opened yet" if now < slot.starts_at else "is over"
        raise ApplicationError(
            "slot_closed",
            f"The featured heist “{slot.name}” {when}: it runs from "
            f"{slot.starts_at:%Y-%m-%d %H:%M} to {slot.ends_at:%Y-%m-%d %H:%M} UTC.",
            status_code=409,
        )
    return heist_create(
        owner=owner,
        rival=slot.rival,
        difficulty=slot.difficulty,
        deck=slot.deck,
        encounter=slot.encounter,
        server_seed=slot.server_seed,
        client_seed="",
        ruleset=slot.ruleset,
        featured_slot=slot,
    )
