"""Soak `make run`: many complete heists over the JSON API against the exact local stack.

Starts `make run` itself (the same Makefile, Procfile and process runner: web, the rival's
worker, the debrief worker, beat)
with a fresh VEYLTAK_VAR_DIR under var/, waits for /healthz, then ``--players`` concurrent
players (bench/players.py: age check, start, poll the view as the board does, seal; each
finishes its heist before starting the next) play until ``--heists`` heists have been played
(or for ``--minutes``). Then it stops the stack as Ctrl-C does (SIGINT to `make run`'s process
group) and checks that every process stopped by itself and none is left.

It prints the failed heists, the runner's process restarts, seal p50/p95, heists per minute,
how the stack stopped, what the database holds (every night of every finished heist with one
sealed rival plan, and how many have their debrief stored) and, with the embedded broker, the
messages set aside and left in each queue; last line
``soak_failed_heists: N``.

    .venv-dev/bin/python bench/soak.py                          # embedded: SQLite + on-disk broker
    .venv-dev/bin/python bench/soak.py --minutes 60 --think 1   # an hour of steady play
    .venv-dev/bin/python bench/soak.py --kill-worker-every 45   # SIGKILL the worker now and then
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/veyltak_soak \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/2 REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv-dev/bin/python bench/soak.py                      # PostgreSQL + Redis

The heist-start limits are lifted for the bots (one loopback address); the cap on heists in
play is kept. A PostgreSQL database named in DATABASE_URL is dropped and created afresh.
Loopback only; bounded by ``--heists`` and ``--max-minutes``; ends every process it started.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import fresh_database, loopback_only  # bench/harness.py
from players import Player, Stats, ms, percentile  # bench/players.py

ROOT = Path(__file__).resolve().parent.parent

DB_CHECK = """
import json
from collections import Counter
from django.db.models import Count
from game.models import Heist, HeistDebrief, HeistNight
ids = json.loads(open({ids!r}).read())
finished = Heist.objects.filter(id__in=ids, status="finished")
nights = HeistNight.objects.filter(heist__in=finished)
per_heist = Counter(finished.annotate(n=Count("nights")).values_list("n", flat=True))
print(json.dumps({{
    "finished heists": finished.count(),
    "nights per heist": dict(per_heist),
    "nights without a sealed rival plan": nights.filter(rival_commitment__isnull=True).count(),
    "debriefs stored": HeistDebrief.objects.filter(heist__in=finished).count(),
}}))
"""


def free_port() -> int:
    for port in range(8100, 8200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit("no free port in 8100-8199")


def processes_with(var: Path) -> list[tuple[int, str]]:
    """Every process whose environment names this VEYLTAK_VAR_DIR (the stack's, and only it)."""
    needle = f"VEYLTAK_VAR_DIR={var}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append((int(entry.name), (entry / "cmdline").read_bytes()[:120].decode()))
        except OSError:
            continue
    return [(pid, cmd.replace("\0", " ")) for pid, cmd in found if pid != os.getpid()]


def wait_healthy(base: str, make: subprocess.Popen, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        if make.poll() is not None:
            raise SystemExit(f"make run exited ({make.returncode}) during start-up")
        try:
            body = requests.get(base + "/healthz", timeout=5).json()
            if body.get("status") == "ok":
                return body
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the stack was not healthy after {timeout} s: {body}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--heists", type=int, default=2000, help="heists to play in all")
    parser.add_argument("--minutes", type=float, default=0, help="play this long instead")
    parser.add_argument("--max-minutes", type=float, default=180, help="hard bound")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds per night")
    parser.add_argument("--poll", type=float, default=0.1)
    parser.add_argument("--difficulty", default="mixed")
    parser.add_argument("--port", type=int, default=0, help="default: free one in 8100-8199")
    parser.add_argument("--report-every", type=float, default=60.0, help="progress, seconds")
    parser.add_argument(
        "--kill-worker-every",
        type=float,
        default=0,
        help="SIGKILL the Celery worker every this many seconds (0: never)",
    )
    args = parser.parse_args()
    if not (1 <= args.players <= 64 and 1 <= args.heists <= 100_000):
        raise SystemExit("players 1..64 and heists 1..100000 keep the run bounded")

    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    var = ROOT / "var" / f"soak-{time.strftime('%Y%m%d-%H%M%S')}-{port}"
    var.mkdir(parents=True)
    env = {
        # The players are bots behind one loopback address: the heist-start limits (there for
        # one client against everyone) would hold them to a few heists a minute, so they are
        # lifted unless set; the limiter still runs on every start, and the cap on heists in
        # play stays (each player finishes its heist before the next).
        "RATE_HEIST_START_SESSION": "1000000/m",
        "RATE_HEIST_START_ADDRESS": "1000000/m",
        **os.environ,
        "VEYLTAK_VAR_DIR": str(var),
        "VEYLTAK_PORT": str(port),
    }
    for name in ("DATABASE_TEST_NAME", "MAKEFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    db_url = env.get("DATABASE_URL", "")
    broker = env.get("CELERY_BROKER_URL", "filesystem://")
    for url in (db_url, broker, env.get("REDIS_URL", "")):
        if "://" in url and urlsplit(url).hostname:
            loopback_only(url)
    if db_url.startswith("postgres"):
        fresh_database(db_url)
    if broker.startswith("redis"):
        import redis

        redis.Redis.from_url(broker).flushdb()
    print(
        f"stack: make run on {base}, var {var.relative_to(ROOT)}, "
        f"database {'PostgreSQL' if db_url.startswith('postgres') else 'SQLite'}, "
        f"broker {'embedded (on disk)' if broker.startswith('filesystem') else broker}",
        flush=True,
    )
    log_path = var / "make-run.log"
    with open(log_path, "wb") as log:
        make = subprocess.Popen(
            ["make", "--no-print-directory", "run"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a terminal would give it
        )
    stats = Stats()
    stop_seconds = None
    kills: list[float] = []
    try:
        health = wait_healthy(base, make, 300)
        print(f"healthy: {json.dumps(health)}", flush=True)
        players = [
            Player(base, i, stats, difficulty=args.difficulty, think=args.think, poll=args.poll)
            for i in range(args.players)
        ]
        for p in players:
            p.join()
        t0 = time.monotonic()
        hard_stop = t0 + args.max_minutes * 60
        until = t0 + args.minutes * 60 if args.minutes else hard_stop
        interrupted = []

        def finish_early(signum, frame) -> None:
            # First SIGINT/SIGTERM: no new heists, finish the ones in play, report. Second: now.
            nonlocal until
            if interrupted:
                raise KeyboardInterrupt
            interrupted.append(signum)
            until = time.monotonic()
            print("  interrupted: finishing the heists in play", flush=True)

        signal.signal(signal.SIGINT, finish_early)
        signal.signal(signal.SIGTERM, finish_early)
        claimed = [0]
        claim_lock = threading.Lock()

        def more() -> bool:
            if time.monotonic() > until:
                return False
            if args.minutes:
                return True
            with claim_lock:
                if claimed[0] >= args.heists:
                    return False
                claimed[0] += 1
                return True

        def play(player: Player) -> None:
            while more():
                player.play_heist(hard_stop)

        def kill_worker() -> None:
            # The worker's main process, as the runner last started it; the runner restarts it.
            while True:
                time.sleep(args.kill_worker_every)
                if time.monotonic() > until or not any(t.is_alive() for t in threads):
                    return
                started = re.findall(r"worker\s*\| started \(pid (\d+)\)", log_path.read_text())
                if started:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(started[-1]), signal.SIGKILL)
                        kills.append(time.monotonic())

        threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in players]
        if args.kill_worker_every:
            threading.Thread(target=kill_worker, daemon=True).start()
        for t in threads:
            t.start()
        next_report = time.monotonic() + args.report_every
        while any(t.is_alive() for t in threads):
            time.sleep(0.5)
            if time.monotonic() >= next_report:
                next_report += args.report_every
                done = time.monotonic() - t0
                print(
                    f"  {done / 60:5.1f} min: {stats.heists} heists "
                    f"({stats.heists / done * 60:.0f}/min), {stats.failed_heists} failed, "
                    f"restarts so far {restarts(log_path)}",
                    flush=True,
                )
        elapsed = time.monotonic() - t0
        try:
            health = requests.get(base + "/healthz", timeout=5).json()
        except (requests.RequestException, ValueError) as exc:
            health = {"error": str(exc)}
    finally:
        # Ctrl-C in the terminal: SIGINT to make's process group (make and the runner).
        t = time.monotonic()
        try:
            os.killpg(make.pid, signal.SIGINT)
            make.wait(timeout=60)
            stop_seconds = time.monotonic() - t
        except subprocess.TimeoutExpired:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        time.sleep(1)
        left = processes_with(var)
        for pid, _ in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    text = log_path.read_text(errors="replace")
    killed = [line for line in text.splitlines() if "SIGKILL to its group" in line]
    stopped = re.findall(r"(\w+)\s*\| stopped by itself \(([^)]*)\)", text)
    (var / "finished_ids.json").write_text(json.dumps(stats.finished_ids))
    check = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            DB_CHECK.format(ids=str(var / "finished_ids.json")),
        ],
        cwd=ROOT,
        env={**env, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        check=False,
    )
    db = check.stdout.strip().splitlines()[-1] if check.returncode == 0 else check.stderr[-300:]
    broken = var / "broker" / "broken"
    queue = var / "broker" / "queue"

    load = os.getloadavg()
    print()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} at the end (other work shares it)"
    )
    print(
        f"players: {args.players}, difficulty {args.difficulty}, think {args.think:g} s a "
        f"night, for {elapsed / 60:.1f} min"
    )
    print(f"heists finished: {stats.heists} -> {stats.heists / elapsed * 60:.1f} heists/min")
    print(f"failed heists: {stats.failed_heists}")
    for error in stats.errors[:10]:
        print(f"  {error}")
    print(f"process restarts (runner): {restarts(log_path)}")
    if args.kill_worker_every:
        print(
            f"worker killed with SIGKILL: {len(kills)} times (every {args.kill_worker_every:g} s)"
        )
    s = stats.seal
    print(
        f"seal route: n={len(s)}  p50 {ms(percentile(s, 50))} ms  p95 {ms(percentile(s, 95))} ms"
        f"  p99 {ms(percentile(s, 99))} ms"
    )
    w = stats.rival_wait
    print(
        f"rival planning seen by the player: p50 {ms(percentile(w, 50))} ms  "
        f"p95 {ms(percentile(w, 95))} ms"
    )
    print(f"answers 409 rival_not_sealed: {stats.not_sealed}; 429 throttled: {stats.throttled}")
    print(f"/healthz before stopping: {json.dumps(health)}")
    print(f"database: {db}")
    if broken.parent.is_dir():
        # A message file is "<time>_<id>.<queue>.msg" (veyltak_site/broker.py).
        left_in = Counter(
            name.partition(".")[2].removesuffix(".msg")
            for name in os.listdir(queue)
            if name.endswith(".msg")
        )
        print(
            f"broker: {len(list(broken.glob('*'))) if broken.is_dir() else 0} messages set "
            f"aside; left in the queues: {dict(left_in) or 'none'}"
        )
    print(
        f"stop (SIGINT to make run): {stop_seconds:.1f} s; stopped by itself: "
        + ", ".join(f"{name} ({how})" for name, how in stopped)
        if stop_seconds is not None
        else "stop: make run did not stop within 60 s"
    )
    print(f"killed by the runner: {len(killed)}; processes left after the stop: {len(left)}")
    for pid, cmd in left:
        print(f"  left: {pid} {cmd}")
    print(f"log: {log_path.relative_to(ROOT)}")
    print(f"soak_failed_heists: {stats.failed_heists}")
    return 1 if stats.failed_heists or killed or left else 0


def restarts(log_path: Path) -> int:
    return len(re.findall(r"\| restart #\d+", log_path.read_text(errors="replace")))


if __name__ == "__main__":
    sys.exit(main())
