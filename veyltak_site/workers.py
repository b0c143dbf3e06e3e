"""Which Celery workers are alive, and which queues each takes, as the cache records it: each
worker writes its heartbeat here (the bootstep in veyltak_site.celery, every
WORKER_HEARTBEAT_SECONDS) and /healthz and the debrief's web fallback read it
(veyltak_site.health, game.services.debriefs). Neither imports the other: both import this."""

import time

from django.conf import settings
from django.core.cache import cache

WORKERS_KEY = "veyltak:workers"
WORKER_KEY = "veyltak:worker:{}"
# A worker silent this long is dropped from the list (a host renamed or retired for good).
FORGET_AFTER_SECONDS = 24 * 3600


def worker_heard(hostname: str, queues: list[str] | tuple[str, ...]) -> None:
    """A worker says it is alive (its heartbeat), and which queues it takes."""
    record = {"at": time.time(), "queues": sorted(queues)}
    cache.set(WORKER_KEY.format(hostname), record, timeout=FORGET_AFTER_SECONDS)
    names = cache.get(WORKERS_KEY) or []
    if hostname not in names:
        cache.set(WORKERS_KEY, sorted({*names, hostname}), timeout=None)


def worker_gone(hostname: str) -> None:
    """A worker that stops cleanly takes itself off the list."""
    cache.delete(WORKER_KEY.format(hostname))
    names = cache.get(WORKERS_KEY) or []
    if hostname in names:
        cache.set(WORKERS_KEY, [n for n in names if n != hostname], timeout=None)


def worker_records() -> dict[str, tuple[float | None, list[str]]]:
    """For each known worker: seconds since it was last heard (None: its record has expired)
    and the queues it takes."""
    names = cache.get(WORKERS_KEY) or []
    heard = cache.get_many([WORKER_KEY.format(n) for n in names])
    now = time.time()
    records: dict[str, tuple[float | None, list[str]]] = {}
    for name in names:
        record = heard.get(WORKER_KEY.format(name))
        if record is None:
            records[name] = (None, [])
            continue
        if not isinstance(record, dict):
            # A worker of the release before queues were recorded: it took the default queue.
            record = {"at": record, "queues": [settings.CELERY_TASK_DEFAULT_QUEUE]}
        records[name] = (round(max(0.0, now - record["at"]), 1), list(record["queues"]))
    return records


def live_workers_by_queue(
    records: dict[str, tuple[float | None, list[str]]] | None = None,
) -> dict[str, list[str]]:
    """For each queue of CELERY_TASK_QUEUES, the workers taking it that were heard within
    WORKER_SILENT_SECONDS (an empty list: nobody takes it now)."""
    found: dict[str, list[str]] = {q: [] for q in settings.CELERY_TASK_QUEUES}
    for name, (age, queues) in (worker_records() if records is None else records).items():
        if age is None or age > settings.WORKER_SILENT_SECONDS:
            continue
        for queue in queues:
            found.setdefault(queue, []).append(name)
    return found
