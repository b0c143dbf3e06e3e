"""Writes of the rating (DESIGN.md section 11): a closed heist moves its player's Glicko-2 rating,
once.

Called inside the transaction that closes the heist, one call from each door:
``rating_heist_finished`` from ``heist_finish`` (the heist row locked) and
``ratings_heists_abandoned`` from the abandon paths (the heists just closed by their UPDATE).
A heist rates when a signed-in player played it against a level: not a guest's, not practice
(a retry of a night, or a featured heist after the player's ranked try: RULES.md), not a
challenge. Finished, it scores 1, 0.5 or 0; abandoned, 0 (a loss: leaving a heist unfinished
must not protect a rating). Each heist is one Glicko-2 rating period with one game, against
its level's anchor (game.rating.anchors).

Once per heist: the change's primary key is the heist, and it is written under the player's
rating row lock after a second look for it, so a finish called twice, a repeated task or two
closes racing write one change; two heists of one player closing at once queue on that lock,
each rated from the rating the other left. Lock order: the heist rows (the caller's), then
what the shop locks (the callers reach it first), then rating rows in user id order, last.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from game.models import Heist, PlayerRating, RatingChange
from game.rating import glicko2
from game.rating.anchors import Anchors, current
from game.selectors.rating import heist_rates

_SCORES = {
    RatingChange.Result.WIN: 1.0,
    RatingChange.Result.DRAW: 0.5,
    RatingChange.Result.LOSS: 0.0,
    RatingChange.Result.ABANDONED: 0.0,
}


def _result(heist: Heist) -> RatingChange.Result | None:
    if heist.status == Heist.Status.ABANDONED:
        return RatingChange.Result.ABANDONED
    if heist.status == Heist.Status.FINISHED and heist.outcome:
        return RatingChange.Result(heist.outcome)
    return None  # still in play: nothing to rate


def _rating_locked(user_id: int, anchors: Anchors) -> PlayerRating:
    """The player's rating row under FOR UPDATE, made at the start rating if missing (an
    INSERT ... ON CONFLICT DO NOTHING, so two first heists at once make one row)."""
    start = anchors.start
    PlayerRating.objects.bulk_create(
        [
            PlayerRating(
                user_id=user_id,
                value=start.value,
                deviation=start.deviation,
                volatility=start.volatility,
            )
        ],
        ignore_conflicts=True,
    )
    return PlayerRating.objects.select_for_update().get(user_id=user_id)


def _rate(heist: Heist, anchors: Anchors, now) -> RatingChange | None:
    result = _result(heist)
    if result is None or not heist_rates(heist):
        return None
    if RatingChange.objects.filter(heist_id=heist.pk).exists():
        return None
    row = _rating_locked(heist.user_id, anchors)
    # Again under the lock: a close of the same heist that held it has committed its change,
    # and this statement sees it (READ COMMITTED reads what committed before it began).
    if RatingChange.objects.filter(heist_id=heist.pk).exists():
        return None
    anchor = anchors.anchor(heist.difficulty)
    score = _SCORES[result]
    before = glicko2.Rating(row.value, row.deviation, row.volatility)
    after = glicko2.update(
        before, [glicko2.Game(anchor.rating, anchor.deviation, score)], tau=anchors.tau
    )
    change = RatingChange.objects.create(
        heist_id=heist.pk,
        user_id=heist.user_id,
        number=row.heists + 1,
        result=result,
        score=score,
        level=anchor.level,
        anchors=anchors.version,
        opponent=anchor.rating,
        opponent_deviation=anchor.deviation,
        before_value=before.value,
        before_deviation=before.deviation,
        before_volatility=before.volatility,
        after_value=after.value,
        after_deviation=after.deviation,
        after_volatility=after.volatility,
        rated_at=now,
    )
    PlayerRating.objects.filter(pk=row.pk).update(
        value=after.value,
        deviation=after.deviation,
        volatility=after.volatility,
        heists=row.heists + 1,
        updated_at=now,
    )
    return change


def rating_heist_finished(*, heist: Heist) -> RatingChange | None:
    """Rate a heist ``heist_finish`` just finished (same transaction, its row locked). Returns
    the change, or None when the heist does not rate or was rated already."""
    if not heist_rates(heist):
        return None  # a guest's, a practice retry's, a challenge's: not even a savepoint
    with transaction.atomic():
        return _rate(heist, current(), timezone.now())


@transaction.atomic
def ratings_heists_abandoned(*, heist_ids: Iterable[uuid.UUID | str]) -> list[RatingChange]:
    """Rate heists an abandon path just closed (same transaction), each as a loss. Players'
    rating rows are locked in user id order (a stale sweep closes many players' heists at
    once, and another sweep or a finish may be rating some of them); one player's heists in
    the order they were started."""
    ids = list(heist_ids)
    if not ids:
        return []
    heists = Heist.objects.filter(pk__in=ids, user_id__isnull=False).order_by(
        "user_id", "created_at", "pk"
    )
    anchors, now = current(), timezone.now()
    return [change for heist in heists if (change := _rate(heist, anchors, now)) is not None]
