"""Reads of featured heists: the slots of the rotation, a slot's leaderboard and one player's
place on it, and the heists an owner played in a slot.

The leaderboard is the slot's :class:`FeaturedEntry` rows (ranked heists finished inside the
slot), in one total order: more loot, then the larger margin, then the earlier finish, then the
heist id. The top is the first rows of the ``featuredentry_rank`` index, joined to the handles
in the same query; a player's rank is one plus the entries ahead, summed from the slot's
:class:`FeaturedTally` rows and the few ties counted on the index (bench/leaderboard.py
measures both on 100,000 entries).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from django.db import connection
from django.db.models import JSONField, OuterRef, Subquery

from game.models import FeaturedEntry, FeaturedSlot, FeaturedTally, Heist, HeistNight
from game.owners import Owner
from shop import selectors as shop_selectors

BOARD_MAX = 100  # the most entries one answer lists (DESIGN.md section 5)
PAST_SLOTS = 7  # closed slots the featured page and the API list


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of a leaderboard."""

    rank: int
    heist_id: uuid.UUID
    user_id: int | None
    handle: str | None  # the public handle; None for a deleted account
    title: str | None
    score: int
    rival_score: int
    finished_at: dt.datetime


def player_titles(*, user_ids: list[int]) -> dict[int, str | None]:
    """The title each player wears beside their name (its name, or None): the shop's, in one
    query for the whole page."""
    return shop_selectors.titles_for(user_ids)


_COLUMNS = ("heist_id", "user_id", "score", "rival_score", "finished_at", "user__profile__handle")


def _standings(rows: list[tuple], first_rank: int) -> list[Standing]:
    """Rows of ``_COLUMNS`` (the handle joined in the same query: the public name accounts
    keeps, never anything from the email) as standings from ``first_rank`` on."""
    user_ids = [r[1] for r in rows if r[1] is not None]
    titles = player_titles(user_ids=user_ids) if user_ids else {}
    return [
        Standing(
            rank=first_rank + i,
            heist_id=heist_id,
            user_id=user_id,
            handle=handle,
            title=titles.get(user_id) if user_id is not None else None,
            score=score,
            rival_score=rival_score,
            finished_at=finished_at,
        )
        for i, (heist_id, user_id, score, rival_score, finished_at, handle) in enumerate(rows)
    ]


def leaderboard_top(*, slot: FeaturedSlot, limit: int = BOARD_MAX) -> list[Standing]:
    """The first ``limit`` places of the slot's leaderboard: one query on the rank index."""
    rows = list(
        FeaturedEntry.objects.filter(slot=slot)
        .order_by("-score", "-margin", "finished_at", "heist_id")
        .values_list(*_COLUMNS)[:limit]
    )
    return _standings(rows, 1)


def leaderboard_rank(
    *, slot_id: str, score: int, margin: int, finished_at: dt.datetime, heist_id: uuid.UUID
) -> int:
    """One plus the number of entries ahead of the entry (score, margin, finished_at, heist_id)
    on the slot's board: those with more loot, or the same loot and a larger margin, summed
    from the slot's tallies (a few thousand rows at most, whatever the number of entries), and
    those with the same loot and margin that finished earlier (or at the same instant with a
    smaller heist id), counted on the rank index. One statement, one round trip."""
    tally = connection.ops.quote_name(FeaturedTally._meta.db_table)
    entry = connection.ops.quote_name(FeaturedEntry._meta.db_table)
    sql = (
        f"SELECT COALESCE((SELECT SUM(entries) FROM {tally} WHERE slot_id = %s AND "  # noqa: S608
        "(score > %s OR (score = %s AND margin > %s))), 0) + "
        f"(SELECT COUNT(*) FROM {entry} WHERE slot_id = %s AND score = %s AND margin = %s "
        "AND (finished_at < %s OR (finished_at = %s AND heist_id < %s)))"
    )
    # As the database stores them (a UUID is hex text on SQLite).
    at = FeaturedEntry._meta.get_field("finished_at").get_db_prep_value(finished_at, connection)
    heist = FeaturedEntry._meta.pk.get_db_prep_value(heist_id, connection)
    params = [slot_id, score, score, margin, slot_id, score, margin, at, at, heist]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (ahead,) = cursor.fetchone()
    return int(ahead) + 1


def player_standing(*, slot: FeaturedSlot, user_id: int | None) -> Standing | None:
    """The player's own place on the slot's board, or None (a guest, or no ranked finish):
    their entry with its handle in one query, their rank in another."""
    if user_id is None:
        return None
    # Unordered, one row at most (a unique constraint): no sort for .first() to add.
    rows = list(
        FeaturedEntry.objects.filter(slot=slot, user_id=user_id).values_list(*_COLUMNS, "margin")[
            :1
        ]
    )
    if not rows:
        return None
    *row, margin = rows[0]
    heist_id, _, score, _, finished_at, _ = row
    rank = leaderboard_rank(
        slot_id=slot.pk, score=score, margin=margin, finished_at=finished_at, heist_id=heist_id
    )
    return _standings([tuple(row)], rank)[0]


# --- Slots ----------------------------------------------------------------------------------


def slot_get(*, slug: str) -> FeaturedSlot | None:
    return FeaturedSlot.objects.filter(pk=slug).first()


def slot_shown(*, slug: str, now: dt.datetime) -> FeaturedSlot | None:
    """A slot whose page, leaderboard and replays may be shown: one that has opened. Of a slot
    not yet open nothing is shown but what ``GET /api/v1/featured/`` says of the next one (no
    deck, no commitment: issue 27, S7), so before it opens it is no slot at all."""
    return FeaturedSlot.objects.filter(pk=slug, starts_at__lte=now).first()


def slot_current(*, now: dt.datetime) -> FeaturedSlot | None:
    """The slot in play at ``now`` (its start passed, its end not yet)."""
    return FeaturedSlot.objects.filter(starts_at__lte=now, ends_at__gt=now).first()


def slot_next(*, now: dt.datetime) -> FeaturedSlot | None:
    return FeaturedSlot.objects.filter(starts_at__gt=now).order_by("starts_at").first()


def slots_past(*, limit: int = PAST_SLOTS) -> list[FeaturedSlot]:
    """The latest closed slots, newest first (their seeds published, winners frozen)."""
    return list(FeaturedSlot.objects.filter(closed_at__isnull=False).order_by("-starts_at")[:limit])


def owner_slot_heist(*, slot: FeaturedSlot, owner: Owner) -> Heist | None:
    """The heist the featured pages show as the owner's in ``slot``: their ranked heist, else
    their latest practice one; with ``last_score`` (the score after the last night played)."""
    if owner.user_id is None and not owner.guest_id:
        return None
    last_score = (
        HeistNight.objects.filter(heist=OuterRef("pk"), result__isnull=False)
        .order_by("-night")
        .values("result__score")[:1]
    )
    return (
        Heist.objects.filter(owner.heist_filter(), featured_slot=slot)
        .annotate(last_score=Subquery(last_score, output_field=JSONField()))
        .order_by("-ranked", "-created_at")
        .first()
    )


def slot_heists(*, slot: FeaturedSlot, owner: Owner) -> list[Heist]:
    """The owner's heists in ``slot``, newest first (the featured page links their replays)."""
    if owner.user_id is None and not owner.guest_id:
        return []
    return list(
        Heist.objects.filter(owner.heist_filter(), featured_slot=slot).order_by("-created_at")
    )


def ranked_heist_public(*, slot: FeaturedSlot, heist_id: uuid.UUID) -> Heist | None:
    """A heist on a closed slot's board, which anyone may verify (its replay is public once the
    slot's seed is): None while the slot is open, or for any other heist."""
    if slot.closed_at is None:
        return None
    return Heist.objects.filter(
        pk=heist_id, featured_slot=slot, featured_entry__isnull=False
    ).first()
