"""The embedded broker (veyltak_site/broker.py): whole messages only, broken files set aside
instead of stopping the consumer, one consumer per queue of a folder."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue

from tests.support.stack import ROOT, embedded_env, prepare, processes_of

BROKEN = {
    "empty": b"",
    "half_written": b'{"body": "eyJ0YXNrIjog", "content-encoding": "utf-8", "prop',
    "not_utf8": b"\xff\xfe\x00garbage",
    "not_a_message": b'{"hello": "world"}',
}


def _connection(folder: Path) -> Connection:
    for name in ("queue", "control"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    return Connection(
        "filesystem://",
        transport="veyltak_site.broker:Transport",
        transport_options={
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "control_folder": str(folder / "control"),
            "polling_interval": 0.01,
        },
    )


@pytest.fixture
def name() -> str:
    # kombu remembers declared queues per process, not per folder: a new name for each test.
    return f"q{uuid.uuid4().hex[:12]}"


def _plant_broken(queue: Path, name: str) -> list[str]:
    planted = []
    for i, (kind, raw) in enumerate(BROKEN.items()):
        # Named like real messages and sorted before them, so the consumer meets them first.
        file = f"{i:020d}_{kind}.{name}.msg"
        (queue / file).write_bytes(raw)
        planted.append(file)
    return planted


def test_broken_messages_are_set_aside_and_the_next_one_is_delivered(tmp_path, name):
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue(name)
        planted = _plant_broken(tmp_path / "queue", name)
        queue.put({"n": 1})
        message = queue.get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()
        queue.close()
    assert sorted(p.name for p in (tmp_path / "broken").iterdir()) == sorted(planted)
    assert list((tmp_path / "queue").glob("*.msg")) == []
    assert list((tmp_path / "claimed").iterdir()) == []


def test_a_message_is_never_visible_half_written(tmp_path, monkeypatch, name):
    # The writer is stopped between its write and its rename: the queue folder shows nothing.
    with _connection(tmp_path) as conn:
        seen = []

        def rename(src, dst):
            seen.append(sorted(os.listdir(tmp_path / "queue")))
            os.replace(src, dst)

        monkeypatch.setattr("veyltak_site.broker.os.rename", rename)
        conn.SimpleQueue(name).put({"n": 1})
    assert seen and all(not name.endswith(".msg") for name in seen[0])
    assert len(list((tmp_path / "queue").glob("*.msg"))) == 1


def _produce(folder: str, name: str, count: int, index: int) -> None:
    with _connection(Path(folder)) as conn:
        queue = conn.SimpleQueue(name)
        for n in range(count):
            queue.put({"producer": index, "n": n, "pad": "x" * 200_000})


def _consume(folder: str, name: str, out: multiprocessing.Queue, total, expected: int) -> None:
    got = []
    deadline = time.monotonic() + 120
    with _connection(Path(folder)) as conn:
        queue = conn.SimpleQueue(name)
        while total.value < expected and time.monotonic() < deadline:
            try:
                message = queue.get(timeout=0.2)
            except queue.Empty:
                continue
            message.ack()
            got.append((message.payload["producer"], message.payload["n"]))
            with total.get_lock():
                total.value += 1
        time.sleep(0.5)  # a duplicate would show up now
        with contextlib.suppress(queue.Empty):
            while True:
                message = queue.get(timeout=0.2)
                got.append((message.payload["producer"], message.payload["n"]))
    out.put(got)


@pytest.mark.slow
def test_concurrent_producers_and_consumers_lose_and_duplicate_nothing(tmp_path, name):
    # kombu's own file transport fails this: a consumer reads files before their writer has
    # written them (JSONDecodeError) and two consumers can read the same file.
    producers, per_producer = 4, 150
    ctx = multiprocessing.get_context("spawn")
    out, total = ctx.Queue(), ctx.Value("i", 0)
    expected = producers * per_producer
    _connection(tmp_path).release()
    consumers = [
        ctx.Process(target=_consume, args=(str(tmp_path), name, out, total, expected))
        for _ in range(2)
    ]
    makers = [
        ctx.Process(target=_produce, args=(str(tmp_path), name, per_producer, i))
        for i in range(producers)
    ]
    for p in consumers + makers:
        p.start()
    for p in makers:
        p.join(timeout=120)
        assert p.exitcode == 0
    got = out.get(timeout=120) + out.get(timeout=120)
    for p in consumers:
        p.join(timeout=30)
        assert p.exitcode == 0
    assert len(got) == expected
    assert set(got) == {(i, n) for i in range(producers) for n in range(per_producer)}
    assert not (tmp_path / "broken").exists() or list((tmp_path / "broken").iterdir()) == []


def test_size_and_purge_ignore_temporary_files(tmp_path, name):
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue(name)
        queue.put({"n": 1})
        (tmp_path / "queue" / f".0_x.{name}.msg.123.tmp").write_bytes(b"")
        assert queue.qsize() == 1
        assert queue.clear() == 1
        assert queue.qsize() == 0


# --- A real worker -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def var_prepared(tmp_path_factory):
    path = tmp_path_factory.mktemp("broker")
    prepare(path)
    return path


@pytest.fixture
def var(var_prepared):
    yield var_prepared
    # A failed test must not leave a worker behind: kill whatever of this folder still runs.
    deadline = time.monotonic() + 15
    while (left := processes_of(var_prepared)) and time.monotonic() < deadline:
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


def _worker(var: Path, log: Path, queue: str = "") -> subprocess.Popen:
    """A worker of the folder: every queue, or only ``queue`` (as the Procfile's `worker` and
    `debrief` take theirs, each with a name of its own)."""
    only = ["-Q", queue, "-n", f"{queue}@%h"] if queue else []
    with open(log, "wb") as fh:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "veyltak_site",
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                "1",
                "--without-gossip",
                "--without-mingle",
                *only,
            ],
            cwd=ROOT,
            env=embedded_env(var),
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _wait_for(log: Path, pattern: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not re.search(pattern, log.read_text(errors="replace")):
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def _autogroup_nice(pid: int) -> int:
    """The nice value of the session (autogroup) of process ``pid``: "/autogroup-85 nice 10"."""
    return int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])


def _send_task(var: Path, heist_id: str, task: str = "plan_rival_night") -> None:
    """A rival turn (or ``task="debrief_heist"``, a debrief) for ``heist_id``, sent by another
    process as the web sends it."""
    args = f"{heist_id!r}, 1" if task == "plan_rival_night" else f"{heist_id!r}"
    code = f"import django; django.setup()\nfrom game.tasks import {task}\n{task}.delay({args})\n"
    subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=embedded_env(var), check=True, timeout=60
    )


@pytest.mark.slow
def test_worker_sets_broken_messages_aside_and_keeps_consuming(var, tmp_path):
    log = tmp_path / "worker.log"
    worker = _worker(var, log)
    try:
        _wait_for(log, r"ready\.", worker)
        planted = _plant_broken(var / "broker" / "queue", "celery")
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        _send_task(var, first)
        _wait_for(log, r"plan_rival_night\[[^\]]+\] succeeded", worker)
        # A broken file arriving while the worker runs, then another real task.
        (var / "broker" / "queue" / f"{time.time_ns():020d}_late.celery.msg").write_bytes(b"{")
        _send_task(var, second)
        deadline = time.monotonic() + 30
        while len(re.findall(r"plan_rival_night\[[^\]]+\] succeeded", log.read_text())) < 2:
            assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        assert worker.poll() is None
        broken = sorted(p.name for p in (var / "broker" / "broken").iterdir())
        assert set(planted) < set(broken) and any("late" in name for name in broken)
        assert log.read_text().count("set aside a broken message") == len(planted) + 1
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0, log.read_text()


@pytest.mark.slow
def test_second_worker_on_the_same_broker_folder_refuses_to_start(var, tmp_path):
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = _worker(var, first_log)
    try:
        _wait_for(first_log, r"ready\.", first)
        second = _worker(var, second_log)
        assert second.wait(timeout=60) == 3, second_log.read_text()
        text = second_log.read_text()
        assert "REFUSING TO START" in text and f"pid {first.pid}" in text, text
        assert first.poll() is None  # the first one runs on
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0, first_log.read_text()
    # The lock goes with its worker: a new one starts once the first has stopped.
    third_log = tmp_path / "third.log"
    third = _worker(var, third_log)
    try:
        _wait_for(third_log, r"ready\.", third)
    finally:
        third.send_signal(signal.SIGTERM)
        assert third.wait(timeout=30) == 0
    assert processes_of(var) == []


@pytest.mark.slow
def test_the_rival_and_the_debrief_worker_share_a_folder_one_worker_per_queue(var, tmp_path):
    queue = var / "broker" / "queue"
    # A debrief message claimed by a worker that died before reading it (in claimed/).
    _send_task(var, str(uuid.uuid4()), task="debrief_heist")
    (message,) = [p for p in queue.iterdir() if p.name.endswith(".debrief.msg")]
    claimed = var / "broker" / "claimed" / message.name
    claimed.parent.mkdir(exist_ok=True)
    message.rename(claimed)
    logs = {name: tmp_path / f"{name}.log" for name in ("rival", "debrief", "second", "all")}
    rival = _worker(var, logs["rival"], "celery")
    debrief = None
    try:
        _wait_for(logs["rival"], r"ready\.", rival)
        # The rival's worker leaves another queue's claimed message alone.
        assert claimed.exists(), logs["rival"].read_text()
        debrief = _worker(var, logs["debrief"], "debrief")
        _wait_for(logs["debrief"], r"ready\.", debrief)
        # The debrief worker's session yields the cores to the other sessions (the web's, the
        # rival's worker's); the rival's worker keeps its priority. (A kernel built without
        # autogroup has no such file and no sessions to rank: nothing to check there.)
        if Path("/proc/self/autogroup").exists():
            assert _autogroup_nice(debrief.pid) == settings.DEBRIEF_NICE > 0
            assert _autogroup_nice(rival.pid) == 0
        # Its own queue's claimed message goes back to the queue, and it takes it.
        _wait_for(logs["debrief"], r"debrief_heist\[[^\]]+\] succeeded in [^:]+: False", debrief)
        assert not claimed.exists()
        # A second worker on either queue is refused, naming the queue and the holder.
        second = _worker(var, logs["second"], "debrief")
        assert second.wait(timeout=60) == 3, logs["second"].read_text()
        text = logs["second"].read_text()
        assert "REFUSING TO START" in text and "'debrief'" in text and f"pid {debrief.pid}" in text
        every = _worker(var, logs["all"])  # no -Q: it would take both
        assert every.wait(timeout=60) == 3, logs["all"].read_text()
        # Each takes its own queue's tasks and never the other's.
        _send_task(var, str(uuid.uuid4()))
        _send_task(var, str(uuid.uuid4()), task="debrief_heist")
        _wait_for(logs["rival"], r"plan_rival_night\[[^\]]+\] succeeded", rival)
        deadline = time.monotonic() + 30
        while logs["debrief"].read_text().count("debrief_heist[") < 4:  # 2 received, 2 done
            assert debrief.poll() is None and time.monotonic() < deadline, logs["debrief"]
            time.sleep(0.1)
        assert "Task game.debrief_heist[" not in logs["rival"].read_text()
        assert "Task game.plan_rival_night[" not in logs["debrief"].read_text()
    finally:
        for worker in (rival, debrief):
            if worker is not None:
                worker.send_signal(signal.SIGTERM)
                assert worker.wait(timeout=30) == 0
    assert processes_of(var) == []


@pytest.mark.slow
def test_worker_killed_outright_releases_the_folder(var, tmp_path):
    log = tmp_path / "worker.log"
    worker = _worker(var, log)
    _wait_for(log, r"ready\.", worker)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    again_log = tmp_path / "again.log"
    again = _worker(var, again_log)
    try:
        _wait_for(again_log, r"ready\.", again)
    finally:
        again.send_signal(signal.SIGTERM)
        assert again.wait(timeout=30) == 0


def _declare(folder: str, name: str, start, index: int) -> None:
    start.wait(timeout=60)
    with _connection(Path(folder)) as conn:
        # Every process binds its own queue to the one exchange: each read-modify-writes the
        # exchange's table in control/ at the same moment.
        queue = Queue(f"{name}-{index}", Exchange(name), routing_key=f"{name}-{index}")
        conn.SimpleQueue(queue).close()


@pytest.mark.slow
def test_processes_declaring_queues_at_once_all_start_and_every_binding_is_kept(tmp_path, name):
    # kombu's own transport creates the exchange table before locking it: a process declaring
    # at that moment read an empty table and died (JSONDecodeError), and bindings got lost.
    ctx = multiprocessing.get_context("spawn")
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        _connection(folder).release()
        start = ctx.Barrier(8)
        procs = [ctx.Process(target=_declare, args=(str(folder), name, start, i)) for i in range(8)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=120)
        assert [p.exitcode for p in procs] == [0] * 8
        with _connection(folder) as conn:
            table = conn.default_channel.get_table(name)
        assert sorted(q.queue for q in table) == sorted(f"{name}-{i}" for i in range(8))
