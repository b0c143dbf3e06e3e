"""Reads for jobs: the finished heists a player's jobs count, as the facts their conditions
read (game.jobs.conditions), and a player's periods."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from game.engine import NightResult
from game.jobs.conditions import HeistFacts
from game.models import Heist, HeistNight, JobPeriod
from shop.models import SignsReason

# A heist counts for jobs exactly when it counted for Signs: finished signed in with every
# night sealed, earning or past the daily limit. Practice retries (``practice``), heists
# finished as a guest and claimed later (``guest``), abandoned ones, and challenges (which
# never earn) never count.
COUNTING = (SignsReason.EARNED, SignsReason.DAILY_LIMIT)


def counts_for_jobs(heist: Heist) -> bool:
    """Whether this finished heist counts for its player's jobs."""
    return (
        heist.user_id is not None
        and heist.status == Heist.Status.FINISHED
        and heist.signs_reason in COUNTING
        and not heist.is_practice
        # A challenge is played for the challenge alone (its signs_reason says so too).
        and heist.challenge_id is None
    )


def counting_heists(
    *,
    user_id: int,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    first: int | None = None,
) -> list[HeistFacts]:
    """The facts of every heist of the player that counts for jobs, finished in
    [``since``, ``until``) (only the ``first`` ones, when given), oldest first, each with its
    stored nights' results."""
    heists = Heist.objects.filter(
        user_id=user_id,
        status=Heist.Status.FINISHED,
        signs_reason__in=COUNTING,
        practice_night__isnull=True,
        challenge__isnull=True,
    )
    if since is not None:
        heists = heists.filter(finished_at__gte=since)
    if until is not None:
        heists = heists.filter(finished_at__lt=until)
    heists = heists.order_by("finished_at", "pk").values_list(
        "pk", "difficulty", "outcome", "rival", "encounter_slug", "featured_slot_id", "finished_at"
    )
    rows = list(heists[:first] if first is not None else heists)
    nights: dict = defaultdict(list)
    for heist_id, result in (
        HeistNight.objects.filter(heist_id__in=[r[0] for r in rows], result__isnull=False)
        .order_by("heist_id", "night")
        .values_list("heist_id", "result")
    ):
        nights[heist_id].append(NightResult.from_dict(result))
    return [
        HeistFacts(
            difficulty=difficulty,
            outcome=outcome,
            rival=rival,
            encounter=encounter or "",
            featured=slot is not None,
            nights=tuple(nights[pk]),
            finished_at=finished_at,
        )
        for pk, difficulty, outcome, rival, encounter, slot, finished_at in rows
    ]


def period_latest(*, user_id: int, kind: str) -> JobPeriod | None:
    """The player's latest period of ``kind`` (the one in force, or the last one)."""
    return JobPeriod.objects.filter(user_id=user_id, kind=kind).order_by("-starts_at").first()
