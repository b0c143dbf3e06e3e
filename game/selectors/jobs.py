"""Reads for jobs: the finished heists a player's jobs count, as the facts their conditions
read (game.jobs.conditions), and a player's periods."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from game.engine import NightResult
from game.jobs.conditions import HeistFacts
from game.kept import Kept
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
    nights = _finished_nights([(r[0], r[-1]) for r in rows])
    return [
        HeistFacts(
            difficulty=difficulty,
            outcome=outcome,
            rival=rival,
            encounter=encounter or "",
            featured=slot is not None,
            nights=nights[pk, finished_at],
            finished_at=finished_at,
        )
        for pk, difficulty, outcome, rival, encounter, slot, finished_at in rows
    ]


# A finished heist's nights never change, and every finish of a player counts the heists of
# their week again (a regular's week holds a hundred heists or more): each process keeps the
# nights it has read, the least recently used dropped first. Keyed by the heist and the moment
# it finished, so the nights read inside a finish that was then rolled back are never served
# for the heist's later, real finish (a new moment). About 11 KiB a heist: 2,048 are ~22 MiB.
_nights_kept: Kept[tuple[NightResult, ...]] = Kept(2048)


def _finished_nights(keys: list[tuple]) -> dict[tuple, tuple[NightResult, ...]]:
    """{(heist id, finished at): its resolved nights in order}, from this process's memory or
    the database (one query for those it has not read)."""
    found, missing = {}, []
    for key in keys:
        nights = _nights_kept.get(key)
        if nights is None:
            missing.append(key)
        else:
            found[key] = nights
    if not missing:
        return found
    read: dict = defaultdict(list)
    for heist_id, result in (
        HeistNight.objects.filter(heist_id__in=[pk for pk, _ in missing], result__isnull=False)
        .order_by("heist_id", "night")
        .values_list("heist_id", "result")
    ):
        read[heist_id].append(NightResult.from_dict(result))
    for key in missing:
        found[key] = tuple(read[key[0]])
        _nights_kept.put(key, found[key])
    return found


def period_latest(*, user_id: int, kind: str) -> JobPeriod | None:
    """The player's latest period of ``kind`` (the one in force, or the last one)."""
    return JobPeriod.objects.filter(user_id=user_id, kind=kind).order_by("-starts_at").first()
