"""Benchmark the purchase route over HTTP: signed-in players buying from the shop at once.

Serves the site with gunicorn on 127.0.0.1 (PostgreSQL; Redis for the cache and sessions; no
worker: a purchase queues nothing), then ``--buyers`` threads (default 20), each with its own
requests.Session, buy at the same time. Each buyer plays ``--users`` signed-in players in turn
(a player can buy each item once), and buys every item of the catalogue for each, in a shuffled
order, with a new Idempotency-Key each time: ``POST /api/v1/shop/purchases/``, each one a row
lock on the player's wallet, a ledger transaction of two entries, the purchase, the ownership
and the stored answer, in one database transaction. Every answer must be 201.

Then each buyer sends every one of its keys again (the stored answer, ``Idempotent-Replayed``),
as the replay's figure. It prints per phase the count and p50 / p95 / p99, the machine's load,
checks the ledger (``check_signs_ledger``), and last the line ``purchase_p95_ms: N``.

    .venv-dev/bin/python bench/shop.py                          # 20 buyers, 8 players each
    .venv-dev/bin/python bench/shop.py --buyers 5 --users 2     # quick
    .venv-dev/bin/python bench/shop.py --think 1 --users 2      # buyers who pause about 1 s
    .venv-dev/bin/python bench/shop.py --redis-dbs 6 7          # the broker and cache db numbers

Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_DATABASE_URL, BENCH_REDIS_URL to point elsewhere
on this machine). The benchmark database (default ``veyltak_shop_bench``) is dropped and created
afresh on every run. Loopback only; it ends every process it started.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # bench/harness.py: the site and its processes
    ROOT,
    bench_site,
    free_port,
    fresh_site,
    start_gunicorn,
    stop_process,
    wait_port,
)
from players import ms, percentile  # bench/players.py

VENV_BIN = Path(sys.executable).parent
TIMEOUT = 30


def make_players(env: dict[str, str], count: int) -> list[tuple[str, str]]:
    """``count`` signed-in players with Signs enough for everything: (session cookie name,
    value) each. Made in this process through Django, against the benchmark's database."""
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")})
    os.environ["VEYLTAK_VAR_DIR"] = env["VEYLTAK_VAR_DIR"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from shop import services
    from shop.models import Reason, ShopItem

    total = sum(ShopItem.objects.filter(active=True).values_list("price", flat=True))
    cookies = []
    for i in range(count):
        email = f"buyer{i}@example.com"
        user = get_user_model().objects.create_user(username=email, email=email, password=None)
        services.signs_credit(
            user=user, amount=total, reason=Reason.GRANT, key=f"bench:{i}", memo="bench"
        )
        client = Client()
        client.force_login(user)
        cookies.append(
            (settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value)
        )
    connection.close()
    return cookies


class Buyer:
    def __init__(
        self, base: str, players: list[tuple[str, str]], seed: int, think: float = 0.0
    ) -> None:
        self.base = base
        self.think = think
        self.players = players
        self.rng = random.Random(seed)
        self.bought: list[float] = []
        self.replayed: list[float] = []
        self.errors: list[str] = []
        self.sent: list[tuple[requests.Session, str, dict]] = []

    def _session(self, cookie: tuple[str, str]) -> requests.Session:
        session = requests.Session()
        session.cookies.set(*cookie)
        response = session.get(f"{self.base}/api/v1/me/", timeout=TIMEOUT)  # the CSRF cookie
        response.raise_for_status()
        return session

    def _post(self, session: requests.Session, key: str, body: dict) -> requests.Response:
        return session.post(
            f"{self.base}/api/v1/shop/purchases/",
            json=body,
            headers={
                "Idempotency-Key": key,
                "X-CSRFToken": session.cookies.get("csrftoken", ""),
                "Referer": self.base + "/shop/",
            },
            timeout=TIMEOUT,
        )

    def shop(self, barrier: threading.Barrier) -> None:
        try:
            sessions = [self._session(c) for c in self.players]
            items = sessions[0].get(f"{self.base}/api/v1/shop/", timeout=TIMEOUT).json()["items"]
            barrier.wait(timeout=120)
            for session in sessions:
                order = items[:]
                self.rng.shuffle(order)
                for item in order:
                    key = uuid.uuid4().hex
                    body = {"item": item["slug"], "price": item["price"]}
                    t0 = time.perf_counter()
                    response = self._post(session, key, body)
                    elapsed = time.perf_counter() - t0
                    if response.status_code != 201:
                        self.errors.append(f"{response.status_code} {response.text[:200]}")
                        continue
                    self.bought.append(elapsed)
                    self.sent.append((session, key, body))
                    if self.think:  # a person looks at the next item before buying it
                        time.sleep(self.think * self.rng.uniform(0.5, 1.5))
        except Exception as exc:  # reported by main
            self.errors.append(repr(exc))

    def replay(self, barrier: threading.Barrier) -> None:
        try:
            barrier.wait(timeout=120)
            for session, key, body in self.sent:
                t0 = time.perf_counter()
                response = self._post(session, key, body)
                elapsed = time.perf_counter() - t0
                if response.status_code != 201 or "Idempotent-Replayed" not in response.headers:
                    self.errors.append(f"replay {response.status_code} {response.text[:200]}")
                    continue
                self.replayed.append(elapsed)
        except Exception as exc:
            self.errors.append(repr(exc))


def run_all(buyers: list[Buyer], method: str) -> float:
    barrier = threading.Barrier(len(buyers) + 1)
    threads = [threading.Thread(target=getattr(b, method), args=(barrier,)) for b in buyers]
    for t in threads:
        t.start()
    barrier.wait(timeout=300)
    t0 = time.monotonic()
    for t in threads:
        t.join(timeout=1200)
    return time.monotonic() - t0


def line(name: str, values: list[float], seconds: float) -> str:
    return (
        f"{name}: n={len(values)} in {seconds:.1f} s ({len(values) / seconds:.0f}/s)  "
        f"p50 {ms(percentile(values, 50))} ms  p95 {ms(percentile(values, 95))} ms  "
        f"p99 {ms(percentile(values, 99))} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buyers", type=int, default=20, help="concurrent buyers (threads)")
    parser.add_argument("--users", type=int, default=8, help="players each buyer plays in turn")
    parser.add_argument("--web-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument(
        "--redis-dbs",
        type=int,
        nargs=2,
        metavar=("BROKER", "CACHE"),
        help="Redis database numbers for the broker and the cache (default: the harness's)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a buyer waits between purchases (0: back to back, the saturation "
        "figure)",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (1 <= args.buyers <= 200 and 1 <= args.users <= 100):
        raise SystemExit("buyers 1..200 and users 1..100 keep the run bounded")

    db_url, redis, var, env = bench_site("veyltak_shop_bench", "veyltak-shop-bench-")
    if args.redis_dbs:
        env["CELERY_BROKER_URL"] = f"{redis}/{args.redis_dbs[0]}"
        env["REDIS_URL"] = f"{redis}/{args.redis_dbs[1]}"
    # The route is measured, not its limits (tests/site/test_throttles.py covers those): every
    # buyer shares one address and each player buys every item and sends every key again,
    # beyond what the purchase limits let one person do in ten minutes. They are still
    # counted, as on every purchase.
    env.update(RATE_PURCHASE_SESSION="1000000/m", RATE_PURCHASE_ADDRESS="1000000/m")
    python = str(VENV_BIN / "python")
    fresh_site(python, db_url, redis, env)
    cookies = make_players(env, args.buyers * args.users)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    buyers = [
        Buyer(
            base, cookies[i * args.users : (i + 1) * args.users], args.seed * 1000 + i, args.think
        )
        for i in range(args.buyers)
    ]
    web = None
    try:
        web = start_gunicorn(
            port, env, var / "gunicorn.log", workers=args.web_workers, threads=args.web_threads
        )
        wait_port(port, 60, web)
        # Warm up every web worker (imports, connections) with the shelf.
        warm = requests.Session()
        for _ in range(4 * args.web_workers):
            warm.get(f"{base}/api/v1/shop/", timeout=TIMEOUT)
        bought_s = run_all(buyers, "shop")
        replay_s = run_all(buyers, "replay")
    finally:
        stop_process(web)

    bought = [v for b in buyers for v in b.bought]
    replayed = [v for b in buyers for v in b.replayed]
    errors = [e for b in buyers for e in b.errors]
    load = os.getloadavg()
    print()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}; gunicorn {args.web_workers} workers x {args.web_threads} threads "
        "(gthread); PostgreSQL; Redis cache"
    )
    pace = f"{args.think:g} s between purchases" if args.think else "back to back"
    print(f"buyers: {args.buyers} at once, {args.users} players each, every item once each, {pace}")
    print(line("purchase (201)", bought, bought_s))
    print(line("replay (stored answer)", replayed, replay_s))
    check = subprocess.run(
        [python, "manage.py", "check_signs_ledger"], cwd=ROOT, env=env, capture_output=True
    )
    print("check_signs_ledger:", "ok" if check.returncode == 0 else "FAILED")
    if errors:
        print(f"errors: {len(errors)}; first: {errors[0]}")
    print(f"purchase_p95_ms: {percentile(bought, 95) * 1000:.0f}")
    return 1 if errors or check.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
