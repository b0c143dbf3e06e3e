"""Reads of the rating (DESIGN.md section 11): a player's rating now, and what heists did to it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from game.models import Heist, PlayerRating, RatingChange
from game.rating.anchors import Anchors, current


def heist_rates(heist: Heist) -> bool:
    """Whether this heist moves a rating when it closes (what the result page explains when
    it does not)."""
    if heist.user_id is None or heist.is_practice:
        return False
    if heist.featured_slot_id is not None and not heist.ranked:
        return False  # a featured heist after the ranked try is practice (RULES.md)
    # A challenge heist never rates (DESIGN.md section 11).
    return heist.challenge_id is None


@dataclass(frozen=True, slots=True)
class PlayerRatingNow:
    value: float
    deviation: float
    volatility: float
    heists: int  # rated heists so far
    provisional: bool


def rating_now(*, user_id: int, anchors: Anchors | None = None) -> PlayerRatingNow:
    """The player's rating: the anchors' start rating until a heist has rated them."""
    anchors = anchors or current()
    row = PlayerRating.objects.filter(user_id=user_id).first()
    if row is None:
        start = anchors.start
        return PlayerRatingNow(start.value, start.deviation, start.volatility, 0, True)
    return PlayerRatingNow(
        row.value,
        row.deviation,
        row.volatility,
        row.heists,
        anchors.provisional(row.deviation),
    )


def rating_change_of(*, heist_id: uuid.UUID | str) -> RatingChange | None:
    """What this heist did to its player's rating, or None (it did not rate, or not yet)."""
    return RatingChange.objects.filter(heist_id=heist_id).first()


def rating_changes(*, user_id: int, limit: int | None = None) -> list[RatingChange]:
    """The player's rated heists, newest first (at most ``limit``)."""
    rows = RatingChange.objects.filter(user_id=user_id).order_by("-number")
    return list(rows[:limit] if limit is not None else rows)
