"""Writes of jobs (DESIGN.md section 11): a player's periods opened and drawn, jobs paid when a
heist finishes, and the period in progress moved when the player's time zone changes.

Progress is never stored: each job's progress is counted again from the stored nights of the
player's heists that count (game.selectors.jobs.COUNTING) inside its period. What a job paid
is the ledger's: one transaction, reason ``job``, keyed by the player, the period and the job
(:func:`job_key`), referring to the heist that finished it, so the result page lists it with
the heist's other Signs and a retry, a second worker or a repeated call pays nothing twice.

**Locks.** Everything that opens, moves or pays a player's periods holds the advisory lock
``jobs:<player>`` to the end of its transaction. A heist's finish takes it after the heist's
row lock and the wallet's (the heist award's), so two heists of one player finishing at once
queue, and the second counts the first: a job both finish together is paid once, not twice
and not never. A time zone change takes it after the profile's row lock. Reading the jobs
(:func:`jobs_board`) takes it too (it may open a period), and never pays, so it never waits
for a wallet while holding it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts import time_zones
from game.domain import JobBoard, JobPaid, JobState
from game.jobs import conditions, periods
from game.jobs import pool as job_pool
from game.jobs.conditions import HeistFacts
from game.models import Heist, JobPeriod
from game.selectors import jobs as job_selectors
from shop import selectors as shop_selectors
from shop import services as shop_services
from shop.economy import get_economy
from shop.models import Reason
from veyltak_site.locks import advisory_xact_lock

KINDS = (periods.DAILY, periods.WEEKLY)
# The starter job counts a player's first heists only (it asks for three).
STARTER_HEISTS = 50


def job_key(*, user_id: int, period: JobPeriod | None, slug: str) -> str:
    """The ledger key of one job's payout: one per player, period and job (the starter job's
    period is the player's whole life)."""
    if period is None:
        return f"job:{user_id}:starter:{slug}"
    start = period.starts_at.astimezone(dt.UTC)
    return f"job:{user_id}:{period.kind}:{start:%Y-%m-%dT%H:%MZ}:{slug}"


def _lock(user_id: int) -> None:
    advisory_xact_lock(f"jobs:{user_id}")


def _stored(job: job_pool.Job, reward: int) -> dict[str, Any]:
    return {
        "slug": job.slug,
        "kind": job.kind,
        "params": dict(job.params),
        "goal": job.goal,
        "tier": job.tier,
        "reward": reward,
        "text": job.text,
    }


def _period_open(*, user_id: int, kind: str, now: dt.datetime) -> JobPeriod:
    """The player's period of ``kind`` in force at ``now``, opened and drawn if there is none.
    Caller is atomic and holds the player's jobs lock."""
    latest = job_selectors.period_latest(user_id=user_id, kind=kind)
    # (A period starting after ``now`` is only seen with a clock moved back: it stays.)
    if latest is not None and now < latest.ends_at:
        return latest
    name = account_selectors.time_zone(user=user_id)
    start, end = periods.opening(
        kind, time_zones.zone(name), now, latest.ends_at if latest else None
    )
    pool = job_pool.active()
    economy = get_economy()
    drawn = job_pool.draw(
        pool.jobs(kind),
        job_pool.PICKS[kind],
        seed=f"{pool.version}/{user_id}/{kind}/{start.astimezone(dt.UTC).isoformat()}",
    )
    period, _ = JobPeriod.objects.get_or_create(
        user_id=user_id,
        kind=kind,
        starts_at=start,
        defaults={
            "ends_at": end,
            "time_zone": name,
            "pool": pool.version,
            "economy": economy.version,
            "jobs": [_stored(j, economy.job_reward(j.tier)) for j in drawn],
        },
    )
    return period


def _progress(job: dict[str, Any], heists: Iterable[HeistFacts]) -> int:
    levels = job_pool.levels()
    return sum(conditions.steps(job["kind"], job["params"], h, levels) for h in heists)


def _keys(user_id: int, period: JobPeriod | None, jobs: list[dict[str, Any]]) -> dict[str, str]:
    return {j["slug"]: job_key(user_id=user_id, period=period, slug=j["slug"]) for j in jobs}


def _states(
    jobs: list[dict[str, Any]], keys: dict[str, str], paid: set[str], heists: list[HeistFacts]
) -> list[JobState]:
    """Each job with its progress; a paid job is done and not counted again (a Kingpin
    regular's week holds a hundred heists or more, each read back from its stored nights)."""
    states = []
    for job in jobs:
        is_paid = keys[job["slug"]] in paid
        progress = job["goal"] if is_paid else _progress(job, heists)
        states.append(
            JobState(
                slug=job["slug"],
                text=job["text"],
                progress=min(progress, job["goal"]),
                goal=job["goal"],
                reward=job["reward"],
                done=progress >= job["goal"],
                paid=is_paid,
            )
        )
    return states


def _starter() -> dict[str, Any] | None:
    job = job_pool.active().starter
    return _stored(job, get_economy().job_reward(job.tier)) if job else None


def _starter_state(user_id: int) -> JobState | None:
    job = _starter()
    if job is None:
        return None
    keys = _keys(user_id, None, [job])
    if shop_selectors.ledger_keys_posted(keys.values()):
        return None
    first = job_selectors.counting_heists(user_id=user_id, first=STARTER_HEISTS)
    return _states([job], keys, set(), first)[0]


def _board_read(user_id: int, now: dt.datetime) -> JobBoard:
    opened = {kind: _period_open(user_id=user_id, kind=kind, now=now) for kind in KINDS}
    keys = {kind: _keys(user_id, p, p.jobs) for kind, p in opened.items()}
    paid = shop_selectors.ledger_keys_posted(k for ks in keys.values() for k in ks.values())
    # The heists of the periods with a job still to pay (none once all are paid).
    open_ = [p for kind, p in opened.items() if set(keys[kind].values()) - paid]
    heists = (
        job_selectors.counting_heists(
            user_id=user_id,
            since=min(p.starts_at for p in open_),
            until=max(p.ends_at for p in open_),
        )
        if open_
        else []
    )
    jobs = {}
    for kind, period in opened.items():
        inside = [h for h in heists if period.starts_at <= h.finished_at < period.ends_at]
        jobs[kind] = _states(period.jobs, keys[kind], paid, inside)
    return JobBoard(
        time_zone=account_selectors.time_zone(user=user_id),
        daily=opened[periods.DAILY],
        weekly=opened[periods.WEEKLY],
        jobs=jobs,
        starter=_starter_state(user_id),
    )


@transaction.atomic
def jobs_board(*, user_id: int, now: dt.datetime | None = None) -> JobBoard:
    """The player's jobs in force now, with their progress and whether each is paid: the
    periods are opened (drawn) if the player has none in force. Pays nothing."""
    _lock(user_id)
    return _board_read(user_id, now or timezone.now())


def _pay(user_id: int, heist: Heist, period: JobPeriod | None, state: JobState) -> JobPaid:
    shop_services.signs_credit(
        user=user_id,
        amount=state.reward,
        reason=Reason.JOB,
        key=job_key(user_id=user_id, period=period, slug=state.slug),
        reference=f"heist:{heist.pk}",
        memo=f"Job done: {state.text}",
    )
    return JobPaid(state.slug, state.text, state.reward)


def jobs_heist_finished(*, heist: Heist) -> list[JobPaid]:
    """A heist just finished (``heist_finish``, in its transaction, after the heist's award):
    pay every job of its player that it completed. Returns what was paid.

    Only a heist that counts (game.selectors.jobs.counts_for_jobs) is looked at. The jobs are
    those of the periods in force when it finished; their progress is counted again from the
    stored heists, so a call repeated for the same heist finds them paid and pays nothing.
    """
    if not job_selectors.counts_for_jobs(heist):
        return []
    user_id = heist.user_id
    with transaction.atomic():
        _lock(user_id)
        board = _board_read(user_id, heist.finished_at)
        paid = []
        for kind, period in ((periods.DAILY, board.daily), (periods.WEEKLY, board.weekly)):
            for state in board.jobs[kind]:
                if state.done and not state.paid:
                    paid.append(_pay(user_id, heist, period, state))
        if board.starter is not None and board.starter.done:
            paid.append(_pay(user_id, heist, None, board.starter))
    return paid


@transaction.atomic
def jobs_time_zone_changed(
    *, user_id: int, time_zone: str, first: bool = False, now: dt.datetime | None = None
) -> int:
    """The player's time zone changed (accounts' ``time_zone_changed``, in its transaction):
    the periods in force end at a boundary of the new zone instead, never less than
    ``periods.SHORTEST`` after their start and always after ``now``. Returns how many moved.

    ``first``: the player had no zone yet (the browser says where it is on the first page it
    shows, which has already opened the day in UTC). A period of theirs that has paid nothing
    is then dropped rather than stretched: it opens again, drawn afresh, in the player's own
    zone at the next look, after the end of the one before it like any other."""
    _lock(user_id)
    now = now or timezone.now()
    zone = time_zones.zone(time_zone)
    moved = 0
    for kind in KINDS:
        period = job_selectors.period_latest(user_id=user_id, kind=kind)
        if period is None or not (period.starts_at <= now < period.ends_at):
            continue
        keys = [job_key(user_id=user_id, period=period, slug=j["slug"]) for j in period.jobs]
        if first and not shop_selectors.ledger_keys_posted(keys):
            period.delete()
        else:
            end = periods.moved_end(kind, zone, period.starts_at, now)
            JobPeriod.objects.filter(pk=period.pk).update(ends_at=end, time_zone=time_zone)
        moved += 1
    return moved
