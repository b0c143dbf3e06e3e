"""The Celery app, configured from Django settings (CELERY_* names)."""

import logging
import logging.config
import os
import shutil
import sys

from celery import Celery, bootsteps
from celery.signals import (
    before_task_publish,
    celeryd_init,
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_shutdown,
)

from veyltak_site import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")

log = logging.getLogger(__name__)

app = Celery("veyltak")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The message header that carries the id of the request that sent a task.
REQUEST_ID_HEADER = "veyltak_request_id"


@before_task_publish.connect
def _send_request_id(headers=None, **kwargs) -> None:
    """A task sent while a request is answered (the rival's turn, on commit) carries its id."""
    rid = logs.request_id.get()
    if rid and headers is not None:
        headers.setdefault(REQUEST_ID_HEADER, rid)


@task_prerun.connect
def _task_context(task_id=None, task=None, **kwargs) -> None:
    """The worker's lines for a task carry its request id and its name (veyltak_site.logs). A
    task run inline (CELERY_TASK_ALWAYS_EAGER) keeps the id of the request running it."""
    sent_by = getattr(task.request, REQUEST_ID_HEADER, None) or logs.request_id.get()
    task.request.veyltak_log_context = (
        logs.request_id.set(sent_by),
        logs.current_task.set((task.name, task_id)),
    )


@task_postrun.connect
def _task_context_done(task=None, **kwargs) -> None:
    tokens = getattr(task.request, "veyltak_log_context", None)
    if tokens is not None:
        logs.request_id.reset(tokens[0])
        logs.current_task.reset(tokens[1])


if logs.json_wanted():
    # Celery's own log set-up (its text format on the root logger) is skipped when anything
    # handles this signal: with LOG_FORMAT=json the worker and beat log as the web does.
    @setup_logging.connect
    def _django_logging(**kwargs) -> None:
        from django.conf import settings

        logging.config.dictConfig(settings.LOGGING)

    @celeryd_init.connect
    def _no_banner(instance=None, **kwargs) -> None:
        # The worker's start banner is text on standard output, many lines of it.
        instance.quiet = True


# Exit code of a worker that refuses to start because another one consumes its queue of the
# embedded broker folder.
EX_BROKER_TAKEN = 3

_consumer_locks: list = []


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


def consumed_queues(app_or_consumer) -> list[str]:
    """The queues a worker takes (its -Q, else every queue of CELERY_TASK_QUEUES)."""
    return sorted(app_or_consumer.app.amqp.queues.consume_from)


@worker_init.connect
def _debrief_worker_yields(sender=None, **kwargs) -> None:
    """A worker that takes only debriefs runs at DEBRIEF_NICE as a whole, so a finished heist's
    debrief uses the CPU that seals and rival turns leave over.

    A thread's nice value (game.services.debriefs) ranks it only among the threads of its own
    session when the kernel groups sessions (autogroup, on by default on most Linux desktops and
    servers): `make run` and the benchmarks start each process in a session of its own, so a
    niced debrief still took an equal share of the cores beside gunicorn's whole session. The
    session's own nice (/proc/self/autogroup) ranks it among the sessions. Only a worker that
    leads its session lowers it, since the session is then this worker's and its pool's alone.
    """
    from django.conf import settings

    if consumed_queues(sender) != [settings.DEBRIEF_QUEUE] or os.getsid(0) != os.getpid():
        return
    if lower_session_priority(settings.DEBRIEF_NICE):
        log.info("debrief worker: its session runs at nice %d", settings.DEBRIEF_NICE)


def lower_session_priority(nice: int, autogroup: str = "/proc/self/autogroup") -> bool:
    """Raise this session's autogroup nice to ``nice`` (never lower it). The processes keep
    their own nice values, which still rank them within the session (the worker's heartbeat
    above the debrief's thinking thread). True if the autogroup's nice is ``nice`` or more now;
    False where there is none (not Linux, a kernel without it) or it may not be changed."""
    if nice <= 0:
        return False
    try:
        with open(autogroup) as fh:  # "/autogroup-85 nice 0"
            current = int(fh.read().split()[-1])
        if current < nice:
            with open(autogroup, "w") as fh:
                fh.write(str(nice))
        return True
    except (OSError, ValueError, IndexError):
        return False


@worker_init.connect
def _claim_local_broker(sender=None, **kwargs) -> None:
    """One worker per queue of an embedded broker folder: a second one refuses to start, loudly.

    Two consumers on one queue are safe for the messages (veyltak_site/broker.py), but a second
    worker there is almost always an orphan of an earlier `make run` (issue 19), so it is refused
    rather than left to pile up unnoticed. The rival's worker and the debrief worker take
    different queues of the same folder, each under its own lock. Runs in the worker's main
    process, after -Q is read and before its pool starts.
    """
    from django.conf import settings

    if settings.BROKER_DIR is None:
        return
    from veyltak_site.broker import (
        ConsumerLock,
        ConsumerLockHeld,
        queue_of,
        remove_stale_temp_files,
    )

    queues = consumed_queues(sender)
    for name in queues:
        lock = ConsumerLock(str(settings.BROKER_DIR), name)
        try:
            lock.acquire()
        except ConsumerLockHeld as exc:
            for held in _consumer_locks:
                held.release()
            _consumer_locks.clear()
            message = (
                f"REFUSING TO START: another Celery worker ({exc.holder}) already consumes the "
                f"queue {name!r} of the local broker in {settings.BROKER_DIR} ({exc.path}). "
                "Stop that worker first; one worker per queue and VEYLTAK_VAR_DIR."
            )
            log.critical(message)
            print(f"\nworker: {message}\n", file=sys.stderr, flush=True)
            raise SystemExit(EX_BROKER_TAKEN) from None
        _consumer_locks.append(lock)
    queue = settings.BROKER_DIR / "queue"
    claimed = settings.BROKER_DIR / "claimed"
    # A message is in claimed/ only between a consumer's rename and its read; one of this
    # worker's queues found there now was claimed by a worker that died in between (this worker
    # holds the queue's lock), so it goes back to the queue. Another queue's message may be in a
    # live worker's hands: it stays. The tasks are idempotent: a second delivery changes nothing.
    if claimed.is_dir():
        for path in claimed.iterdir():
            if queue_of(path.name) not in queues:
                continue
            shutil.move(str(path), str(queue / path.name))
            log.warning("broker: returned %s, claimed by a worker that died, to the queue", path)
    remove_stale_temp_files(str(queue))


@worker_shutdown.connect
def _release_local_broker(**kwargs) -> None:
    for lock in _consumer_locks:
        lock.release()
    _consumer_locks.clear()


class WorkerHeartbeat(bootsteps.StartStopStep):
    """Record in the cache, every WORKER_HEARTBEAT_SECONDS, that this worker's consumer runs,
    and which queues it takes.

    The timer is the consumer's own (the event loop's with Redis, Celery's timer thread with the
    embedded broker), as for Celery's own heartbeat events; /healthz reads the records, and so
    does the debrief's web fallback (game.services.debriefs).
    """

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.tref = None
        self.hostname = None
        self.queues: list[str] = []

    def start(self, c):
        from django.conf import settings

        self.hostname = c.hostname
        self.queues = consumed_queues(c)
        self._beat()
        self.tref = c.timer.call_repeatedly(
            settings.WORKER_HEARTBEAT_SECONDS, self._beat, priority=10
        )

    def _beat(self):
        from veyltak_site.workers import worker_heard

        try:
            worker_heard(self.hostname, self.queues)
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
