"""The embedded Celery broker of `make run`: kombu's file transport, made safe to share.

kombu's own file transport creates a message file and then writes into it, so a consumer that
lists the folder in between picks up an empty or half-written file and dies on the JSON error
(issue 10). Here a message is written under a temporary name and renamed into the queue folder
(rename is atomic within one file system, so a consumer sees a whole message or none). A consumer
claims a message by renaming it into its own folder, so two consumers never take the same file.
Anything it still cannot read (a file left half-written by a crash or a power cut, or put there
by hand) is logged and moved to ``broken/`` instead of stopping the worker.

The consumer also polls in short slices, so that a worker told to stop (SIGTERM) notices within
a fraction of a second instead of at the end of Celery's 2 s wait for a message (issue 19).

Folders, under ``VAR_DIR/broker/``: ``queue/`` (messages of every queue; a file's name ends
``.<queue>.msg`` and the names sort in the order they were sent), ``claimed/`` (being read),
``broken/`` (set aside), ``control/`` (exchange tables). ``consumer.<queue>.lock`` is held by
the one worker that may consume that queue (``veyltak_site.celery``): the rival's worker takes
``celery``, the debrief worker ``debrief``, a worker started without -Q both.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
import uuid
from queue import Empty

from kombu.transport import filesystem
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

# The longest a consumer waits in one call before Celery's loop checks whether to stop.
DRAIN_SLICE_SECONDS = 0.25
# A temporary file older than this was left by a writer that died before its rename.
STALE_TEMP_SECONDS = 3600


class BrokenMessage(ValueError):
    """A file in the queue folder that is not a message."""


def _parse(raw: bytes) -> dict:
    if not raw.strip():
        raise BrokenMessage("empty file")
    try:
        payload = loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BrokenMessage(f"not JSON ({exc})") from exc
    properties = payload.get("properties") if isinstance(payload, dict) else None
    if (
        not isinstance(properties, dict)
        or not isinstance(properties.get("delivery_info"), dict)
        or "delivery_tag" not in properties
        or "body" not in payload
    ):
        raise BrokenMessage("JSON, but not a kombu message")
    return payload


class Channel(filesystem.Channel):
    """A file channel whose writes are atomic and whose reads survive broken files."""

    def _folder(self, name: str) -> str:
        # Made once per channel: the consumer polls ten times a second.
        made = self.__dict__.setdefault("_made_folders", {})
        if name not in made:
            made[name] = os.path.join(os.path.dirname(self.data_folder_in), name)
            os.makedirs(made[name], exist_ok=True)
        return made[name]

    def _put(self, queue, payload, **kwargs):
        # time_ns, zero-padded: names sort in the order messages were sent, across processes
        # and restarts (kombu's own names use a per-boot monotonic clock).
        name = f"{time.time_ns():020d}_{uuid.uuid4().hex}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # The temporary name does not end in ".msg", so no consumer ever lists it.
        temp = os.path.join(self.data_folder_out, f".{name}.{os.getpid()}.tmp")
        try:
            with open(temp, "wb") as fh:
                fh.write(dumps(payload).encode("utf-8"))
            os.rename(temp, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            folder = self.data_folder_out
            raise filesystem.ChannelError(f"Cannot add a message to {folder}") from exc

    def _get(self, queue):
        wanted = f"{queue}.msg"
        claimed_folder = self._folder("claimed")
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.startswith(".") or name.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(claimed_folder, name)
            try:
                # Atomic: of two consumers racing for this file, one rename succeeds.
                os.rename(os.path.join(self.data_folder_in, name), claimed)
            except FileNotFoundError:
                continue
            try:
                with open(claimed, "rb") as fh:
                    payload = _parse(fh.read())
            except (OSError, BrokenMessage) as exc:
                self._set_aside(claimed, name, exc)
                continue
            os.unlink(claimed)
            return payload
        raise Empty()

    # kombu keeps each exchange's bindings in one JSON file in ``control/`` and creates it
    # before taking its lock, so a process declaring the same queue at that moment reads an
    # empty table (JSONDecodeError at start-up, seen with several producers). Here the read-
    # modify-write runs under a lock file of its own and the table is replaced atomically, so
    # readers need no lock and always see a whole table.
    def get_table(self, exchange):
        try:
            raw = self._exchange_file(exchange).read_bytes()
        except FileNotFoundError:
            return []
        return [filesystem.exchange_queue_t(*q) for q in loads(raw.decode("utf-8"))]

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        self.control_folder.mkdir(exist_ok=True)
        table = self._exchange_file(exchange)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with open(f"{table}.lock", "a") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            queues = self.get_table(exchange)
            if binding in queues:
                return
            queues.insert(0, binding)
            temp = f"{table}.{os.getpid()}.tmp"
            with open(temp, "w", encoding="utf-8") as fh:
                fh.write(dumps(queues))
            os.replace(temp, table)

    def _set_aside(self, path: str, name: str, reason: Exception) -> None:
        target = os.path.join(self._folder("broken"), name)
        try:
            os.rename(path, target)
        except OSError as exc:
            log.error("broker: cannot set aside the broken message %s (%s): %s", name, reason, exc)
            return
        log.error("broker: set aside a broken message (%s): %s", reason, target)

    def _size(self, queue):
        wanted = f"{queue}.msg"
        return sum(
            1
            for name in os.listdir(self.data_folder_in)
            if not name.startswith(".") and name.partition(".")[2] == wanted
        )

    def _purge(self, queue):
        wanted = f"{queue}.msg"
        count = 0
        for name in os.listdir(self.data_folder_in):
            if name.startswith(".") or name.partition(".")[2] != wanted:
                continue
            try:
                os.unlink(os.path.join(self.data_folder_in, name))
                count += 1
            except FileNotFoundError:
                pass  # taken by a consumer meanwhile
        return count


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection, timeout=None):
        # Celery's loop for polling transports waits up to 2 s for a message before it looks at
        # its stop flag; slicing the wait lets a warm shutdown start within DRAIN_SLICE_SECONDS.
        if timeout is None or timeout > DRAIN_SLICE_SECONDS:
            timeout = DRAIN_SLICE_SECONDS
        return super().drain_events(connection, timeout=timeout)


def queue_of(name: str) -> str:
    """The queue a message file belongs to (its name is ``<time>_<id>.<queue>.msg``)."""
    return name.partition(".")[2].removesuffix(".msg")


class ConsumerLock:
    """The right to consume one queue of a broker folder, held for the life of one worker
    process.

    A POSIX record lock (``lockf``) belongs to the process that took it: the worker's pool
    children, which inherit the file, do not hold it, and the kernel drops it the moment the
    worker dies, however it dies. So a second worker on the same queue of the same folder is
    refused while the first one lives, and a restarted worker never finds a stale lock.
    """

    def __init__(self, folder: str, queue: str) -> None:
        self.path = os.path.join(folder, f"consumer.{queue}.lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
            os.close(fd)
            raise ConsumerLockHeld(self.path, holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class ConsumerLockHeld(RuntimeError):
    def __init__(self, path: str, holder: str) -> None:
        super().__init__(f"{path} is held by {holder}")
        self.path = path
        self.holder = holder


def remove_stale_temp_files(folder: str, *, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Delete temporary files whose writer died before renaming them (called by the consumer)."""
    removed = 0
    now = time.time()
    for name in os.listdir(folder):
        if not (name.startswith(".") and name.endswith(".tmp")):
            continue
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > older_than:
                os.unlink(path)
                removed += 1
        except FileNotFoundError:
            pass
    return removed
