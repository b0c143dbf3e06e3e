"""Writes of the rival's turns (DESIGN.md section 3, steps 2 and 5).

``rival_plan_seal`` (the Celery task's body) builds the rival's observation, asks the rival
policy, and stores the plan, a 256-bit nonce and the commitment. It claims the night with a
conditional UPDATE ... WHERE rival_commitment IS NULL, so running it twice, or twice at once,
seals one plan and the second run changes nothing. The rival's random stream is the engine's
``rival_stream`` (game/engine/rng.py): the same position and policy always give the same plan,
so a worker and the fallback racing each other compute the same plan.
"""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from game.domain import HeistSnapshot
from game.engine import RIVAL, commit_plan, observe, plan_canonical, rival_stream, validate_plan
from game.models import HeistNight
from game.rivals.playermodel import FitsCache
from game.rivals.policy import choose_plan, learns
from game.selectors.heists import heist_load_any
from veyltak_site import metrics

logger = logging.getLogger(__name__)

# The player model's work for the heists this process plays, kept from one rival night to the
# next: a Kingpin or Safecracker turn works out its new night only. The worker runs one process
# (Procfile: --pool solo), so a heist's nights meet the same cache; anywhere else a miss only
# costs the rebuild. The plans are the same either way (playermodel.FitsCache). About 200 KiB a
# heist by its last night (tracemalloc): 256 heists hold ~50 MiB at most.
_player_fits = FitsCache(size=256)


def rival_schedule(heist_id: uuid.UUID, night: int) -> None:
    """Send the rival's task for ``night`` once the caller's transaction commits."""
    # Imported here: tasks imports the services.
    from game.tasks import plan_rival_night

    def send() -> None:
        # retry=False: with the broker down, fail at once instead of holding the request; the
        # heist view's fallback (rival_seal_overdue) seals the night in-process anyway.
        plan_rival_night.apply_async(args=(str(heist_id), night), retry=False)

    # robust: a broker error after the commit is logged and never turns a stored heist into a
    # 500 (the fallback covers the missing task).
    transaction.on_commit(send, robust=True)


def rival_plan_seal(*, heist_id: uuid.UUID | str, night: int) -> bool:
    """Seal the rival's plan for ``night``. Idempotent: True if this call sealed it, False if it
    was sealed already or there is nothing to seal (heist over, night past, heist gone).

    The policy runs outside any transaction (it may think for a while); the claim is one
    conditional UPDATE, so of two concurrent runs exactly one writes and the other's plan is
    dropped. Both compute the same plan anyway (the stream is derived from the heist key).
    """
    snapshot = heist_load_any(heist_id=heist_id)
    if snapshot is None:
        return False
    return _rival_seal(snapshot, night, by="task")


def _rival_seal(snapshot: HeistSnapshot, night: int, *, by: str) -> bool:
    heist = snapshot.heist
    if heist.is_closed or heist.night != night:
        return False
    row = next((n for n in snapshot.nights if n.night == night), None)
    if row is None or row.rival_sealed or row.resolved:
        return False
    state = snapshot.state
    if state.night != night:
        return False
    started = time.perf_counter()
    obs = observe(state, RIVAL)
    fits = _player_fits.fits(heist.pk, obs) if learns(heist.difficulty) else None
    plan = choose_plan(
        obs,
        persona=heist.rival,
        difficulty=heist.difficulty,
        stream=rival_stream(state.key, night),
        fits=fits,
    )
    if fits is not None and night == state.ruleset.nights:
        _player_fits.forget(heist.pk)  # its last night: nothing more to keep
    thought = time.perf_counter() - started
    metrics.rival_decided(difficulty=heist.difficulty, seconds=thought)
    # A policy bug must never seal an illegal plan: the night could then never resolve.
    validate_plan(state, RIVAL, plan)
    nonce = secrets.token_hex(32)
    commitment = commit_plan(nonce, plan_canonical(state.rival.decklist, plan))
    # One UPDATE is its own transaction (and its own durable commit) in autocommit: no
    # BEGIN/COMMIT round trips around it.
    claimed = HeistNight.objects.filter(pk=row.pk, rival_commitment__isnull=True).update(
        rival_plan=plan.to_dict(),
        rival_nonce=nonce,
        rival_commitment=commitment,
        rival_sealed_at=timezone.now(),
    )
    if claimed == 1:
        metrics.rival_plan_sealed(by=by)
        logger.info(
            "rival sealed night %s of heist %s (%s, thought %.1f ms, by %s)",
            night,
            heist.pk,
            heist.difficulty,
            thought * 1000,
            by,
        )
    return claimed == 1


def rival_fallback_cutoff() -> datetime:
    """A night in play that started at or before this moment and that no worker has sealed is
    one the view seals itself (RIVAL_FALLBACK_SECONDS). (A board asking whether its view
    changed asks this first: such a night is sealed and answered, never 304.)"""
    return timezone.now() - timedelta(seconds=settings.RIVAL_FALLBACK_SECONDS)


def rival_seal_overdue(*, snapshot: HeistSnapshot) -> bool:
    """The view's side of the fallback (DESIGN.md section 3, step 5): when the current night
    started more than RIVAL_FALLBACK_SECONDS ago and no worker has sealed the rival's plan,
    seal it here with the same idempotent service. Returns True if the night is sealed now.

    For ``GET /api/v1/heists/{id}/``, which the board polls: without this, a dead worker left
    the rival "planning" until the player sealed. The snapshot was read without a lock; the
    current night's row in it is refreshed, so the view built from it shows the commitment that
    was stored, whoever stored it. No lock is taken here: the policy runs outside any
    transaction and the claim is ``_rival_seal``'s conditional UPDATE, so a worker or another
    request racing this one seals one plan and the loser changes nothing.
    """
    row = snapshot.current
    if row is None or row.rival_sealed:
        return row is not None
    if row.started_at > rival_fallback_cutoff():
        return False
    try:
        _rival_seal(snapshot, row.night, by="web")
    except Exception:
        # The view still answers ("rival_planning"); the next poll or the worker tries again.
        logger.exception(
            "view fallback rival seal failed for heist %s night %s", snapshot.heist.pk, row.night
        )
        return False
    row.refresh_from_db(fields=["rival_plan", "rival_nonce", "rival_commitment", "rival_sealed_at"])
    return row.rival_sealed
