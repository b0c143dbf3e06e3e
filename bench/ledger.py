"""Benchmark the Signs ledger on PostgreSQL: concurrent players earning and spending.

N players (``--players``, default 20) run at once, spread over a few processes (``--procs``)
so Python's interpreter lock is not what is measured, each on its own database connection.
Every player, for ``--duration`` seconds, in a loop: earns Signs for a finished heist
(``signs_award``, a fresh heist each time; the finish day moves on every 20 heists so the daily
limit never turns an award into a no-op) or, when its wallet holds enough, spends some
(``signs_debit``, a purchase). Each movement touches the player's own wallet and one shared
system account (``rewards`` for awards, ``shop`` for purchases), which is where a ledger that
kept the system accounts' balances on their rows would make every movement queue.

``--lock-system`` takes the shared system account's row lock (FOR NO KEY UPDATE) at the start
of every movement, as updating a balance kept on that row does: the same run with the hot row
put back, to show what it costs. ``--compare`` runs that first and then the ledger as it is,
under the same conditions, and prints ``hot_row_ops_per_second`` before the last line.

It prints, per operation, the count and p50 / p95 / p99 latency, the machine's load, checks the
ledger afterwards (``check_signs_ledger``), and last the line ``ledger_ops_per_second: N``.

    .venv-dev/bin/python bench/ledger.py                       # 20 players, 20 s
    .venv-dev/bin/python bench/ledger.py --lock-system         # the same with the hot row
    .venv-dev/bin/python bench/ledger.py --compare             # both, one after the other
    .venv-dev/bin/python bench/ledger.py --players 5 --duration 5

The benchmark database (default ``veyltak_signs_bench`` on 127.0.0.1; BENCH_DATABASE_URL to
point elsewhere on this machine) is dropped and created afresh on every run.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
OUTCOMES = ("win", "draw", "loss")
DIFFICULTIES = ("rookie", "hustler", "safecracker", "kingpin")


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def fresh_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    host = parts.hostname or ""
    if host not in LOOPBACK and not host.startswith("127."):
        raise SystemExit(f"refusing {url}: the benchmark only talks to this machine")
    name = parts.path.lstrip("/")
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"unexpected database name {name!r}")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(db_url: str) -> None:
    os.environ["DATABASE_URL"] = db_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def player_process(db_url, user_ids, duration, lock_system, seed, start_at, out) -> None:
    """One process: a thread per player, until the deadline; sends back the latencies."""
    import threading

    setup_django(db_url)
    import datetime as dt

    from django.db import connection, transaction

    from shop import services
    from shop.models import Account

    day0 = dt.datetime(2027, 1, 1, 12, tzinfo=dt.UTC)
    results: dict[str, list[float]] = {"award": [], "spend": []}
    errors: list[str] = []
    lock = threading.Lock()

    def movement(system_slug, call):
        if not lock_system:
            return call()
        with transaction.atomic():
            # As a balance kept on the system account's row: every movement locks it.
            Account.objects.select_for_update(no_key=True).filter(slug=system_slug).exists()
            return call()

    def run(uid: int, rng: random.Random) -> None:
        mine: dict[str, list[float]] = {"award": [], "spend": []}
        heists = 0
        balance = 100  # the welcome grant
        try:
            while time.time() < start_at:
                time.sleep(0.005)
            deadline = start_at + duration
            while time.time() < deadline:
                price = rng.randint(5, 40)
                t0 = time.perf_counter()
                if balance >= price and rng.random() < 0.4:
                    posted = movement(
                        "shop",
                        lambda price=price: services.signs_debit(
                            user=uid, amount=price, key=f"bench:{uuid.uuid4().hex}"
                        ),
                    )
                    balance = posted.balances[next(iter(posted.balances))]
                    kind = "spend"
                else:
                    finished = day0 + dt.timedelta(days=heists // 20)
                    heists += 1
                    result = movement(
                        "rewards",
                        lambda finished=finished: services.signs_award(
                            player_id=uid,
                            heist_id=uuid.uuid4(),
                            outcome=rng.choice(OUTCOMES),
                            difficulty=rng.choice(DIFFICULTIES),
                            nights_sealed=6,
                            nights=6,
                            finished_at=finished,
                        ),
                    )
                    balance += result.amount or 0
                    kind = "award"
                mine[kind].append(time.perf_counter() - t0)
        except Exception as exc:  # reported by the parent
            with lock:
                errors.append(f"player {uid}: {exc!r}")
        finally:
            connection.close()
        with lock:
            for k, v in mine.items():
                results[k].extend(v)

    threads = [
        threading.Thread(target=run, args=(uid, random.Random(seed * 1000 + uid)))
        for uid in user_ids
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((results, errors))


def run(args: argparse.Namespace, db_url: str, *, lock_system: bool) -> tuple[float, bool]:
    """One measured run on a fresh database; prints its figures. Returns (ops/s, all fine)."""
    fresh_database(db_url)
    env = {**os.environ, "DATABASE_URL": db_url}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    from django.contrib.auth import get_user_model
    from django.db import connection

    from shop import services

    connection.close()
    services.system_accounts_ensure()  # this database's system accounts, not the last run's
    users = []
    for i in range(args.players):
        email = f"bench{i}@example.com"
        user = get_user_model().objects.create_user(username=email, email=email)
        services.signs_welcome(user=user)
        users.append(user.pk)
    connection.close()

    procs = max(1, min(args.procs, args.players))
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 3.0 + procs  # every process set up before the clock starts
    workers = [
        ctx.Process(
            target=player_process,
            args=(db_url, users[i::procs], args.duration, lock_system, args.seed, start_at, out),
        )
        for i in range(procs)
    ]
    for w in workers:
        w.start()
    results: dict[str, list[float]] = {"award": [], "spend": []}
    errors: list[str] = []
    for _ in workers:
        part, errs = out.get(timeout=args.duration + 120)
        for k, v in part.items():
            results[k].extend(v)
        errors.extend(errs)
    for w in workers:
        w.join(timeout=30)
    load = os.getloadavg()

    total = sum(len(v) for v in results.values())
    mode = "hot row (system account locked per movement)" if lock_system else "ledger"
    print(f"mode: {mode}; {args.players} players in {procs} processes, {args.duration:g} s")
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    for kind, values in results.items():
        print(
            f"{kind}: {len(values)} ops, p50 {percentile(values, 50) * 1000:.1f} ms, "
            f"p95 {percentile(values, 95) * 1000:.1f} ms, "
            f"p99 {percentile(values, 99) * 1000:.1f} ms"
        )
    for error in errors[:10]:
        print("error:", error)
    check = subprocess.run(
        [sys.executable, "manage.py", "check_signs_ledger"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    print("check_signs_ledger:", "ok" if check.returncode == 0 else "FAILED")
    if check.returncode:
        print(check.stdout[-2000:], check.stderr[-2000:])
    return total / args.duration, not errors and check.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load")
    parser.add_argument("--procs", type=int, default=4, help="processes the players run in")
    parser.add_argument("--lock-system", action="store_true", help="put the hot row back")
    parser.add_argument(
        "--compare", action="store_true", help="a --lock-system run first, then the ledger's"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="veyltak_signs_bench")
    args = parser.parse_args()

    db_url = os.environ.get(
        "BENCH_DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{args.database}"
    )
    setup_django(db_url)
    ok = True
    if args.compare:
        hot, ok = run(args, db_url, lock_system=True)
        print(f"hot_row_ops_per_second: {hot:.0f}")
        print()
    rate, fine = run(args, db_url, lock_system=args.lock_system and not args.compare)
    print(f"ledger_ops_per_second: {rate:.0f}")
    return 0 if ok and fine else 1


if __name__ == "__main__":
    sys.exit(main())
