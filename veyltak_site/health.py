"""/healthz: 200 when the database and the broker answer, 503 naming the part that is down.

A Celery worker that has not answered recently makes it 200 with status "degraded", naming the
worker: heists still finish (the web seals a rival's plan itself when no worker has), only
slower. Workers record themselves in the cache (veyltak_site.celery.WorkerHeartbeat).
"""

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse

from veyltak_site.celery import app as celery_app

log = logging.getLogger(__name__)

WORKERS_KEY = "veyltak:workers"
WORKER_KEY = "veyltak:worker:{}"
# A worker silent this long is dropped from the list (a host renamed or retired for good).
FORGET_AFTER_SECONDS = 24 * 3600


def worker_heard(hostname: str) -> None:
    """A worker says it is alive (its heartbeat)."""
    now = time.time()
    cache.set(WORKER_KEY.format(hostname), now, timeout=FORGET_AFTER_SECONDS)
    names = cache.get(WORKERS_KEY) or []
    if hostname not in names:
        cache.set(WORKERS_KEY, sorted({*names, hostname}), timeout=None)


def worker_gone(hostname: str) -> None:
    """A worker that stops cleanly takes itself off the list."""
    cache.delete(WORKER_KEY.format(hostname))
    names = cache.get(WORKERS_KEY) or []
    if hostname in names:
        cache.set(WORKERS_KEY, [n for n in names if n != hostname], timeout=None)


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
    names = cache.get(WORKERS_KEY) or []
    heard = cache.get_many([WORKER_KEY.format(n) for n in names])
    now = time.time()
    ages: dict[str, float | None] = {}
    for name in names:
        at = heard.get(WORKER_KEY.format(name))
        ages[name] = None if at is None else round(max(0.0, now - at), 1)
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
