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
- ``featured_heist_finished`` (from ``heist_finish``, in its transaction) puts a ranked heist
  that finished inside its slot on the leaderboard and pays the ranked bonus, once.
- ``featured_slot_close`` publishes the seed, freezes the top places and pays them, once.

Lock order, everywhere: a heist row, then a slot row, then wallets (the ledger's own order).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts import persons
from accounts import selectors as account_selectors
from accounts import services as account_services
from game import catalogue
from game.catalogue import Featured
from game.domain import HeistSnapshot
from game.engine import PLAYER, RIVAL, HeistState, seed_commitment
from game.models import FeaturedEntry, FeaturedSlot, FeaturedTally, Heist
from game.owners import Owner
from game.selectors.featured import leaderboard_top
from shop import services as shop_services
from shop.models import Reason
from veyltak_site.exceptions import ApplicationError

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


def _rotation_lock() -> None:
    """Serialise reconciles (to the end of the transaction). PostgreSQL: an advisory lock, so a
    second run waits and then sees the first one's slots; SQLite runs one writing transaction
    at a time anyway. The unique start is the guarantee either way."""
    if connection.vendor != "postgresql":
        return
    key = int.from_bytes(hashlib.blake2b(b"featured-rotation", digest_size=8).digest(), "big")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key - (1 << 63)])


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
    from game.services.heists import heist_create  # heists imports this module

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


def featured_ranked_open(*, owner: Owner, slot: FeaturedSlot) -> bool:
    """Whether a start of ``slot`` now is ``owner``'s ranked try: signed in, with no ranked
    heist of the slot yet. Caller is atomic and holds the owner's start lock
    (heists._make_room), so this sees every earlier start of this player."""
    if owner.user_id is None:
        return False
    if Heist.objects.filter(featured_slot=slot, user_id=owner.user_id, ranked=True).exists():
        return False
    # Once per person: not when a deleted account with one of this player's addresses had
    # the slot's ranked try (issue 27, S4).
    return not account_selectors.person_used(
        user_id=owner.user_id, what=persons.ranked_try(slot.slug)
    )


def featured_account_leaving(*, user) -> int:
    """An account is being deleted (accounts' ``account_deleting``, inside its transaction):
    keep that its person had each slot's ranked try it had (a keyed hash, accounts.persons),
    and take its entries off the boards of slots not yet closed, so the places, and the
    prizes the close pays, go to the next players (issue 27, S4). A closed slot's board stays
    as it was paid, the entry nameless. Each board under its slot's share lock, as a ranked
    finish: a close either paid before the entry left or sees the board without it. Returns
    how many entries left."""
    slugs = sorted(
        set(
            Heist.objects.filter(user_id=user.pk, ranked=True).values_list(
                "featured_slot_id", flat=True
            )
        )
    )
    account_services.person_uses_record(user=user, whats=[persons.ranked_try(s) for s in slugs])
    left = 0
    for slug in slugs:
        _ends_at, closed_at = _slot_share_lock(slug)
        if closed_at is not None:
            continue
        for entry in FeaturedEntry.objects.filter(slot_id=slug, user_id=user.pk):
            _tally_remove(slug, entry.score, entry.margin)
            entry.delete()
            left += 1
    return left


def _tally_remove(slug: str, score: int, margin: int) -> None:
    FeaturedTally.objects.filter(slot_id=slug, score=score, margin=margin, entries__gt=0).update(
        entries=F("entries") - 1
    )


def featured_rank_claim(*, heist: Heist) -> bool:
    """Insert ``heist`` (unsaved, on the slot's seed) as its player's ranked try; False, with
    nothing inserted and ``heist.ranked`` off, when the partial unique constraint
    (heist_one_ranked_per_slot) finds one already: a second ranked heist of one player is
    impossible even without the start lock, and the caller deals the start again as practice
    on a seed of its own (never practice on the slot's seed)."""
    heist.ranked = True
    try:
        with transaction.atomic():
            heist.save(force_insert=True)
    except IntegrityError:
        heist.ranked = False
        return False
    return True


def _slot_share_lock(slug: str) -> tuple[dt.datetime, dt.datetime | None]:
    """The slot's end and close, read under FOR SHARE (Django's ORM has no FOR SHARE): ranked
    finishes of one slot never wait for each other, and the close's FOR UPDATE waits for them
    all, as they wait for it. SQLite runs one writing transaction at a time: a plain read."""
    if connection.vendor != "postgresql":
        return FeaturedSlot.objects.values_list("ends_at", "closed_at").get(pk=slug)
    table = connection.ops.quote_name(FeaturedSlot._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ends_at, closed_at FROM {table} WHERE slug = %s FOR SHARE",  # noqa: S608
            [slug],
        )
        ends_at, closed_at = cursor.fetchone()
    return ends_at, closed_at


def _tally_add(slug: str, score: int, margin: int) -> None:
    """One more entry at (score, margin): a single upsert, so two finishes at once add 2."""
    table = connection.ops.quote_name(FeaturedTally._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (slot_id, score, margin, entries) VALUES (%s, %s, %s, 1) "  # noqa: S608
            "ON CONFLICT (slot_id, score, margin) DO UPDATE SET entries = "
            f"{table}.entries + 1",
            [slug, score, margin],
        )


def featured_heist_finished(*, heist: Heist, state: HeistState) -> int | None:
    """A ranked heist just finished (``heist_finish``, same transaction, heist row locked): if
    it finished inside its slot, put it on the leaderboard and pay the ranked bonus. Returns
    the bonus paid, or None. Keyed by the heist (the entry's primary key, the ledger key), so
    it happens once."""
    if not heist.ranked or heist.user_id is None or heist.featured_slot_id is None:
        return None
    ends_at, closed_at = _slot_share_lock(heist.featured_slot_id)
    if closed_at is not None or heist.finished_at >= ends_at:
        return None  # finished after its slot: practice from here on (RULES.md)
    score = state.score
    margin = score[PLAYER] - score[RIVAL]
    _, created = FeaturedEntry.objects.get_or_create(
        heist_id=heist.pk,
        defaults={
            "slot_id": heist.featured_slot_id,
            "user_id": heist.user_id,
            "score": score[PLAYER],
            "rival_score": score[RIVAL],
            "margin": margin,
            "finished_at": heist.finished_at,
        },
    )
    if created:
        _tally_add(heist.featured_slot_id, score[PLAYER], margin)
    bonus = catalogue.active().prizes.ranked_finish
    if bonus <= 0:
        return None
    shop_services.signs_credit(
        user=heist.user_id,
        amount=bonus,
        reason=Reason.FEATURED,
        key=f"featured-heist:{heist.pk}",
        reference=f"heist:{heist.pk}",
        memo="Ranked featured heist",
    )
    return bonus
