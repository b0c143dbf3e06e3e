"""Reads of featured heists: the slots of the rotation, a slot's leaderboard and one player's
place on it, and the heists an owner played in a slot.

The leaderboard is the slot's :class:`FeaturedEntry` rows (ranked heists finished inside the
slot), in one total order: more loot, then the larger margin, then the earlier finish, then the
heist id. Both reads below walk the ``featuredentry_rank`` index in that order: the top is its
first rows, a player's rank is one plus the rows before theirs, counted as three range scans of
the index (bench/leaderboard.py measures both on 100,000 entries).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from django.db.models import JSONField, OuterRef, Subquery

from accounts.selectors import public_handles
from game.models import FeaturedEntry, FeaturedSlot, Heist, HeistNight
from game.owners import Owner

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
    """The title each player shows beside their name ({} until the shop's titles exist: then
    this one function asks the shop's selectors)."""
    return {}


def _standings(rows: list[FeaturedEntry], first_rank: int) -> list[Standing]:
    user_ids = [r.user_id for r in rows if r.user_id is not None]
    handles = public_handles(user_ids=user_ids) if user_ids else {}
    titles = player_titles(user_ids=user_ids) if user_ids else {}
    return [
        Standing(
            rank=first_rank + i,
            heist_id=r.heist_id,
            user_id=r.user_id,
            handle=handles.get(r.user_id) if r.user_id is not None else None,
            title=titles.get(r.user_id) if r.user_id is not None else None,
            score=r.score,
            rival_score=r.rival_score,
            finished_at=r.finished_at,
        )
        for i, r in enumerate(rows)
    ]


_COLUMNS = ("heist_id", "user_id", "score", "rival_score", "margin", "finished_at")


def leaderboard_top(*, slot: FeaturedSlot, limit: int = BOARD_MAX) -> list[Standing]:
    """The first ``limit`` places of the slot's leaderboard."""
    rows = list(
        FeaturedEntry.objects.filter(slot=slot)
        .order_by("-score", "-margin", "finished_at", "heist_id")
        .only(*_COLUMNS)[:limit]
    )
    return _standings(rows, 1)


def leaderboard_rank(*, entry: FeaturedEntry) -> int:
    """One plus the number of entries ahead of ``entry`` on its slot's board."""
    same = FeaturedEntry.objects.filter(slot_id=entry.slot_id)
    ahead = (
        same.filter(score__gt=entry.score).count()
        + same.filter(score=entry.score, margin__gt=entry.margin).count()
        + same.filter(
            score=entry.score, margin=entry.margin, finished_at__lt=entry.finished_at
        ).count()
        + same.filter(
            score=entry.score,
            margin=entry.margin,
            finished_at=entry.finished_at,
            heist_id__lt=entry.heist_id,
        ).count()
    )
    return ahead + 1


def player_standing(*, slot: FeaturedSlot, user_id: int | None) -> Standing | None:
    """The player's own place on the slot's board, or None (a guest, or no ranked finish)."""
    if user_id is None:
        return None
    entry = FeaturedEntry.objects.filter(slot=slot, user_id=user_id).only(*_COLUMNS).first()
    if entry is None:
        return None
    return _standings([entry], leaderboard_rank(entry=entry))[0]


# --- Slots ----------------------------------------------------------------------------------


def slot_get(*, slug: str) -> FeaturedSlot | None:
    return FeaturedSlot.objects.filter(pk=slug).first()


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
