"""Capacity: the most concurrent players the site serves on this machine with seal p95 <= 100 ms
and no errors.

Serves the site as in production on this one machine (gunicorn, the rival's Celery worker and
the debrief worker on a Redis broker, as the Procfile runs them, PostgreSQL, the Redis cache),
then runs locust headless with the players of
tests/load/locustfile.py (guests who pass the age check and signed-in players, rivals at 40%
Rookie / 30% Hustler / 20% Safecracker / 10% Kingpin, 3 s of thought a night, the board's
polling, now and then the shop or the featured leaderboard), stepping up the number of players
(``--steps``, each held ``--hold`` seconds; the first ``--settle`` seconds of a step, while new
players arrive and sign in, are not measured). For each step it prints the seal route's
p50/p95/p99, requests per second, failed requests, 409 ``rival_not_sealed`` answers, the
machine's load average, the debriefs waiting in their queue at the step's end, and where the
CPU went (seconds per second of gunicorn, the rival's Celery worker, the debrief worker,
PostgreSQL's backends of this database, this Redis, locust, and everything else on the
machine); at the end, the heists finished and the debriefs stored. The figure is the largest
step with seal p95 <= ``--p95-ms`` and no failed request; last line ``capacity_players: N``.

    BENCH_REDIS_URL=redis://127.0.0.1:6379 nice -n 10 .venv-dev/bin/python bench/capacity.py
    .venv-dev/bin/python bench/capacity.py --steps 25,50 --hold 40      # quick look
    .venv-dev/bin/python bench/capacity.py --no-debriefs                # the A/B: no debriefs

Every finished heist sends its debrief task, as in production. With ``--no-debriefs`` the
debrief worker is bench/discard_debriefs.py, which takes each task off the queue and drops it:
the site, its messages and its processes are the same, and only the debriefs' working out and
storing is left out, so the two runs on one commit differ by what debriefs cost and nothing
else. A debrief worker that cannot keep up shows as a growing ``backlog``: a capacity figure
with a backlog still growing at the last step holds only while the players come and go.

The players each send an X-Forwarded-For address of their own and the site runs with
NUM_PROXIES=1, so the per-address limits see separate people, as behind a real proxy; no limit
is lifted. Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL, BENCH_REDIS_URL to
point elsewhere on this machine; Redis DBs 12 and 13 are used). The database (default
``veyltak_capacity``) is dropped and created afresh. Loopback only; bounded in time; ends every
process it started.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # bench/harness.py: the site, its processes
    CLOCK_TICKS,
    DEBRIEF_QUEUE,
    ROOT,
    bench_site,
    free_port,
    fresh_site,
    machine_speed,
    start_gunicorn,
    start_process,
    start_worker,
    stop_process,
    wait_port,
)
from players import percentile  # bench/players.py
from redis import Redis

VENV_BIN = Path(sys.executable).parent
LOCUSTFILE = ROOT / "tests" / "load" / "locustfile.py"
PASSWORD = "capacity players' shared password 2026"  # a throwaway bench database

ACCOUNTS = """
import json, os
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from allauth.account.models import EmailAddress
from accounts.services import profile_attest
from game.services.featured import featured_reconcile
count, password = int(os.environ["CAPACITY_ACCOUNTS"]), os.environ["CAPACITY_PASSWORD"]
User = get_user_model()
hashed = make_password(password)  # hashed once: the bench makes accounts, not hashes
pairs = []
for i in range(count):
    email = f"player{i}@capacity.invalid"
    user = User.objects.create(username=email, email=email, password=hashed)
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
    profile_attest(user=user)
    pairs.append([email, password])
featured_reconcile()  # the featured slot in play, as beat makes it
print(json.dumps(pairs))
"""


# --- where the CPU goes ------------------------------------------------------------------------


def _proc_cpu(pid_dir: Path) -> tuple[str, list[str], float, bytes] | None:
    try:
        text = (pid_dir / "stat").read_text()
        cmdline = (pid_dir / "cmdline").read_bytes()
    except OSError:
        return None
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return comm, fields, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS, cmdline


def cpu_sample(groups: dict[str, int], database: str, redis_port: int) -> dict[str, float]:
    """CPU seconds used so far by each part: process groups (gunicorn, worker, locust),
    PostgreSQL's backends serving ``database``, the Redis on ``redis_port``, and the whole
    machine (from /proc/stat), whose rest is everyone else's."""
    totals = dict.fromkeys([*groups, "postgres", "redis"], 0.0)
    by_group = {pgid: name for name, pgid in groups.items()}
    db_tag = f" {database} ".encode()
    port_tag = f":{redis_port}".encode()
    for entry in Path("/proc").glob("[0-9]*"):
        found = _proc_cpu(entry)
        if found is None:
            continue
        comm, fields, used, cmdline = found
        pgid = int(fields[2])
        if pgid in by_group:
            totals[by_group[pgid]] += used
        elif comm.startswith("postgres") and db_tag in cmdline + b" ":
            totals["postgres"] += used
        elif comm.startswith("redis-server") and port_tag in cmdline:
            totals["redis"] += used
    with open("/proc/stat") as fh:
        cpu = [int(v) for v in fh.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal: busy is all but idle and iowait
    totals["machine"] = (sum(cpu[:8]) - cpu[3] - cpu[4]) / CLOCK_TICKS
    return totals


def at(samples: list[tuple[float, dict[str, float], float]], when: float):
    """The sample nearest to wall time ``when``."""
    return min(samples, key=lambda s: abs(s[0] - when))


# --- the run ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="50,100,150,200", help="players, in order")
    parser.add_argument("--hold", type=float, default=90.0, help="seconds each step lasts")
    parser.add_argument("--settle", type=float, default=30.0, help="unmeasured start of a step")
    parser.add_argument("--spawn-rate", type=float, default=5.0, help="new players a second")
    parser.add_argument("--p95-ms", type=float, default=100.0)
    parser.add_argument("--accounts", type=int, default=100, help="accounts players sign in to")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds a night")
    # As bench/api.py found best on this 2-core machine (docs/deploy.md): one gthread process
    # per core with 4 threads (requests wait on PostgreSQL and Redis a good part of their
    # time), and one Celery process per two cores (a rival's turn is a few ms of CPU; a second
    # process on the same cores only competes with gunicorn).
    parser.add_argument("--web-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument(
        "--celery-pool",
        default="solo",
        choices=["solo", "prefork", "threads"],
        help="the worker's pool (solo, as the Procfile)",
    )
    parser.add_argument(
        "--celery-concurrency",
        type=int,
        default=max(1, (os.cpu_count() or 1) // 2),
        help="prefork or threads: the pool's size (solo runs one task at a time)",
    )
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=0,
        help="run the Celery worker at this nice level (rival turns yield the cores to requests)",
    )
    # As the Procfile's `debrief`: one debrief at a time, its thinking thread at DEBRIEF_NICE.
    parser.add_argument("--debrief-concurrency", type=int, default=1)
    parser.add_argument(
        "--no-debriefs",
        action="store_true",
        help="the debrief worker drops every debrief task (bench/discard_debriefs.py): the A/B",
    )
    parser.add_argument("--conn-max-age", type=int, default=600, help="DB_CONN_MAX_AGE")
    parser.add_argument("--shop-path", default="", help="default: /api/v1/shop/ if served")
    parser.add_argument("--database", default="veyltak_capacity")
    parser.add_argument(
        "--report-only", metavar="DIR", help="print the report of an earlier run's folder again"
    )
    args = parser.parse_args()
    steps = [int(n) for n in args.steps.split(",")]
    if args.report_only:
        var = Path(args.report_only)
        samples = [tuple(s) for s in json.loads((var / "samples.json").read_text())]
        found = var / "debriefed.json"
        debriefed = json.loads(found.read_text()) if found.exists() else None
        return report(var / "record.jsonl", samples, steps, args, var, debriefed)
    if not (all(1 <= n <= 2000 for n in steps) and args.settle < args.hold <= 600):
        raise SystemExit("players 1..2000 a step, settle < hold <= 600 s keep the run bounded")

    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    print(f"load average before the run: {load:.2f} on {cores} cores", flush=True)
    print(f"machine speed: {machine_speed():.1f} ms of CPU for the reference work", flush=True)
    if load > cores:
        print(
            "WARNING: the machine is busy: the figures will say how much of it the site got, "
            "not what the site can do (the CPU per seal table is the least affected)",
            flush=True,
        )
    db_url, redis, var, env = bench_site(args.database, "veyltak-capacity-")
    for lifted in ("HEIST_ACTIVE_MAX", "RATE_HEIST_START_SESSION", "RATE_HEIST_START_ADDRESS"):
        env.pop(lifted, None)  # nothing lifted: each player has its own address (below)
    env.update(NUM_PROXIES="1", DB_CONN_MAX_AGE=str(args.conn_max_age))
    python = str(VENV_BIN / "python")
    fresh_site(python, db_url, redis, env)
    made = subprocess.run(
        [python, "manage.py", "shell", "-c", ACCOUNTS],
        cwd=ROOT,
        env={**env, "CAPACITY_ACCOUNTS": str(args.accounts), "CAPACITY_PASSWORD": PASSWORD},
        check=True,
        capture_output=True,
        text=True,
    )
    accounts_file = var / "accounts.json"
    accounts_file.write_text(made.stdout.strip().splitlines()[-1])
    record = var / "record.jsonl"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    redis_port = urlsplit(redis).port or 6379

    web = worker = debriefs = locust = None
    samples: list[tuple[float, dict[str, float], float]] = []
    try:
        # Keep idle connections as a load balancer in front would (gthread parks them
        # without a thread); at gunicorn's 2 s a player's connection closes while the
        # player thinks, and the next request may meet the closing connection.
        web = start_gunicorn(
            port,
            env,
            var / "gunicorn.log",
            workers=args.web_workers,
            threads=args.web_threads,
            backlog=2048,
            extra=(
                "--keep-alive",
                "75",
            ),
        )
        worker = start_worker(
            python,
            env,
            var / "worker.log",
            args.celery_pool,
            args.celery_concurrency,
            nice=args.worker_nice,
        )
        debriefs = start_worker(
            python,
            env,
            var / "debrief.log",
            "prefork",
            args.debrief_concurrency,
            queue=DEBRIEF_QUEUE,
            app="bench.discard_debriefs" if args.no_debriefs else "veyltak_site",
        )
        wait_port(port, 60, web)
        shop_path = args.shop_path or _shop_path(base)
        schedule = ",".join(f"{n}:{args.hold:g}" for n in steps)
        load_env = {
            **env,
            "VEYLTAK_LOAD_STEPS": schedule,
            "VEYLTAK_LOAD_SPAWN_RATE": str(args.spawn_rate),
            "VEYLTAK_LOAD_RECORD": str(record),
            "VEYLTAK_LOAD_ACCOUNTS": str(accounts_file),
            "VEYLTAK_LOAD_THINK": str(args.think),
            "VEYLTAK_LOAD_SHOP_PATH": shop_path,
        }
        print(
            f"load: {schedule} (players:seconds), {args.spawn_rate:g} new players/s, shop at "
            f"{shop_path or 'wallet or crew, no shop API'}; gunicorn {args.web_workers}x"
            f"{args.web_threads} gthread, celery {_pool(args)}"
            f"{f' at nice {args.worker_nice}' if args.worker_nice else ''}, debriefs "
            f"{'dropped (--no-debriefs)' if args.no_debriefs else 'worked out'} by a worker "
            f"x{args.debrief_concurrency}, DB_CONN_MAX_AGE {args.conn_max_age}",
            flush=True,
        )
        locust = start_process(
            [
                str(VENV_BIN / "locust"),
                "-f",
                str(LOCUSTFILE),
                "--headless",
                "--host",
                base,
                "--loglevel",
                "WARNING",
                "--only-summary",
            ],
            load_env,
            var / "locust.log",
        )
        groups = {
            "gunicorn": web.pid,
            "worker": worker.pid,
            "debrief": debriefs.pid,
            "locust": locust.pid,
        }
        backlog = Redis.from_url(env["CELERY_BROKER_URL"])
        limit = time.monotonic() + args.hold * len(steps) + 120
        while locust.poll() is None:
            if time.monotonic() > limit:
                print("locust overran its schedule; stopping it", flush=True)
                break
            samples.append(
                (
                    time.time(),
                    cpu_sample(groups, args.database, redis_port),
                    os.getloadavg()[0],
                    backlog.llen(DEBRIEF_QUEUE),
                )
            )
            time.sleep(1.0)
        stop_process(locust)
    finally:
        stop_process(locust)
        stop_process(web)
        stop_process(worker)
        stop_process(debriefs)
        (var / "samples.json").write_text(json.dumps(samples))

    debriefed = _debriefed(db_url)
    (var / "debriefed.json").write_text(json.dumps(debriefed))
    return report(record, samples, steps, args, var, debriefed)


def _debriefed(db_url: str) -> dict[str, int]:
    """Heists finished and debriefs stored in the benchmark's database."""
    import psycopg

    with psycopg.connect(db_url) as conn:
        (finished,) = conn.execute(
            "SELECT count(*) FROM game_heist WHERE status = 'finished'"
        ).fetchone()
        (stored,) = conn.execute("SELECT count(*) FROM game_heistdebrief").fetchone()
    return {"finished": finished, "debriefs": stored}


def _pool(args) -> str:
    return (
        "solo" if args.celery_pool == "solo" else f"{args.celery_pool} x{args.celery_concurrency}"
    )


def _shop_path(base: str) -> str:
    """The shop's catalogue where it is served; else "" (the players use the wallet, or a
    guest the crew catalogue)."""
    import requests

    try:
        found = requests.get(base + "/api/v1/shop/", timeout=60).status_code == 200
    except requests.RequestException:
        found = False
    return "/api/v1/shop/" if found else ""


def report(record: Path, samples, steps: list[int], args, var: Path, debriefed: dict | None) -> int:
    if not record.exists():
        print(f"locust wrote no record; see {var / 'locust.log'}")
        return 1
    starts: list[tuple[int, float]] = []
    events: list[dict] = []
    for line in record.read_text().splitlines():
        item = json.loads(line)
        if "step" in item:
            starts.append((item["step"], item["at"]))
        else:
            events.append(item)
    ends = [t for _, t in starts[1:]] + [max(e["at"] for e in events) if events else 0]
    cores = os.cpu_count() or 1
    print()
    print(
        f"machine: {cores} cores; each step's first {args.settle:g} s not measured; seal p95 "
        f"limit {args.p95_ms:g} ms; load = 1-minute load average at the step's end"
    )
    header = (
        f"{'players':>7} {'req/s':>6} {'seals/s':>7} {'seal p50':>8} {'p95':>6} {'p99':>6} "
        f"{'failed':>6} {'409s':>5} {'load':>5} {'backlog':>7}  CPU s/s: gunicorn worker "
        "debrief postgres redis locust others"
    )
    print(header)
    capacity = 0
    first_error = ""
    per_seal: list[tuple[int, dict[str, float], float]] = []
    for (users, begun), ended in zip(starts, ends, strict=True):
        lo, hi = begun + args.settle, ended
        window = [e for e in events if lo <= e["at"] < hi]
        seals = [e["ms"] / 1000 for e in window if e["name"] == "seal" and not e["error"]]
        failed = [e for e in window if e["error"]]
        not_sealed = sum(1 for e in window if e["name"] == "rival_not_sealed")
        real = [e for e in window if e["name"] != "rival_not_sealed"]
        seconds = max(hi - lo, 1e-9)
        a, b = at(samples, lo), at(samples, hi)
        span = max(b[0] - a[0], 1e-9)
        cpu = {name: (b[1][name] - a[1][name]) / span for name in b[1]}
        ours = sum(v for name, v in cpu.items() if name != "machine")
        others = max(cpu["machine"] - ours, 0.0)
        p95 = percentile(seals, 95) * 1000
        ok = bool(seals) and p95 <= args.p95_ms and not failed
        if ok:
            capacity = max(capacity, users)
        if seals:
            rate = len(seals) / seconds
            per_seal.append((users, {k: v * 1000 / rate for k, v in cpu.items()}, ours / rate))
        if failed and not first_error:
            first_error = f"{failed[0]['name']}: {failed[0]['error']}"
        print(
            f"{users:>7} {len(real) / seconds:>6.1f} {len(seals) / seconds:>7.1f} "
            f"{percentile(seals, 50) * 1000:>8.1f} {p95:>6.1f} "
            f"{percentile(seals, 99) * 1000:>6.1f} {len(failed):>6} {not_sealed:>5} "
            f"{b[2]:>5.2f} {b[3] if len(b) > 3 else '-':>7}  {cpu['gunicorn']:>5.2f} "
            f"{cpu['worker']:>6.2f} {cpu.get('debrief', 0.0):>7.2f} "
            f"{cpu['postgres']:>8.2f} {cpu['redis']:>5.2f} {cpu['locust']:>6.2f} "
            f"{others:>6.2f}   {'ok' if ok else 'over'}"
        )
    if first_error:
        print(f"first failed request: {first_error}")
    # Where the CPU goes per seal, whatever share of the machine the site got: the seal with
    # its part of the views, starts, sign-ins and shop visits, and the rival's turn it sets off.
    print()
    print(
        f"{'players':>7}  CPU ms per seal: {'gunicorn':>8} {'worker':>6} {'debrief':>7} "
        f"{'postgres':>8} {'redis':>5} {'locust':>6} {'site':>6}   {'cores/seal rate':>15}"
    )
    for users, parts, site in per_seal:
        served = cores * 1000 / max(site * 1000 - parts["locust"], 1e-9)
        print(
            f"{users:>7}  {'':>15} {parts['gunicorn']:>8.1f} {parts['worker']:>6.1f} "
            f"{parts.get('debrief', 0.0):>7.1f} "
            f"{parts['postgres']:>8.1f} {parts['redis']:>5.1f} {parts['locust']:>6.1f} "
            f"{(site * 1000 - parts['locust']):>6.1f}   {served:>8.0f} seals/s"
        )
    print(
        "site = gunicorn + worker + debrief + postgres + redis; cores/seal rate = the seals per "
        f"second {cores} cores would carry at that cost, were the site alone on the machine"
    )
    print(
        "backlog = debrief tasks waiting in their queue at the step's end (a debrief the "
        "debrief worker has not reached yet)"
    )
    if debriefed is not None:
        print(
            f"heists finished: {debriefed['finished']}, debriefs stored: {debriefed['debriefs']}"
            + (" (--no-debriefs: dropped)" if args.no_debriefs else "")
        )
    print(
        "CPU s/s: CPU seconds per second of wall time (2.00 = both cores); others = the rest "
        "of the machine (other users' work, this script)"
    )
    print(f"logs and the record: {var}")
    if not args.report_only:
        print(
            f"machine speed after the run: {machine_speed():.1f} ms of CPU for the reference "
            "work (bench/harness.py machine_speed; lower is faster: compare runs only at like "
            "speeds)"
        )
    print(f"capacity_players: {capacity}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
