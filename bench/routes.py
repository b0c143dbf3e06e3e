"""CPU per request of the heist routes, measured in-process: the heist view, the seal and the
rival's turn, night by night, as the board and the load clients use them.

    .venv-dev/bin/python bench/routes.py                      # 24 heists, levels mixed
    .venv-dev/bin/python bench/routes.py --heists 8 --profile seal --top 30

Plays ``--heists`` heists (rivals and levels in turn, as in tests/load/locustfile.py: 40/30/20/10%
Rookie to Kingpin; a share ``--signed-in``, 0.3 as there, by players signed in to an account that
passed the age check, the others by guests who pass it) through Django's own request handler
in this process (every middleware, sessions in Redis, PostgreSQL), with the rival's turn played
in this process too (``rival_plan_seal``, the worker's task body, without Celery). Each night:

- ``view (rival planning)``: the board's first read, before the rival has sealed;
- ``view (unchanged)``: the board polling while the rival plans, with the ETag of its last read
  in ``If-None-Match`` (304) -- or, with ``--no-etag``, without it, as the clients did before;
- the rival's turn, by level;
- ``view (rival sealed)``: the poll that finds the commitment (200 with the new view);
- ``seal``: the player's random legal plan (bench/players.py), the answer with the reveal.

Each figure is the CPU time of this thread (``time.thread_time``: the site's Python, the
database driver and the Redis client, not the PostgreSQL or Redis servers), so a busy machine
does not inflate it as it would a wall clock; the count of SQL queries per request comes from
the connection's log. ``--profile KIND`` runs cProfile over the requests of one kind (``view``,
``seal`` or ``rival``) and prints the functions that took the most time, by their own time and
by cumulative time. Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL,
BENCH_REDIS_URL); the database (default ``veyltak_bench_routes``) is dropped and created afresh;
the Redis databases are 12 (broker: the seal's rival task is sent, then purged) and 13 (cache).
A second table splits the seal and the views by guests and signed-in players. The last lines
are ``view_cpu_ms``, ``view_304_cpu_ms`` and ``seal_cpu_ms`` (means over both).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import bench_site, fresh_site, machine_speed  # bench/harness.py
from players import ADULT_BIRTH_DATE, RIVALS, percentile, random_plan  # bench/players.py

LEVELS = ("rookie",) * 4 + ("hustler",) * 3 + ("safecracker",) * 2 + ("kingpin",)


class Recorder:
    """CPU milliseconds, queries and bytes of each request, by kind and night."""

    def __init__(self, profile: str | None) -> None:
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.by_night: dict[tuple[str, int], list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.size: dict[str, list[int]] = defaultdict(list)
        self.by_who: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.who = "guest"
        self.profile_kind = profile
        # Timed by this thread's CPU clock, as the figures are: waits on PostgreSQL and Redis and
        # other processes on the machine do not count.
        self.profiler = cProfile.Profile(time.thread_time) if profile else None

    def run(self, kind: str, at_night: int, fn, *args, **kwargs):
        from django.db import connection, reset_queries

        reset_queries()
        profiling = self.profiler is not None and kind.startswith(self.profile_kind)
        if profiling:
            self.profiler.enable()
        t0 = time.thread_time()
        out = fn(*args, **kwargs)
        elapsed = (time.thread_time() - t0) * 1000
        if profiling:
            self.profiler.disable()
        self.cpu[kind].append(elapsed)
        self.by_night[(kind, at_night)].append(elapsed)
        self.by_who[(kind, self.who)].append(elapsed)
        self.queries[kind].append(len(connection.queries))
        content = getattr(out, "content", None)
        if content is not None:
            self.size[kind].append(len(content))
        return out


def setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings

    # The queries of each request are counted from the connection's log.
    settings.DEBUG = False
    from django.db import connection

    connection.force_debug_cursor = True


def client(n: int, signed_in: bool = False):
    """A guest who passed the age check, or (``signed_in``) a player signed in to an account
    that passed it (as bench/capacity.py makes them: a verified address, the attestation)."""
    from django.test import Client

    # An address of its own, as behind a proxy (NUM_PROXIES=1): the per-address limits count
    # each player apart, as in tests/load/locustfile.py.
    address = f"10.1.{n // 256 % 256}.{n % 256}"
    c = Client(enforce_csrf_checks=True, HTTP_X_FORWARDED_FOR=address)
    if signed_in:
        from allauth.account.models import EmailAddress
        from django.contrib.auth import get_user_model

        from accounts.services import profile_attest

        email = f"player{n}@routes.invalid"
        user = get_user_model().objects.create(username=email, email=email)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        profile_attest(user=user)
        c.force_login(user, backend=settings_backend())
    if c.get("/api/v1/me/").status_code != 200:
        raise SystemExit("GET /api/v1/me/ failed")
    if not signed_in:
        response = post(c, "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE})
        if response.status_code != 200:
            raise SystemExit(f"age check: {response.status_code} {response.content[:200]!r}")
    return c


def settings_backend() -> str:
    """The authentication backend a sign-in through the sign-in page records (allauth's)."""
    from django.conf import settings

    return next(b for b in settings.AUTHENTICATION_BACKENDS if "allauth" in b)


def post(c, path: str, body: dict):
    return c.post(
        path, body, content_type="application/json", HTTP_X_CSRFTOKEN=c.cookies["csrftoken"].value
    )


def play(c, rec: Recorder, n: int, rng: random.Random, costs: dict, etag: bool) -> None:
    from game.services.rivals import rival_plan_seal

    level = LEVELS[n % len(LEVELS)]
    response = post(c, "/api/v1/heists/", {"rival": RIVALS[n % len(RIVALS)], "difficulty": level})
    if response.status_code != 201:
        raise SystemExit(f"start: {response.status_code} {response.content[:200]!r}")
    view = response.json()
    path = f"/api/v1/heists/{view['id']}/"
    while view["status"] == "active":
        night = view["night"]
        first = rec.run("view (rival planning)", night, c.get, path)
        tag = first.get("ETag") if etag else None
        headers = {"HTTP_IF_NONE_MATCH": tag} if tag else {}
        for _ in range(2):
            again = rec.run("view (unchanged)", night, c.get, path, **headers)
            if again.status_code not in (200, 304):
                raise SystemExit(f"view: {again.status_code}")
        rec.run(f"rival turn {level}", night, rival_plan_seal, heist_id=view["id"], night=night)
        sealed = rec.run("view (rival sealed)", night, c.get, path, **headers)
        if sealed.status_code != 200:
            raise SystemExit(f"view after the rival sealed: {sealed.status_code}")
        view = sealed.json()
        body = random_plan(view, costs, rng)
        answer = rec.run("seal", night, post, c, f"{path}seal/", body)
        if answer.status_code != 200:
            raise SystemExit(f"seal: {answer.status_code} {answer.content[:300]!r}")
        view = answer.json()["heist"]


def report(rec: Recorder, top: int, profile_out: str | None = None) -> None:
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(f"machine speed: {machine_speed():.1f} ms of CPU for the reference work")
    print(
        f"{'request':<24} {'n':>5} {'CPU mean':>9} {'p50':>7} {'p95':>7} {'queries':>8} "
        f"{'bytes':>7}   (ms of this thread's CPU)"
    )
    for kind in sorted(rec.cpu, key=lambda k: (k.startswith("rival"), k)):
        values = rec.cpu[kind]
        sizes = rec.size.get(kind) or [0]
        print(
            f"{kind:<24} {len(values):>5} {statistics.fmean(values):>9.2f} "
            f"{percentile(values, 50):>7.2f} {percentile(values, 95):>7.2f} "
            f"{statistics.fmean(rec.queries[kind]):>8.1f} {statistics.fmean(sizes):>7.0f}"
        )
    nights = sorted({n for _, n in rec.by_night})
    print("by night (CPU mean ms): " + " ".join(f"{'n' + str(n):>6}" for n in nights))
    for kind in ("view (rival planning)", "view (unchanged)", "view (rival sealed)", "seal"):
        row = [statistics.fmean(rec.by_night.get((kind, n)) or [float("nan")]) for n in nights]
        print(f"  {kind:<22} " + " ".join(f"{v:>6.2f}" for v in row))
    if rec.profiler is not None:
        if profile_out:
            rec.profiler.dump_stats(profile_out)
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(rec.profiler, stream=out).sort_stats(key).print_stats(top)
            print(f"\nprofile of '{rec.profile_kind}' requests, by {key}:")
            print(out.getvalue().split("\n", 4)[-1].rstrip())
    print("by player (CPU mean ms, n):    guest       signed in")
    for kind in ("view (rival planning)", "view (unchanged)", "view (rival sealed)", "seal"):
        cells = []
        for who in ("guest", "signed in"):
            values = rec.by_who.get((kind, who)) or []
            mean = f"{statistics.fmean(values):>7.2f}" if values else f"{'-':>7}"
            cells.append(f"{mean} {len(values):>4}")
        print(f"  {kind:<22} " + "   ".join(cells))
    view = rec.cpu["view (rival planning)"] + rec.cpu["view (rival sealed)"]
    print(f"view_cpu_ms: {statistics.fmean(view):.2f}")
    print(f"view_304_cpu_ms: {statistics.fmean(rec.cpu['view (unchanged)']):.2f}")
    print(f"seal_cpu_ms: {statistics.fmean(rec.cpu['seal']):.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heists", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-etag", action="store_true", help="poll without If-None-Match")
    parser.add_argument(
        "--signed-in", type=float, default=0.3, help="share of players signed in (0.3)"
    )
    parser.add_argument(
        "--profile", metavar="KIND", help='the start of a kind: view, seal, rival, "view (u"...'
    )
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--profile-out", metavar="FILE", help="also write the profile's stats to FILE (pstats)"
    )
    args = parser.parse_args()
    if not 1 <= args.heists <= 500:
        raise SystemExit("heists 1..500 keep the run bounded")
    db_url, redis, _var, env = bench_site("veyltak_bench_routes", "veyltak-bench-routes-")
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "veyltak_site.settings",
            # This process plays the rival itself, once the view has been read.
            "RIVAL_FALLBACK_SECONDS": "600",
            "ALLOWED_HOSTS": "testserver",
            "NUM_PROXIES": "1",
        }
    )
    fresh_site(sys.executable, db_url, redis, env)
    setup(env)
    from game.engine import get_ruleset
    from veyltak_site.celery import app

    costs = {slug: crew.cost for slug, crew in get_ruleset().crew.items()}
    rng = random.Random(args.seed)
    rec = Recorder(args.profile)
    warm = Recorder(None)
    try:
        play(client(10_000), warm, len(LEVELS) - 1, rng, costs, not args.no_etag)  # imports, caches
        # Who signs in is drawn apart from the plans, so the share does not change them.
        signing = random.Random(args.seed + 1)
        for n in range(args.heists):
            signed_in = signing.random() < args.signed_in
            rec.who = "signed in" if signed_in else "guest"
            play(client(n, signed_in), rec, n, rng, costs, not args.no_etag)
    finally:
        app.control.purge()
    report(rec, args.top, args.profile_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
