"""The load harness the API and worker benchmarks share: a fresh site on this machine
(database, broker, var/ folder), its processes (gunicorn, the rival's Celery worker, the debrief
worker) and the CPU each part of it uses, read from /proc. Loopback only; every process started
is ended by ``stop_process``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited during start-up")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def loopback_only(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK and not host.startswith("127."):
        raise SystemExit(f"refusing {url}: the benchmark only talks to this machine (loopback)")


def fresh_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"unexpected database name {name!r}")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def bench_site(database: str, var_prefix: str) -> tuple[str, str, Path, dict[str, str]]:
    """The benchmark's database URL, Redis URL (no db number), a new var/ folder and the
    environment for the site's processes. Loopback only."""
    db_url = os.environ.get("BENCH_DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    redis = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379").rstrip("/")
    loopback_only(db_url)
    loopback_only(redis)
    var = Path(tempfile.mkdtemp(prefix=var_prefix))
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "CELERY_BROKER_URL": f"{redis}/12",
        "REDIS_URL": f"{redis}/13",
        "VEYLTAK_VAR_DIR": str(var),
        "STATIC_PLAIN": "1",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        # The load client is many players behind one loopback address, each preparing --burst
        # heists at once: the start limits and the cap on heists in play (there for one client
        # against everyone) would refuse it. The rate-limit counters still run on every start.
        "HEIST_ACTIVE_MAX": "100000",
        "RATE_HEIST_START_SESSION": "1000000/m",
        "RATE_HEIST_START_ADDRESS": "1000000/m",
    }
    env.pop("DATABASE_TEST_NAME", None)
    return db_url, redis, var, env


def fresh_site(python: str, db_url: str, redis: str, env: dict[str, str]) -> None:
    """A new, migrated database with the catalogue loaded, the broker's queues emptied (no
    rival turn or debrief of an earlier run is left) and the cache emptied: a run started
    within ten minutes of another would otherwise count its signed-in players' starts on the
    earlier run's rate-limit counters (the new database gives its accounts the same ids)."""
    print(
        f"setting up: database {urlsplit(db_url).path.lstrip('/')}, broker {redis}/12, "
        f"cache {redis}/13",
        flush=True,
    )
    fresh_database(db_url)
    if env.get("REDIS_URL"):
        Redis.from_url(env["REDIS_URL"]).flushdb()
    for step in (
        ["manage.py", "migrate", "--noinput", "-v", "0"],
        ["manage.py", "load_catalogue"],
        ["-m", "celery", "-A", "veyltak_site", "purge", "-f"],
    ):
        subprocess.run([python, *step], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _reference_work() -> int:
    # The interpreter's everyday work, as a request's Python does it: a loop, a dict, strings.
    seen: dict[int, str] = {}
    total = 0
    for i in range(200_000):
        seen[i % 1000] = str(i)
        total += len(seen[i % 1000])
    return total


def machine_speed(rounds: int = 7) -> float:
    """How fast this machine runs Python right now: the median CPU milliseconds (this thread's
    clock) of a fixed workload; lower is faster. The same 2-core machine has measured about
    twice as slow on one day as on another (2026-12-07), and every CPU figure with it: a
    capacity or a CPU per request taken on different days compares only beside this figure."""
    times = []
    for _ in range(rounds):
        started = time.thread_time()
        _reference_work()
        times.append((time.thread_time() - started) * 1000)
    return sorted(times)[len(times) // 2]


def cpu_by_part(groups: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each part of the site on this machine.

    ``groups`` maps a name to a process group id (gunicorn's and Celery's trees); PostgreSQL and
    Redis are every process of that name (PostgreSQL's ended backends included); the load client
    is this process.
    """
    totals = dict.fromkeys([*groups, "postgres", "redis", "client"], 0.0)
    by_group = {pgid: name for name, pgid in groups.items()}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # ended meanwhile
        comm = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        pgid, used = int(fields[2]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        if pgid in by_group:
            totals[by_group[pgid]] += used
        elif comm.startswith("postgres"):
            # With the CPU of backends that have ended (the postmaster reaps them): a new
            # connection per task or request would otherwise hide its cost.
            totals["postgres"] += used + (int(fields[13]) + int(fields[14])) / CLOCK_TICKS
        elif comm.startswith("redis-server"):
            totals["redis"] += used
    me = os.times()
    totals["client"] = me.user + me.system
    return totals


def wait_worker_idle(groups: dict[str, int], timeout: float = 30.0) -> None:
    """Wait until the Celery worker has stopped using CPU (its queue is drained)."""
    deadline = time.monotonic() + timeout
    last = cpu_by_part(groups)["worker"]
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = cpu_by_part(groups)["worker"]
        if now - last < 0.005:
            return
        last = now


def start_process(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    with open(log, "wb") as fh:
        # Own process group, so the whole tree (gunicorn's and Celery's children) is ended.
        return subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )


def start_gunicorn(
    port: int,
    env: dict,
    log: Path,
    *,
    workers: int,
    threads: int,
    backlog: int = 512,
    extra: tuple[str, ...] = (),
) -> subprocess.Popen:
    """gunicorn as the benchmarks run it: gthread workers, warnings only, a 60 s timeout."""
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    cmd = [gunicorn, "veyltak_site.wsgi", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads)]
    cmd += ["--log-level", "warning", "--backlog", str(backlog), "--timeout", "60", *extra]
    return start_process(cmd, env, log)


# The site's queues (veyltak_site/settings.py, CELERY_TASK_QUEUES): the rival's turns and the
# beat's tasks on Celery's default queue, finished heists' debriefs on their own.
RIVAL_QUEUE = "celery"
DEBRIEF_QUEUE = "debrief"


def start_worker(
    python: str,
    env: dict,
    log: Path,
    pool: str,
    concurrency: int,
    nice: int = 0,
    *,
    queue: str = RIVAL_QUEUE,
    app: str = "veyltak_site",
) -> subprocess.Popen:
    """A Celery worker of the site taking one queue, as the Procfile runs its `worker`
    (``queue`` RIVAL_QUEUE) and `debrief` (DEBRIEF_QUEUE), but quiet (warnings only); with
    ``nice``, at that lower CPU priority (its pool processes too). ``app``: another Celery app
    for the queue (bench/discard_debriefs.py)."""
    return start_process(
        [
            *(["nice", "-n", str(nice)] if nice else []),
            python,
            "-m",
            "celery",
            "-A",
            app,
            "worker",
            "--loglevel",
            "WARNING",
            "--pool",
            pool,
            "--concurrency",
            str(concurrency),
            "-Q",
            queue,
            "-n",
            f"{queue}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        env,
        log,
    )


def stop_process(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
