"""Benchmark the heist API over HTTP, as players use it.

Serves the site with gunicorn on 127.0.0.1 (PostgreSQL, a real Celery worker on a Redis broker
taking the rival's queue; no debrief worker: finished heists' debriefs wait in their queue, so
the worker's CPU is the rival's alone, and bench/debrief.py and bench/capacity.py measure the
debriefs), then, in one run:

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

    .venv-dev/bin/python bench/api.py                      # 20 players, 60 s
    .venv-dev/bin/python bench/api.py --players 5 --duration 15 --difficulty rookie
    .venv-dev/bin/python bench/api.py --think 0            # bots: the saturated worst case

Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL, BENCH_REDIS_URL to point
elsewhere on this machine). The benchmark database (default ``veyltak_bench``) is dropped and
created afresh on every run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # bench/harness.py: the site, its processes and their CPU
    bench_site,
    cpu_by_part,
    free_port,
    fresh_site,
    start_gunicorn,
    start_worker,
    stop_process,
    wait_port,
    wait_worker_idle,
)
from players import DIFFICULTIES, Player, Stats, ms, percentile  # bench/players.py

VENV_BIN = Path(sys.executable).parent


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


def run_threads(players: list[Player], method: str, deadline: float) -> None:
    threads = [threading.Thread(target=getattr(p, method), args=(deadline,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.monotonic()) + 120)


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
        "--celery-pool",
        default="solo",
        choices=["solo", "prefork", "threads"],
        help="as the Procfile",
    )
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

    web = worker = None
    try:
        web = start_gunicorn(
            port, env, var / "gunicorn.log", workers=args.web_workers, threads=args.web_threads
        )
        worker = start_worker(
            python, env, var / "worker.log", args.celery_pool, args.celery_concurrency
        )
        wait_port(port, 60, web)
        stats = Stats()
        players = [Player.from_args(base, i, stats, args) for i in range(args.players)]
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
        f"threads (gthread); celery {args.celery_pool} x{args.celery_concurrency}; PostgreSQL; "
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
