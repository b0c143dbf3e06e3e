"""The Celery app, configured from Django settings (CELERY_* names)."""

import logging
import os
import shutil
import sys

from celery import Celery, bootsteps
from celery.signals import task_postrun, task_prerun, worker_init, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")

log = logging.getLogger(__name__)

app = Celery("veyltak")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Exit code of a worker that refuses to start because another one consumes its broker folder.
EX_BROKER_TAKEN = 3

_consumer_lock = None


@task_prerun.connect
@task_postrun.connect
def _close_old_connections(**kwargs) -> None:
    """Database connections in a worker follow the same policy as in a web request.

    Django closes a connection at the start and end of each request when it has errors or is
    older than CONN_MAX_AGE, and health-checks a reused one first (CONN_HEALTH_CHECKS). Celery's
    own fixup would instead open a new PostgreSQL connection for every task (a backend process
    started and ended per rival turn) unless CELERY_DB_REUSE_MAX is set; settings.py sets it, and
    this keeps the connections honest.
    """
    from django.db import close_old_connections

    close_old_connections()


@worker_init.connect
def _claim_local_broker(**kwargs) -> None:
    """One worker per embedded broker folder: a second one refuses to start, loudly.

    Two consumers on one folder are safe for the messages (veyltak_site/broker.py), but a second
    worker there is almost always an orphan of an earlier `make run` (issue 19), so it is refused
    rather than left to pile up unnoticed. Runs in the worker's main process before its pool starts.
    """
    global _consumer_lock
    from django.conf import settings

    if settings.BROKER_DIR is None:
        return
    from veyltak_site.broker import ConsumerLock, ConsumerLockHeld, remove_stale_temp_files

    lock = ConsumerLock(str(settings.BROKER_DIR))
    try:
        lock.acquire()
    except ConsumerLockHeld as exc:
        message = (
            f"REFUSING TO START: another Celery worker ({exc.holder}) already consumes the "
            f"local broker in {settings.BROKER_DIR} ({exc.path}). Stop that worker first; "
            "one worker per VEYLTAK_VAR_DIR."
        )
        log.critical(message)
        print(f"\nworker: {message}\n", file=sys.stderr, flush=True)
        raise SystemExit(EX_BROKER_TAKEN) from None
    _consumer_lock = lock
    queue = settings.BROKER_DIR / "queue"
    claimed = settings.BROKER_DIR / "claimed"
    # A message is in claimed/ only between a consumer's rename and its read; one found there
    # now was claimed by a worker that died in between (this worker holds the lock), so it goes
    # back to the queue. The tasks are idempotent: a second delivery changes nothing.
    if claimed.is_dir():
        for path in claimed.iterdir():
            shutil.move(str(path), str(queue / path.name))
            log.warning("broker: returned %s, claimed by a worker that died, to the queue", path)
    remove_stale_temp_files(str(queue))


@worker_shutdown.connect
def _release_local_broker(**kwargs) -> None:
    if _consumer_lock is not None:
        _consumer_lock.release()


class WorkerHeartbeat(bootsteps.StartStopStep):
    """Record in the cache, every WORKER_HEARTBEAT_SECONDS, that this worker's consumer runs.

    The timer is the consumer's own (the event loop's with Redis, Celery's timer thread with the
    embedded broker), as for Celery's own heartbeat events; /healthz reads the records.
    """

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.tref = None
        self.hostname = None

    def start(self, c):
        from django.conf import settings

        self.hostname = c.hostname
        self._beat()
        self.tref = c.timer.call_repeatedly(
            settings.WORKER_HEARTBEAT_SECONDS, self._beat, priority=10
        )

    def _beat(self):
        from veyltak_site.workers import worker_heard

        try:
            worker_heard(self.hostname)
        except Exception as exc:  # the cache being away must not stop the consumer
            log.warning("worker heartbeat not recorded: %s", exc)

    def stop(self, c):
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    def shutdown(self, c):
        from veyltak_site.workers import worker_gone

        self.stop(c)
        try:
            worker_gone(self.hostname)
        except Exception as exc:
            log.warning("worker heartbeat not removed: %s", exc)


app.steps["consumer"].add(WorkerHeartbeat)
