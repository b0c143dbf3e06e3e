"""/healthz: 200 when the database and the broker answer, 503 naming the part that is down.

A Celery worker that has not answered recently makes it 200 with status "degraded", naming the
worker: heists still finish (the web seals a rival's plan itself when no worker has), only
slower. Workers record themselves in the cache (veyltak_site.workers, written by the
WorkerHeartbeat bootstep of veyltak_site.celery).
"""

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

from veyltak_site.celery import app as celery_app
from veyltak_site.workers import worker_ages

log = logging.getLogger(__name__)


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


def _workers() -> tuple[str, dict[str, float | None], list[str]]:
    """("ok" or "degraded", seconds since each known worker last answered, the silent ones)."""
    ages = worker_ages()
    silent = [n for n, age in ages.items() if age is None or age > settings.WORKER_SILENT_SECONDS]
    return ("ok" if ages and not silent else "degraded"), ages, silent


def healthz(request):
    checks = {}
    for name, check in (("database", _database), ("broker", _broker)):
        try:
            checks[name] = check()
        except Exception as exc:
            log.warning("health check %s failed: %s", name, exc)
            checks[name] = "down"
    down = [name for name, state in checks.items() if state != "ok"]
    try:
        checks["worker"], ages, silent = _workers()
    except Exception as exc:  # the cache is away: nothing is known about the workers
        log.warning("health check worker failed: %s", exc)
        checks["worker"], ages, silent = "degraded", {}, []
    body = {"status": "down" if down else checks["worker"], "checks": checks}
    if down:
        body["down"] = down
    if checks["worker"] != "ok":
        body["degraded"] = ["worker"]
        body["silent_workers"] = silent
        body["message"] = (
            f"no answer from {', '.join(silent)} for over "
            f"{settings.WORKER_SILENT_SECONDS:g} s: rival plans are made by the web fallback"
            if silent
            else "no Celery worker has answered: rival plans are made by the web fallback"
        )
    body["workers"] = ages
    return JsonResponse(body, status=503 if down else 200)
