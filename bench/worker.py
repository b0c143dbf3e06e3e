"""What the rival's turn costs a Celery worker, per difficulty, on PostgreSQL and Redis.

Starts one worker as ``make run`` starts its rival's worker (``--pool solo`` by default, as the
Procfile, the rival's queue only), then for each
difficulty plays ``--heists`` complete heists: this process starts them and seals the player's
random legal plans through the services (as the web process does), and the worker plays every
rival night from its task queue. The worker's CPU, read from /proc, is divided by the rival
turns it played (no debrief task is sent when a heist ends: bench/debrief.py measures those).
First, rival tasks for heists that do not exist measure one Celery round trip with the read of
the heist: the part of every turn that is not the rival thinking.

    .venv-dev/bin/python bench/worker.py                  # 40 heists (240 turns) per difficulty
    .venv-dev/bin/python bench/worker.py --heists 10 --difficulty rookie
    CELERY_DB_REUSE_MAX=0 .venv-dev/bin/python bench/worker.py   # Celery's default: a new
                                                             # connection for every task

Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL, BENCH_REDIS_URL); the database
(default ``veyltak_bench_worker``) is dropped and created afresh. The last line is
``rookie_turn_ms: N`` (worker CPU per Rookie turn).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import (  # bench/harness.py: the site, its processes and their CPU
    bench_site,
    cpu_by_part,
    fresh_site,
    start_worker,
    stop_process,
    wait_worker_idle,
)

ROOT = Path(__file__).resolve().parent.parent
DIFFICULTIES = ["rookie", "hustler", "safecracker", "kingpin"]
RIVALS = ["furnace", "quiet-hands", "the-reader", "split-circuit"]
WAIT_SECONDS = 120


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def wait_ready(app, worker) -> None:
    deadline = time.monotonic() + 60
    while not app.control.ping(timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the Celery worker did not start (see its log)")


def idle_turns(count: int, groups: dict[str, int]) -> float:
    from game.tasks import plan_rival_night

    before = cpu_by_part(groups)["worker"]
    for _ in range(count):
        plan_rival_night.delay(str(uuid.uuid4()), 1)
    wait_worker_idle(groups)
    return (cpu_by_part(groups)["worker"] - before) * 1000 / count


def play_heists(difficulty: str, heists: int, groups: dict[str, int], seed: int) -> float:
    """Play ``heists`` heists to the end; the worker plays the rival. Worker ms per turn."""
    from game.engine import PLAYER, legal_plans
    from game.models import HeistNight
    from game.owners import Owner
    from game.selectors.heists import heist_load
    from game.services.heists import heist_start, plan_seal

    rng = random.Random(seed)
    before = cpu_by_part(groups)["worker"]
    owner = {}
    for i in range(heists):
        who = Owner(user_id=None, guest_id=f"bench-{difficulty}-{i}")
        snapshot = heist_start(owner=who, rival=RIVALS[i % len(RIVALS)], difficulty=difficulty)
        owner[snapshot.heist.pk] = who
    turns = 0
    active = list(owner)
    while active:
        deadline = time.monotonic() + WAIT_SECONDS
        still = []
        for pk in active:
            row = heist_load(heist_id=pk, owner=owner[pk]).nights[-1]
            while not HeistNight.objects.filter(pk=row.pk, rival_commitment__isnull=False).exists():
                if time.monotonic() > deadline:
                    raise SystemExit(f"the worker did not seal night {row.night} of {pk}")
                time.sleep(0.005)
            turns += 1
            state = heist_load(heist_id=pk, owner=owner[pk]).state
            plan = rng.choice(legal_plans(state, PLAYER))
            _, snapshot = plan_seal(
                heist_id=pk,
                owner=owner[pk],
                night=row.night,
                crew=[{"card": card, "vault": vault} for card, vault in plan.crew],
                boost=plan.boost,
            )
            if snapshot.heist.status == "active":
                still.append(pk)
        active = still
    wait_worker_idle(groups)
    return (cpu_by_part(groups)["worker"] - before) * 1000 / turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heists", type=int, default=40, help="per difficulty")
    parser.add_argument("--idle", type=int, default=1000, help="rival tasks with nothing to do")
    parser.add_argument("--difficulty", choices=["all", *DIFFICULTIES], default="all")
    parser.add_argument("--pool", default="solo", choices=["solo", "prefork", "threads"])
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    if not (1 <= args.heists <= 2000 and 1 <= args.idle <= 100_000):
        raise SystemExit("heists 1..2000 and idle 1..100000 keep the run bounded")

    db_url, redis, var, env = bench_site("veyltak_bench_worker", "veyltak-bench-worker-")
    # This process plays the player only: it must never seal the rival's night itself.
    env["RIVAL_FALLBACK_SECONDS"] = "600"
    env["DJANGO_SETTINGS_MODULE"] = "veyltak_site.settings"
    python = sys.executable
    fresh_site(python, db_url, redis, env)
    setup_django(env)
    from django.conf import settings

    from veyltak_site.celery import app

    app.control.purge()
    # The rival's turns only: no debrief task is sent (it would wait in the debrief queue,
    # which this worker does not take; bench/debrief.py measures the debrief).
    from game.services import finish as finish_services

    finish_services.debrief_schedule = lambda heist_id: None
    worker = start_worker(python, env, var / "worker.log", args.pool, args.concurrency)
    results: dict[str, float] = {}
    try:
        wait_ready(app, worker)
        groups = {"worker": worker.pid}
        wait_worker_idle(groups)
        idle = idle_turns(args.idle, groups)
        levels = DIFFICULTIES if args.difficulty == "all" else [args.difficulty]
        for k, level in enumerate(levels):
            results[level] = play_heists(level, args.heists, groups, seed=k)
            print(f"  {level}: done", flush=True)
    finally:
        stop_process(worker)
    print()
    print(
        f"worker: celery {args.pool} x{args.concurrency}, Redis broker, PostgreSQL; "
        f"CELERY_DB_REUSE_MAX={settings.CELERY_DB_REUSE_MAX}, "
        f"CONN_MAX_AGE={settings.DATABASES['default']['CONN_MAX_AGE']}"
    )
    print(
        f"rival task with nothing to do ({args.idle}): {idle:.2f} ms of worker CPU "
        f"-> {1000 / idle:.0f} tasks/s per worker process"
    )
    for level, cost in results.items():
        print(
            f"{level:12s} {args.heists} heists x 6 nights: {cost:6.2f} ms of worker CPU per turn "
            f"-> {1000 / cost:4.0f} turns/s per worker process"
        )
    if "rookie" in results:
        print(f"rookie_turn_ms: {results['rookie']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
