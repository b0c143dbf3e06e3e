"""Writes of a ranked featured heist, made inside the heist's own transactions
(game.services.heists): the ranked attempt claimed when the heist starts, and its leaderboard
entry and bonus when it finishes inside its slot (RULES.md "Featured heists").

Apart from game.services.featured (the rotation, a slot's start and its close) because the
heist service calls these while game.services.featured calls the heist service to start a
slot's heist: each module imports the one below it, never the other way round.

Lock order, as everywhere: a heist row, then a slot row, then wallets (the ledger's own order).
"""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, connection, transaction
from django.db.models import F

from accounts import persons
from accounts import selectors as account_selectors
from accounts import services as account_services
from game import catalogue
from game.engine import PLAYER, RIVAL, HeistState
from game.models import FeaturedEntry, FeaturedSlot, FeaturedTally, Heist
from game.owners import Owner
from shop import services as shop_services
from shop.models import Reason


def featured_ranked_open(*, owner: Owner, slot: FeaturedSlot) -> bool:
    """Whether a start of ``slot`` now is ``owner``'s ranked try: signed in, with no ranked
    heist of the slot yet, and no deleted account of the same person that had one (issue 27,
    S4). Caller is atomic and holds the owner's start lock (abandon.heists_make_room), so this sees
    every earlier start of this player."""
    if owner.user_id is None:
        return False
    if Heist.objects.filter(featured_slot=slot, user_id=owner.user_id, ranked=True).exists():
        return False
    return not account_selectors.person_used(
        user_id=owner.user_id, what=persons.ranked_try(slot.slug)
    )


def featured_rank_claim(*, heist: Heist) -> bool:
    """Insert ``heist`` (unsaved, on the slot's seed) as its player's ranked try; False, with
    nothing inserted and ``heist.ranked`` off, when the partial unique constraint
    (heist_one_ranked_per_slot) finds one already: a second ranked heist of one player is
    impossible even without the start lock, and the caller deals the start again as practice
    on a seed of its own (never practice on the slot's seed: issue 27, S1)."""
    heist.ranked = True
    try:
        with transaction.atomic():
            heist.save(force_insert=True)
    except IntegrityError:
        heist.ranked = False
        return False
    return True


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
