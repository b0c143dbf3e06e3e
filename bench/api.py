"""Benchmark the heist API over HTTP, as players use it.

Serves the site with gunicorn on 127.0.0.1 (PostgreSQL, a real Celery worker on a Redis broker),
then, in one run:

1. the ceiling: N threads request a trivial DRF endpoint (GET /api/v1/crew/) for a few seconds;
2. the seal route alone: every player seals prepared nights back to back (``--burst`` each), as
   a throughput to set against the ceiling;
3. rival tasks that find nothing to do (``--idle-tasks``): what one Celery round trip of the
   rival's turn costs the worker before the rival thinks;
4. N concurrent players (threads, one requests.Session each, each passing the guest age check
   through the API) play complete heists for a fixed time: start, then each night think for a
   moment (``--think``, 0 for bots), wait until the rival has sealed (phase "planning", polling
   the view as the browser board does), and seal a random legal plan.

Around phases 1 to 3 it reads from /proc the CPU each part used (web, worker, PostgreSQL, Redis,
this load client) and prints it per request, and from those the floor under a seal's CPU: its
client part, the web part every request pays (the trivial request's) and one idle rival task.
It prints heists per minute, the seal route's p50/p95/p99, the trivial endpoint's requests per
second, and last the line ``seal_p95_ms: N``. Only loopback traffic; bounded in time and count;
it stops by itself and ends every process it started.

    .venv/bin/python bench/api.py                      # 20 players, 60 s
    .venv/bin/python bench/api.py --players 5 --duration 15 --difficulty rookie
    .venv/bin/python bench/api.py --think 0            # bots: the saturated worst case

Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL, BENCH_REDIS_URL to point
elsewhere on this machine). The benchmark database (default ``veyltak_bench``) is dropped and
created afresh on every run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
DIFFICULTIES = ["rookie", "hustler", "safecracker", "kingpin"]
RIVALS = ["furnace", "quiet-hands", "the-reader", "split-circuit"]
ADULT_BIRTH_DATE = "1990-04-02"
REQUEST_TIMEOUT = 15
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


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
    """A new, migrated database with the catalogue loaded."""
    print(
        f"setting up: database {urlsplit(db_url).path.lstrip('/')}, broker {redis}/12", flush=True
    )
    fresh_database(db_url)
    for step in (["migrate", "--noinput", "-v", "0"], ["load_catalogue"]):
        subprocess.run(
            [python, "manage.py", *step], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    seal: list[float] = field(default_factory=list)
    start: list[float] = field(default_factory=list)
    view: list[float] = field(default_factory=list)
    rival_wait: list[float] = field(default_factory=list)
    trivial: list[float] = field(default_factory=list)
    burst: list[float] = field(default_factory=list)
    heists: int = 0
    requests: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, name: str, value: float) -> None:
        with self.lock:
            getattr(self, name).append(value)
            self.requests += 1

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


class Player:
    def __init__(self, base: str, index: int, stats: Stats, args: argparse.Namespace) -> None:
        self.base = base
        self.stats = stats
        self.args = args
        self.rng = random.Random(index)
        self.index = index
        self.session = requests.Session()
        self.costs: dict[str, int] = {}
        self.ready: list[dict | None] = []

    def _csrf(self) -> dict[str, str]:
        return {"X-CSRFToken": self.session.cookies.get("csrftoken", "")}

    def post(self, path: str, body: dict) -> requests.Response:
        return self.session.post(
            self.base + path, json=body, headers=self._csrf(), timeout=REQUEST_TIMEOUT
        )

    def get(self, path: str) -> requests.Response:
        return self.session.get(self.base + path, timeout=REQUEST_TIMEOUT)

    def join(self) -> None:
        """A new guest: the CSRF cookie (GET /me/), the age check, the catalogue."""
        self.get("/api/v1/me/").raise_for_status()
        response = self.post("/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE})
        if response.status_code != 200:
            raise RuntimeError(f"age check refused: {response.status_code} {response.text}")
        self.costs = {c["slug"]: c["cost"] for c in self.get("/api/v1/crew/").json()}

    def plan(self, view: dict) -> dict:
        you = view["you"]
        vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
        hand = list(you["hand"])
        self.rng.shuffle(hand)
        crew, spent = [], 0
        for card in hand[: self.rng.randint(1, 2)]:
            cost = self.costs[card["crew"]]
            if spent + cost <= you["energy"] and vaults:
                crew.append({"card": card["card"], "vault": self.rng.choice(vaults)})
                spent += cost
        boost = bool(crew) and you["heat"] < 6 and self.rng.random() < 0.35
        return {"night": view["night"], "crew": crew, "boost": boost}

    def wait_planning(self, view: dict, deadline: float) -> dict | None:
        t0 = time.perf_counter()
        pause = 0.0  # look once right away (the view in hand may be from before thinking)
        while view["phase"] == "rival_planning":
            if time.monotonic() > deadline + 30:
                return None
            # Then back off like the browser board does (static/js/board.js: 800 ms x 1.5),
            # from a shorter first wait.
            time.sleep(pause)
            pause = min(max(pause * 1.5, self.args.poll), 1.0)
            t = time.perf_counter()
            response = self.get(f"/api/v1/heists/{view['id']}/")
            self.stats.add("view", time.perf_counter() - t)
            if response.status_code != 200:
                self.stats.error(f"GET heist {response.status_code}: {response.text[:200]}")
                return None
            view = response.json()
        self.stats.add("rival_wait", time.perf_counter() - t0)
        with self.stats.lock:
            self.stats.requests -= 1  # rival_wait is a measure, not a request
        return view

    def play(self, deadline: float) -> None:
        difficulty = self.args.difficulty
        heists = 0
        while time.monotonic() < deadline and heists < self.args.max_heists:
            body = {
                "rival": RIVALS[(self.index + heists) % len(RIVALS)],
                "difficulty": (
                    DIFFICULTIES[(self.index + heists) % 4] if difficulty == "mixed" else difficulty
                ),
            }
            t = time.perf_counter()
            response = self.post("/api/v1/heists/", body)
            self.stats.add("start", time.perf_counter() - t)
            if response.status_code != 201:
                self.stats.error(f"start {response.status_code}: {response.text[:200]}")
                return
            view = response.json()
            while view["status"] == "active":
                if self.args.think:
                    # The player studies the board while the rival plans.
                    time.sleep(self.rng.uniform(0.5, 1.5) * self.args.think)
                view = self.wait_planning(view, deadline)
                if view is None:
                    return
                heist_id = view["id"]
                t = time.perf_counter()
                response = self.post(f"/api/v1/heists/{heist_id}/seal/", self.plan(view))
                self.stats.add("seal", time.perf_counter() - t)
                if response.status_code != 200:
                    self.stats.error(f"seal {response.status_code}: {response.text[:200]}")
                    return
                view = response.json()["heist"]
            heists += 1
            with self.stats.lock:
                self.stats.heists += 1

    def prepare_burst(self, count: int) -> None:
        """Start ``count`` heists and wait until the rival has sealed night 1 of each."""
        self.ready = []
        for i in range(count):
            body = {"rival": RIVALS[(self.index + i) % len(RIVALS)], "difficulty": "rookie"}
            response = self.post("/api/v1/heists/", body)
            if response.status_code != 201:
                self.stats.error(f"start {response.status_code}: {response.text[:200]}")
                return
            self.ready.append(response.json())
        self.ready = [self.wait_planning(v, time.monotonic() + 30) for v in self.ready]

    def seal_burst(self, deadline: float) -> None:
        """Seal night 1 of every prepared heist, back to back: the seal route's throughput."""
        for view in self.ready:
            if view is None or time.monotonic() > deadline:
                continue
            t = time.perf_counter()
            response = self.post(f"/api/v1/heists/{view['id']}/seal/", self.plan(view))
            self.stats.add("burst", time.perf_counter() - t)
            if response.status_code != 200:
                self.stats.error(f"seal {response.status_code}: {response.text[:200]}")

    def hammer_trivial(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            t = time.perf_counter()
            response = self.get("/api/v1/crew/")
            self.stats.add("trivial", time.perf_counter() - t)
            if response.status_code != 200:
                self.stats.error(f"crew {response.status_code}")
                return


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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


def cpu_per_request(
    before: dict[str, float], after: dict[str, float], count: int
) -> dict[str, float]:
    """Milliseconds of CPU per request (or task) for each part, between two readings."""
    return {name: (after[name] - before[name]) * 1000 / max(count, 1) for name in after}


def cpu_text(parts: dict[str, float]) -> str:
    return f"{sum(parts.values()):.2f} ms: " + ", ".join(
        f"{name} {value:.2f}" for name, value in parts.items()
    )


def idle_rival_tasks(broker: str, groups: dict[str, int], count: int) -> dict[str, float]:
    """CPU per rival task that finds nothing to do (a heist that does not exist): what one
    Celery round trip of the rival's turn costs before the rival thinks at all."""
    from celery import Celery

    sender = Celery("bench", broker=broker)
    with sender.connection_for_write() as connection:
        before = cpu_by_part(groups)
        for _ in range(count):
            sender.send_task(
                "game.plan_rival_night", args=[str(uuid.uuid4()), 1], connection=connection
            )
        wait_worker_idle(groups)
        parts = cpu_per_request(before, cpu_by_part(groups), count)
    parts["client"] = 0.0  # sending is the web process's part of a seal, counted there
    return parts


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


def run_threads(players: list[Player], method: str, deadline: float) -> None:
    threads = [threading.Thread(target=getattr(p, method), args=(deadline,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.monotonic()) + 120)


def start_process(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    with open(log, "wb") as fh:
        # Own process group, so the whole tree (gunicorn's and Celery's children) is ended.
        return subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )


def start_worker(
    python: str, env: dict, log: Path, pool: str, concurrency: int
) -> subprocess.Popen:
    """A Celery worker of the site, as the Procfile runs it but quiet (warnings only)."""
    return start_process(
        [
            python,
            "-m",
            "celery",
            "-A",
            "veyltak_site",
            "worker",
            "--loglevel",
            "WARNING",
            "--pool",
            pool,
            "--concurrency",
            str(concurrency),
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--max-heists", type=int, default=10_000, help="per player")
    parser.add_argument("--ceiling-seconds", type=float, default=10.0)
    # One web process per core with 4 threads (requests wait on PostgreSQL and Redis a good
    # part of their time), and one Celery process per two cores (a rival seal is a few ms):
    # on 2 cores this beat 2x cores x 2 threads + celery x cores on every figure (N=20:
    # ceiling 552 -> 662 req/s, seal burst 91 -> 114 req/s, seal p95 33 -> 28 ms).
    parser.add_argument("--web-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument(
        "--celery-concurrency", type=int, default=max(1, (os.cpu_count() or 1) // 2)
    )
    parser.add_argument("--difficulty", default="mixed", choices=["mixed", *DIFFICULTIES])
    parser.add_argument(
        "--poll", type=float, default=0.1, help="first wait before polling the view (x1.5 each)"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean seconds a player thinks each night (0: bots, saturating the server)",
    )
    parser.add_argument(
        "--burst", type=int, default=25, help="heists per player for the seal throughput phase"
    )
    parser.add_argument(
        "--idle-tasks", type=int, default=1000, help="rival tasks with nothing to do, for the floor"
    )
    args = parser.parse_args()
    if not (1 <= args.players <= 200 and 1 <= args.duration <= 1800):
        raise SystemExit("players 1..200 and duration 1..1800 s keep the run bounded")

    db_url, redis, var, env = bench_site("veyltak_bench", "veyltak-bench-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    python = str(VENV_BIN / "python")
    fresh_site(python, db_url, redis, env)
    subprocess.run(
        [python, "-m", "celery", "-A", "veyltak_site", "purge", "-f"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )

    web = worker = None
    try:
        web = start_process(
            [
                str(VENV_BIN / "gunicorn"),
                "veyltak_site.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(args.web_workers),
                "--worker-class",
                "gthread",
                "--threads",
                str(args.web_threads),
                "--log-level",
                "warning",
                "--backlog",
                "512",
                "--timeout",
                "60",
            ],
            env,
            var / "gunicorn.log",
        )
        worker = start_worker(python, env, var / "worker.log", "prefork", args.celery_concurrency)
        wait_port(port, 60, web)
        stats = Stats()
        players = [Player(base, i, stats, args) for i in range(args.players)]
        for p in players:
            p.join()
        # Warm up every web worker and the Celery worker (imports, connections, caches).
        run_threads(players, "hammer_trivial", time.monotonic() + 2)
        warm = Stats()
        for p in players:
            p.stats = warm
        run_threads(players, "play", time.monotonic() + 3)

        # 1. The ceiling: a trivial DRF endpoint, same middleware, same sessions.
        for p in players:
            p.stats = stats
        groups = {"web": web.pid, "worker": worker.pid}
        cpu0 = cpu_by_part(groups)
        t0 = time.monotonic()
        run_threads(players, "hammer_trivial", t0 + args.ceiling_seconds)
        trivial_rps = len(stats.trivial) / (time.monotonic() - t0)
        trivial_cpu = cpu_per_request(cpu0, cpu_by_part(groups), len(stats.trivial))

        # 2. The seal route alone: every player seals prepared nights back to back.
        prep = [threading.Thread(target=p.prepare_burst, args=(args.burst,)) for p in players]
        for t in prep:
            t.start()
        for t in prep:
            t.join(timeout=300)
        cpu0 = cpu_by_part(groups)
        t0 = time.monotonic()
        run_threads(players, "seal_burst", t0 + 120)
        burst_rps = len(stats.burst) / (time.monotonic() - t0)
        # The rival's next night, which each seal sets off, is part of the seal's cost.
        wait_worker_idle(groups)
        burst_cpu = cpu_per_request(cpu0, cpu_by_part(groups), len(stats.burst))

        # 3. What the rival's turn costs on the worker before it thinks: a Celery round trip.
        idle_cpu = idle_rival_tasks(f"{redis}/12", groups, args.idle_tasks)

        # 4. Complete heists.
        stats.requests = 0
        stats.view.clear()
        stats.rival_wait.clear()
        stats.start.clear()
        t0 = time.monotonic()
        run_threads(players, "play", t0 + args.duration)
        elapsed = time.monotonic() - t0
    finally:
        stop_process(web)
        stop_process(worker)

    heists_per_min = stats.heists / elapsed * 60
    cores = os.cpu_count() or 1
    print()
    print(
        f"machine: {cores} cores; gunicorn {args.web_workers} workers x {args.web_threads} "
        f"threads (gthread); celery prefork x{args.celery_concurrency}; PostgreSQL; "
        f"Redis broker"
    )
    print(
        f"players: {args.players} for {elapsed:.0f} s, difficulty {args.difficulty}, "
        f"think {args.think:g} s a night (0.5-1.5x), "
        f"view polled at once, then after {args.poll * 1000:.0f} ms (x1.5, at most 1 s) while "
        "the rival plans"
    )
    print(f"heists finished: {stats.heists} -> {heists_per_min:.1f} heists/min")
    s = stats.seal
    mean_seal = statistics.fmean(s) if s else float("nan")
    print(
        f"seal route: n={len(s)}  p50 {ms(percentile(s, 50))} ms  p95 {ms(percentile(s, 95))} ms"
        f"  p99 {ms(percentile(s, 99))} ms  mean {ms(mean_seal)} ms"
    )
    for name, values in (("start route", stats.start), ("view route", stats.view)):
        print(
            f"{name}: n={len(values)}  p50 {ms(percentile(values, 50))} ms  "
            f"p95 {ms(percentile(values, 95))} ms"
        )
    w = stats.rival_wait
    print(
        f"rival planning seen by the player (worker): p50 {ms(percentile(w, 50))} ms  "
        f"p95 {ms(percentile(w, 95))} ms"
    )
    t = stats.trivial
    print(
        f"trivial GET /api/v1/crew/ (ceiling): {trivial_rps:.0f} req/s  "
        f"p50 {ms(percentile(t, 50))} ms  p95 {ms(percentile(t, 95))} ms"
    )
    b = stats.burst
    print(
        f"seal route alone ({len(b)} seals back to back): {burst_rps:.0f} req/s = "
        f"{burst_rps / trivial_rps:.0%} of the trivial ceiling; p50 {ms(percentile(b, 50))} ms  "
        f"p95 {ms(percentile(b, 95))} ms"
    )
    print(f"CPU per trivial request: {cpu_text(trivial_cpu)}")
    print(f"CPU per seal (with the rival's next night): {cpu_text(burst_cpu)}")
    print(f"CPU per rival task with nothing to do: {cpu_text(idle_cpu)}")
    # Both phases are CPU-bound on the same cores, so their rates go as their CPU per request.
    # No seal can cost less than its own client part, the web part every request pays (the
    # trivial request's) and one rival task that does nothing.
    floor = burst_cpu["client"] + trivial_cpu["web"] + sum(idle_cpu.values())
    print(
        f"floor of a seal's CPU (its client part + a trivial request's web part + an idle rival "
        f"task): {floor:.2f} ms, so at most {sum(trivial_cpu.values()) / floor:.0%} of the "
        f"ceiling; measured {sum(trivial_cpu.values()) / sum(burst_cpu.values()):.0%} by CPU"
    )
    print(
        f"heist phase: {stats.requests / elapsed:.0f} req/s over all heist routes, "
        f"{len(s) / elapsed:.1f} seals/s"
    )
    if stats.errors:
        print(f"errors: {len(stats.errors)}; first: {stats.errors[0]}")
    print(f"seal_p95_ms: {percentile(s, 95) * 1000:.0f}")
    return 1 if stats.errors else 0


if __name__ == "__main__":
    sys.exit(main())
