"""Celery tasks. They only call services: the logic (and its idempotency) lives there."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from game.services.abandon import heists_abandon_stale
from game.services.debriefs import debrief_compute
from game.services.featured import featured_reconcile as featured_reconcile_service
from game.services.rivals import rival_plan_seal


@shared_task(
    name="game.plan_rival_night",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # A database hiccup is worth a retry; anything else is left to the web fallback.
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def plan_rival_night(heist_id: str, night: int) -> bool:
    """Seal the rival's plan for one night (DESIGN.md section 3, step 2).

    Idempotent (``rival_plan_seal`` claims the night with a conditional UPDATE), which is what
    makes ``acks_late`` + ``reject_on_worker_lost`` safe: a redelivered or duplicated message
    finds the night sealed and changes nothing. A heist that is gone or over is a no-op.
    """
    return rival_plan_seal(heist_id=heist_id, night=night)


@shared_task(name="game.abandon_stale_heists", acks_late=True, ignore_result=True)
def abandon_stale_heists() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): close heists with no seal for HEIST_ABANDON_MINUTES."""
    return heists_abandon_stale(older_than=timedelta(minutes=settings.HEIST_ABANDON_MINUTES))


@shared_task(
    name="game.featured_reconcile",
    acks_late=True,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def featured_reconcile() -> dict[str, list[str]]:
    """Periodic (CELERY_BEAT_SCHEDULE): close the featured slots that have ended, make sure the
    slot in play and the next two exist. Idempotent (game.services.featured), so a second beat,
    a redelivery or a late run changes nothing."""
    done = featured_reconcile_service()
    return {"created": done.created, "closed": done.closed}


@shared_task(
    name="game.debrief_heist",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def debrief_heist(heist_id: str) -> bool:
    """Work out a finished heist's debrief once (DESIGN.md section 10). Idempotent: the stored
    debrief is keyed by the heist, so a redelivered or duplicated message stores nothing
    twice; a heist that is gone, in play or abandoned is a no-op."""
    return debrief_compute(heist_id=heist_id)
