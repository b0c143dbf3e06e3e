"""/healthz: 200 when the database and the broker answer, 503 naming the part that is down.

A Celery worker that has not answered recently, or a queue no live worker takes (the rival's
turns, the debriefs), makes it 200 with status "degraded", naming them: heists still finish
(the web seals a rival's plan itself when no worker has) and debriefs are still worked out (by
the web, when no debrief worker lives), only slower. Workers record themselves and their queues
in the cache (veyltak_site.workers, written by the WorkerHeartbeat bootstep of
veyltak_site.celery).
"""

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

from veyltak_site.celery import app as celery_app
from veyltak_site.workers import live_workers_by_queue, worker_records

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


# What the site does without a live worker on each queue, for the operator reading /healthz.
WITHOUT = {
    settings.CELERY_TASK_DEFAULT_QUEUE: "rival plans are made by the web fallback",
    settings.DEBRIEF_QUEUE: "debriefs are worked out by the web fallback",
}


def _workers() -> tuple[str, dict[str, float | None], list[str], dict[str, list[str]]]:
    """("ok" or "degraded", seconds since each known worker last answered, the silent ones, the
    live workers taking each queue)."""
    records = worker_records()
    ages = {name: age for name, (age, _) in records.items()}
    silent = [n for n, age in ages.items() if age is None or age > settings.WORKER_SILENT_SECONDS]
    queues = live_workers_by_queue(records)
    ok = ages and not silent and all(queues.values())
    return ("ok" if ok else "degraded"), ages, silent, queues


def _message(ages: dict, silent: list[str], queues: dict[str, list[str]]) -> str:
    if silent:
        said = [f"no answer from {', '.join(silent)} for over {settings.WORKER_SILENT_SECONDS:g} s"]
    elif not ages:
        said = ["no Celery worker has answered"]
    else:
        said = []
    for queue, live in queues.items():
        if not live:
            said.append(
                f"no live worker takes the queue {queue!r}: "
                + WITHOUT.get(queue, "its tasks wait in the broker")
            )
    return "; ".join(said)


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
        checks["worker"], ages, silent, queues = _workers()
    except Exception as exc:  # the cache is away: nothing is known about the workers
        log.warning("health check worker failed: %s", exc)
        checks["worker"], ages, silent = "degraded", {}, []
        queues = {q: [] for q in settings.CELERY_TASK_QUEUES}
    body = {"status": "down" if down else checks["worker"], "checks": checks}
    if down:
        body["down"] = down
    if checks["worker"] != "ok":
        body["degraded"] = ["worker"]
        body["silent_workers"] = silent
        body["message"] = _message(ages, silent, queues)
    body["workers"] = ages
    body["queues"] = queues
    return JsonResponse(body, status=503 if down else 200)
