"""Scale-out, shown: two separate web servers (gunicorn, each its own process and port) and two
Celery workers on one PostgreSQL database and one Redis broker and cache (docs/deploy.md).

- Heists whose requests alternate between the two servers (start on one, every view and seal
  on the other in turn, the rival's turns made by either worker), by guests and by a signed-in
  player, finish exactly as the same heists played against one server: featured heists share
  their slot's seed, the player's plans are drawn from the same seeds, so every night's result
  must be the same.
- A purchase race across both servers gives what one server gives: exactly the number of items
  the balance affords is bought, the rest refused with ``insufficient_signs``, and the balance
  equals the ledger.

The servers share only what docs/deploy.md says they must: the database, the broker, the cache
(sessions and limits) and SECRET_KEY; each has a VEYLTAK_VAR_DIR of its own. The database is a
new one beside the test database (``<test database>_scale``), dropped at the end.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
from django.conf import settings

pytestmark = [
    pytest.mark.postgres(reason="two web servers and two workers share one database server"),
    pytest.mark.celery_worker,
    pytest.mark.slow,
]

ROOT = Path(settings.BASE_DIR)
PYTHON = sys.executable
BIN = Path(sys.executable).parent
PASSWORD = "scale-out player password 2026"
HEISTS = 3  # heists played each way
SIGNED_IN = {1}  # which of them a signed-in player plays (a ranked first heist); guests the rest
SETUP = """
import json, os
from django.contrib.auth import get_user_model
from allauth.account.models import EmailAddress
from accounts.services import profile_attest
from game.services.featured import featured_reconcile
featured_reconcile()
User = get_user_model()
for email in json.loads(os.environ["SCALE_EMAILS"]):
    user = User.objects.create_user(username=email, email=email, password=os.environ["SCALE_PW"])
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
    profile_attest(user=user)
"""
LEDGER = """
import json, os
from django.contrib.auth import get_user_model
from shop.models import Account, Entry
user = get_user_model().objects.get(email=os.environ["SCALE_EMAIL"])
wallet = Account.objects.get(user=user, kind="wallet")
print(json.dumps({"balance": wallet.balance,
                  "entries": sum(e.amount for e in Entry.objects.filter(account=wallet))}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Site:
    """Two gunicorn servers and two Celery workers on one database, broker and cache."""

    def __init__(self, tmp: Path, db_url: str) -> None:
        self.tmp = tmp
        self.db_url = db_url
        self.procs: dict[str, subprocess.Popen] = {}
        self.ports: dict[str, int] = {}
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_TEST_NAME", "VEYLTAK_VAR_DIR", "SECRET_KEY"}
        }
        self.env.update(
            DATABASE_URL=db_url,
            # One secret for every process: sessions and CSRF tokens signed by one server are
            # read by the other.
            SECRET_KEY="scale-out test secret key, shared by every process " + uuid.uuid4().hex,
            DEBUG="false",
            STATIC_PLAIN="1",
            LOG_LEVEL="INFO",
            # The workers must make the rival's turns: the view's fallback waits a minute.
            RIVAL_FALLBACK_SECONDS="60",
            # As behind a load balancer: each browser below comes from an address of its own,
            # so the per-address limits (left as configured) count each one apart.
            NUM_PROXIES="1",
        )

    def manage(self, *args: str, code: str | None = None, **extra: str) -> str:
        cmd = [PYTHON, "manage.py", *args] + (["-c", code] if code else [])
        done = subprocess.run(
            cmd,
            cwd=ROOT,
            env={**self.env, "VEYLTAK_VAR_DIR": str(self.tmp / "manage"), **extra},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def start(self, name: str, cmd: list[str]) -> None:
        var = self.tmp / name
        var.mkdir()
        with open(self.tmp / f"{name}.log", "wb") as log:
            self.procs[name] = subprocess.Popen(
                cmd,
                cwd=ROOT,
                env={**self.env, "VEYLTAK_VAR_DIR": str(var)},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_web(self, name: str) -> None:
        self.ports[name] = port = _free_port()
        self.start(
            name,
            [
                str(BIN / "gunicorn"),
                "veyltak_site.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--threads",
                "4",
                "--access-logfile",
                "-",
            ],
        )

    def start_worker(self, name: str) -> None:
        self.start(
            name,
            [
                PYTHON,
                "-m",
                "celery",
                "-A",
                "veyltak_site",
                "worker",
                "-n",
                f"{name}@%h",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
            ],
        )

    def base(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")

    def logs(self) -> str:
        return "\n".join(f"--- {n}\n{self.log(n)[-3000:]}" for n in self.procs)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        for name in self.ports:
            while True:
                assert self.procs[name].poll() is None, self.logs()
                with contextlib.suppress(requests.RequestException, ValueError):
                    body = requests.get(self.base(name) + "/healthz", timeout=5).json()
                    # Both workers heard (their heartbeats are in the shared cache).
                    if body["status"] == "ok" and len(body.get("workers", {})) >= 2:
                        break
                assert time.monotonic() < deadline, self.logs()
                time.sleep(0.3)

    def stop(self) -> None:
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def _scale_database() -> str:
    url = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("postgres") or not broker.startswith("redis"):
        pytest.skip("needs PostgreSQL and a Redis broker (make test finds them on 127.0.0.1)")
    test_name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    name = f"{test_name or 'test_veyltak'}_scale"
    if not re.fullmatch(r"[a-z0-9_]+", name):
        raise AssertionError(f"unexpected database name {name!r}")
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _recreate(url: str, drop_only: bool = False) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    db_url = _scale_database()
    _recreate(db_url)
    s = Site(tmp_path_factory.mktemp("scale"), db_url)
    try:
        s.manage("migrate", "--noinput", "-v", "0")
        s.manage("load_catalogue")
        s.manage(
            "shell",
            code=SETUP,
            SCALE_EMAILS=json.dumps(
                ["racer-one@scale.invalid", "racer-two@scale.invalid"]
                + [f"player-{way}-{i}@scale.invalid" for way in ("one", "both") for i in SIGNED_IN]
            ),
            SCALE_PW=PASSWORD,
        )
        subprocess.run(
            [PYTHON, "-m", "celery", "-A", "veyltak_site", "purge", "-f"],
            cwd=ROOT,
            env={**s.env, "VEYLTAK_VAR_DIR": str(s.tmp / "manage")},
            check=True,
            capture_output=True,
            timeout=60,
        )
        for name in ("web-a", "web-b"):
            s.start_web(name)
        for name in ("worker-1", "worker-2"):
            s.start_worker(name)
        s.wait_ready()
        yield s
    finally:
        s.stop()
        _recreate(db_url, drop_only=True)


class Browser:
    """One browser (one cookie jar) whose requests go to the servers named, in turn."""

    def __init__(self, site: Site, servers: list[str]) -> None:
        self.site = site
        self.servers = servers
        self.turn = 0
        self.http = requests.Session()  # cookies are per host, not per port: one jar for both
        self.http.headers["X-Forwarded-For"] = "10." + ".".join(
            str(b) for b in uuid.uuid4().bytes[:3]
        )

    def url(self, path: str) -> str:
        server = self.servers[self.turn % len(self.servers)]
        self.turn += 1
        return self.site.base(server) + path

    def get(self, path: str) -> requests.Response:
        return self.http.get(self.url(path), timeout=30)

    def post(self, path: str, body: dict, **headers: str) -> requests.Response:
        csrf = self.http.cookies.get("csrftoken", "")
        return self.http.post(
            self.url(path), json=body, headers={"X-CSRFToken": csrf, **headers}, timeout=30
        )

    def age_check(self) -> None:
        assert self.get("/api/v1/me/").status_code == 200
        response = self.post("/api/v1/age-check/", {"birth_date": "1990-04-02"})
        assert response.status_code == 200, response.text

    def sign_in(self, email: str) -> None:
        page = self.url("/accounts/login/")
        assert self.http.get(page, timeout=30).status_code == 200
        response = self.http.post(
            page,
            data={
                "login": email,
                "password": PASSWORD,
                "csrfmiddlewaretoken": self.http.cookies.get("csrftoken", ""),
            },
            headers={"Referer": page},
            allow_redirects=False,
            timeout=30,
        )
        assert response.status_code == 302, response.text[:2000]


def _plan(view: dict, rng: random.Random, costs: dict[str, int]) -> dict:
    you = view["you"]
    vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
    hand = sorted(you["hand"], key=lambda c: c["card"])
    rng.shuffle(hand)
    crew, spent = [], 0
    for card in hand[: rng.randint(1, 2)]:
        if spent + costs[card["crew"]] <= you["energy"] and vaults:
            crew.append({"card": card["card"], "vault": rng.choice(vaults)})
            spent += costs[card["crew"]]
    return {"night": view["night"], "crew": crew, "boost": bool(crew) and rng.random() < 0.3}


def _play_featured(site: Site, servers: list[str], index: int) -> dict:
    """One featured heist as a new guest or a player who signs in (on the first server), plans
    drawn from ``index``; its results."""
    browser = Browser(site, servers)
    if index in SIGNED_IN:
        browser.sign_in(f"player-{'one' if len(servers) == 1 else 'both'}-{index}@scale.invalid")
    else:
        browser.age_check()
    costs = {c["slug"]: c["cost"] for c in browser.get("/api/v1/crew/").json()}
    slot = browser.get("/api/v1/featured/").json()["current"]
    response = browser.post(f"/api/v1/featured/{slot['slug']}/heists/", {})
    assert response.status_code == 201, response.text
    view = response.json()
    rng = random.Random(f"scale-out heist {index}")
    while view["status"] == "active":
        deadline = time.monotonic() + 30
        while view["phase"] != "planning":
            assert time.monotonic() < deadline, f"rival never sealed\n{site.logs()}"
            time.sleep(0.1)
            view = browser.get(f"/api/v1/heists/{view['id']}/").json()
        response = browser.post(f"/api/v1/heists/{view['id']}/seal/", _plan(view, rng, costs))
        assert response.status_code == 200, response.text
        view = response.json()["heist"]
    assert browser.turn > 10
    # What the nights gave; not the rival's nonces and commitments (new random per heist).
    nights = [
        {
            **night,
            "rival": {k: v for k, v in night["rival"].items() if k not in {"nonce", "commitment"}},
        }
        for night in view["history"]
    ]
    return {
        "nights": nights,
        "result": view["result"],
        "ranked": view["ranked"],
        "seed": slot["seed_commitment"],
    }


def test_heists_alternating_between_two_servers_finish_as_on_one(site):
    one = [_play_featured(site, ["web-a"], i) for i in range(HEISTS)]
    both = [_play_featured(site, ["web-a", "web-b"], i) for i in range(HEISTS)]
    assert all(len(h["nights"]) == 6 for h in one)
    # The signed-in players' heists are ranked: their session (and its sign-in) held on both.
    assert [h["ranked"] for h in one] == [i in SIGNED_IN for i in range(HEISTS)]
    assert both == one
    # The plans differ between heists, so the comparison says something.
    assert len({json.dumps(h["nights"], sort_keys=True) for h in one}) == HEISTS
    # Both workers made rival turns (each night's turn goes to whichever asks the broker first).
    for worker in ("worker-1", "worker-2"):
        assert "game.plan_rival_night" in site.log(worker) and "succeeded" in site.log(worker), (
            site.logs()
        )


def _purchase_route_or_skip(site: Site) -> None:
    probe = requests.get(site.base("web-a") + "/api/v1/shop/", timeout=30)
    if probe.status_code == 404:
        pytest.skip("the shop's API (GET /api/v1/shop/, POST /api/v1/shop/purchases/) is not here")


def _race(site: Site, email: str, servers: list[str]) -> dict:
    """Every item of one price bought at once, each request to the next server; the balance
    affords half of them. What came back and what the ledger says."""
    browser = Browser(site, servers)
    browser.sign_in(email)
    items = browser.get("/api/v1/shop/").json()["items"]
    by_price: dict[int, list[str]] = {}
    for item in items:
        if not item["owned"]:
            by_price.setdefault(item["price"], []).append(item["slug"])
    price, slugs = max(by_price.items(), key=lambda kv: (len(kv[1]), -kv[0]))
    assert len(slugs) >= 2, items
    affordable = len(slugs) // 2
    balance = browser.get("/api/v1/wallet/").json()["balance"]
    target = affordable * price + price // 2
    assert balance <= target, "the welcome gift alone affords more than half"
    if target > balance:
        site.manage("signs_grant", email, str(target - balance), "--reason", "scale-out race")
    assert browser.get("/api/v1/wallet/").json()["balance"] == target

    def buy(slug: str):
        response = browser.post(
            "/api/v1/shop/purchases/",
            {"item": slug, "price": price},
            **{"Idempotency-Key": uuid.uuid4().hex},
        )
        code = response.status_code
        return code, (response.json().get("error") or {}).get("code") if code != 201 else None

    with concurrent.futures.ThreadPoolExecutor(len(slugs)) as pool:
        answers = list(pool.map(buy, slugs))
    ledger = json.loads(
        site.manage("shell", code=LEDGER, SCALE_EMAIL=email).strip().splitlines()[-1]
    )
    return {
        "bought": sum(1 for code, _ in answers if code == 201),
        "refused": sorted(err for code, err in answers if code != 201),
        "affordable": affordable,
        "balance": browser.get("/api/v1/wallet/").json()["balance"],
        "ledger": ledger,
        "left": price // 2,
    }


def test_purchase_race_across_two_servers_gives_what_one_gives(site):
    _purchase_route_or_skip(site)
    one = _race(site, "racer-one@scale.invalid", ["web-a"])
    both = _race(site, "racer-two@scale.invalid", ["web-a", "web-b"])
    for race in (one, both):
        assert race["bought"] == race["affordable"], race
        assert set(race["refused"]) == {"insufficient_signs"}, race
        assert race["balance"] == race["left"] == race["ledger"]["balance"], race
        assert race["ledger"]["balance"] == race["ledger"]["entries"], race
    assert both["bought"] == one["bought"] and both["refused"] == one["refused"]
    site.manage("check_signs_ledger")
