"""Which Celery workers are alive, as the cache records it: each worker writes its heartbeat
here (the bootstep in veyltak_site.celery, every WORKER_HEARTBEAT_SECONDS) and /healthz reads it
(veyltak_site.health). Neither imports the other: both import this."""

import time

from django.core.cache import cache

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


def worker_ages() -> dict[str, float | None]:
    """Seconds since each known worker was last heard (None: its record has expired)."""
    names = cache.get(WORKERS_KEY) or []
    heard = cache.get_many([WORKER_KEY.format(n) for n in names])
    now = time.time()
    ages: dict[str, float | None] = {}
    for name in names:
        at = heard.get(WORKER_KEY.format(name))
        ages[name] = None if at is None else round(max(0.0, now - at), 1)
    return ages
