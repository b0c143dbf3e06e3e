"""Writes of heist debriefs (DESIGN.md section 10): computed once per finished heist, kept.

``debrief_schedule`` sends the task when a heist finishes (``on_commit``: the task must see
the finished heist), to the debrief queue, which a worker of its own takes (the Procfile's
``debrief``), so rival turns never wait behind debriefs. ``debrief_compute`` (the task's body)
works the debrief out from the player's observations only (``observe(state, PLAYER)`` of every
night: game.rivals.debrief) and stores it; the heist's row is its primary key, so a second
run, two at once or the page's fallback store one debrief and the others change nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from game.engine import PLAYER, observe
from game.models import Heist, HeistDebrief
from game.owners import Owner
from game.rivals import debrief as solver
from game.selectors.debriefs import closed_heist_check
from game.selectors.heists import heist_get, heist_load_any, heist_states
from veyltak_site import metrics
from veyltak_site.workers import live_workers_by_queue

logger = logging.getLogger(__name__)


# Set while a re-sent debrief task is given time to run (debrief_overdue).
RESENT_KEY = "veyltak:debrief-resent:{}"


def _send(heist_id: uuid.UUID | str) -> None:
    from game.tasks import debrief_heist  # tasks imports the services

    # retry=False: with the broker down, fail at once; the result page and the API see the
    # debrief overdue later (debrief_overdue).
    debrief_heist.apply_async(args=(str(heist_id),), retry=False)


def debrief_schedule(heist_id: uuid.UUID) -> None:
    """Send the debrief task for a heist (to the debrief queue, CELERY_TASK_ROUTES) once the
    caller's transaction commits."""
    transaction.on_commit(lambda: _send(heist_id), robust=True)


def debrief_data(heist: Heist, nights, *, idle: bool = False) -> dict[str, Any]:
    """The debrief of a finished heist, as stored and sent: the solver's answer with each
    night's "why". ``idle``: worked out under the idle policy too (:func:`at_low_priority`)."""
    states = heist_states(heist, nights)
    seen = [observe(state, PLAYER) for state in states]
    rs = states[0].ruleset

    def work() -> dict[str, Any]:
        result = solver.debrief(seen)
        data = result.to_dict()
        for night, review in zip(data["nights"], result.nights, strict=True):
            night["why"] = solver.why_text(rs, review)
        return data

    return at_low_priority(work, idle=idle)


def at_low_priority[T](work: Callable[[], T], *, idle: bool = False) -> T:
    """Run ``work`` (pure computation: no database) in a thread of its own at DEBRIEF_NICE and
    wait for it. Linux keeps a nice value per thread, so only this thread yields the cores to
    requests and rival turns while a debrief is worked out (a finished heist's debrief can
    wait a second; a seal should not); the worker process keeps its own priority.

    ``idle`` (the debrief worker's task): where Linux has it, the thread also runs under the
    idle policy (SCHED_IDLE), so a request's or a rival turn's thread that wakes (its query
    answered) takes the core from it at once, where a nice value only lowers its share and may
    leave a woken request waiting out the debrief's time slice (``bench/capacity.py``, A/B in
    docs/deploy.md). Not for the web's fallback: there the thread shares its process's GIL
    with request threads, which would wait for it whenever it held the GIL without a core."""
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            _lower_this_thread(settings.DEBRIEF_NICE, idle)
            done["value"] = work()
        except BaseException as exc:  # handed to the caller below
            done["error"] = exc

    thread = threading.Thread(target=run, name="debrief")
    thread.start()
    thread.join()
    if "error" in done:
        raise done["error"]
    return done["value"]


def _lower_this_thread(nice: int, idle: bool) -> None:
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        if nice > current:  # never raise a priority (a worker already at nice 19 stays there)
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        if idle and hasattr(os, "SCHED_IDLE"):
            # Any thread may lower its own policy; it never rises again (a thread per debrief).
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
    except OSError:
        pass  # not allowed here: the debrief runs at the process's priority


def debrief_compute(*, heist_id: uuid.UUID | str, by: str = "task") -> bool:
    """Work out and store a finished heist's debrief. True if this call stored it; False if it
    was stored already or there is nothing to debrief (heist gone, in play or abandoned).
    ``by`` ("task" or "web") labels the operators' count of debriefs computed."""
    if HeistDebrief.objects.filter(heist_id=heist_id).exists():
        return False
    snapshot = heist_load_any(heist_id=heist_id)
    if snapshot is None or snapshot.heist.status != Heist.Status.FINISHED:
        return False
    # The solver runs outside any transaction (it thinks for a while); the insert is one row.
    data = debrief_data(snapshot.heist, snapshot.nights, idle=by == "task")
    try:
        with transaction.atomic():
            HeistDebrief.objects.create(
                heist_id=snapshot.heist.pk, accuracy=data["accuracy"], data=data
            )
            metrics.debrief_computed(by=by)
    except IntegrityError:
        return False  # another run stored it first: the same debrief
    return True


def debrief_overdue(*, heist: Heist) -> bool:
    """The pages' and the API's fallback for a finished heist whose debrief is not stored
    DEBRIEF_FALLBACK_SECONDS after the end. Returns True if it is stored now.

    While a debrief worker lives (its heartbeat names the debrief queue: veyltak_site.workers)
    the web never works a debrief out: under load the debrief queue can be minutes long, and
    every player opening a result page would turn that backlog into web CPU beside the seals.
    It sends the task again instead, at most once per DEBRIEF_FALLBACK_SECONDS a heist, for a
    task that was lost (the broker away when the heist ended); a duplicate stores nothing twice
    and costs the worker one query. With no live debrief worker (none deployed, all gone, or the
    cache that would tell is away), the request works it out itself."""
    if heist.status != Heist.Status.FINISHED or heist.finished_at is None:
        return False
    wait = timedelta(seconds=settings.DEBRIEF_FALLBACK_SECONDS)
    if timezone.now() - heist.finished_at < wait:
        return False
    if _debrief_worker_lives():
        _send_again(heist.pk)
        return False
    try:
        debrief_compute(heist_id=heist.pk, by="web")
    except Exception:
        logger.exception("fallback debrief failed for heist %s", heist.pk)
        return False
    return HeistDebrief.objects.filter(heist_id=heist.pk).exists()


def _debrief_worker_lives() -> bool:
    try:
        return bool(live_workers_by_queue().get(settings.DEBRIEF_QUEUE))
    except Exception as exc:  # the cache is away: nothing is known about the workers
        logger.warning("debrief workers unknown (%s): the web works the debrief out", exc)
        return False


def _send_again(heist_id: uuid.UUID) -> None:
    try:
        # At least a second apart, even with DEBRIEF_FALLBACK_SECONDS 0 (a cache timeout of 0
        # would let every request through).
        spacing = max(1.0, settings.DEBRIEF_FALLBACK_SECONDS)
        if not cache.add(RESENT_KEY.format(heist_id), 1, spacing):
            return  # sent again a moment ago: give it time
        _send(heist_id)
        logger.info("debrief of heist %s overdue: its task sent again", heist_id)
    except Exception as exc:  # the broker or the cache away: the next request tries again
        logger.warning("debrief of heist %s overdue, not sent again: %s", heist_id, exc)


def debrief_ready(*, heist_id: uuid.UUID | str, owner: Owner) -> HeistDebrief | None:
    """The owner's finished heist's debrief, or None while it is being worked out.

    404 ``not_found`` (not the owner's), 409 ``heist_active``, ``heist_abandoned`` or
    ``slot_open`` (game.selectors.debriefs.closed_heist_check). A debrief the worker has not
    stored DEBRIEF_FALLBACK_SECONDS after the end is sent again, or worked out here when no
    debrief worker lives (``debrief_overdue``)."""
    heist = heist_get(heist_id=heist_id, owner=owner)
    closed_heist_check(heist)
    found = HeistDebrief.objects.filter(heist=heist).first()
    if found is None and debrief_overdue(heist=heist):
        found = HeistDebrief.objects.filter(heist=heist).first()
    return found
