"""Fixtures for the heist app: age-checked guests and players, and a helper that plays heists."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import profile_attest

ADULT_BIRTH_DATE = "1990-04-02"
RIVAL = "furnace"
DIFFICULTY = "rookie"


@pytest.fixture(autouse=True)
def _no_worker_wait(request):
    # Most tests run without a Celery worker (and inside a transaction a worker could not see
    # the rows anyway): the heist view seals the rival's plan in-process as soon as it is read
    # (see `seal` below). Tests of the worker and of the fallback set this themselves. (Not for
    # the engine's and the rival's own tests in the folders below, which need no Django.)
    if request.node.path.parent.name in ("engine", "rivals"):
        yield
        return
    settings = request.getfixturevalue("settings")
    settings.RIVAL_FALLBACK_SECONDS = 0
    yield


def age_checked_client() -> Client:
    client = Client()
    response = client.post(
        "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return client


@pytest.fixture
def guest(db) -> Client:
    """A guest browser that passed the age check."""
    return age_checked_client()


def make_player(email: str = "player@example.com") -> tuple[Any, Client]:
    user = get_user_model().objects.create_user(
        username=email, email=email, password="a long enough password 42"
    )
    profile_attest(user=user)
    client = Client()
    client.force_login(user)
    return user, client


@pytest.fixture
def player(db) -> tuple[Any, Client]:
    """A signed-in player who passed the age gate at sign-up."""
    return make_player()


def post(client: Client, path: str, data: dict | None = None):
    return client.post(path, data or {}, content_type="application/json")


def seal(client: Client, heist_id: str, body: dict):
    """Seal as the board does: read the heist first (with no worker, the view seals the rival's
    night once it is RIVAL_FALLBACK_SECONDS old, at once here), then post the plan."""
    client.get(f"/api/v1/heists/{heist_id}/")
    return post(client, f"/api/v1/heists/{heist_id}/seal/", body)


def start(client: Client, **body) -> dict:
    body = {"rival": RIVAL, "difficulty": DIFFICULTY, **body}
    response = post(client, "/api/v1/heists/", body)
    assert response.status_code == 201, response.content
    return response.json()


def legal_plan(view: dict, rng: random.Random, crew_costs: dict[str, int]) -> dict:
    """A random legal plan for the player, worked out from the heist view alone."""
    you = view["you"]
    open_vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
    hand = list(you["hand"])
    rng.shuffle(hand)
    chosen, spent = [], 0
    for card in hand[: rng.randint(0, 2)]:
        cost = crew_costs[card["crew"]]
        if spent + cost <= you["energy"] and open_vaults:
            chosen.append({"card": card["card"], "vault": rng.choice(open_vaults)})
            spent += cost
    boost = bool(chosen) and you["heat"] < 6 and rng.random() < 0.4
    return {"night": view["night"], "crew": chosen, "boost": boost}


def crew_costs() -> dict[str, int]:
    from game.engine import get_ruleset

    return {slug: crew.cost for slug, crew in get_ruleset().crew.items()}


def play_out(client: Client, view: dict, *, seed: int = 0, on_response=None) -> dict:
    """Seal random legal plans night by night until the heist is over; returns the last view."""
    rng = random.Random(seed)
    costs = crew_costs()
    heist_id = view["id"]
    while view["status"] == "active":
        plan = legal_plan(view, rng, costs)
        response = seal(client, heist_id, plan)
        assert response.status_code == 200, response.content
        if on_response:
            on_response(response, view)
        view = response.json()["heist"]
    return view


class LiveWorker:
    """A real Celery worker in a subprocess, on the test database and the test broker."""

    def __init__(self, log_path) -> None:
        self.log_path = log_path
        self.process = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def task_returns(self, name: str) -> list[str]:
        """What each finished run of task ``name`` returned, from the worker's log."""
        import re

        pattern = re.compile(rf"Task {re.escape(name)}\[[^\]]+\] succeeded in [^:]+: (\S+)")
        return pattern.findall(self.log())


@pytest.fixture
def live_worker(transactional_db, tmp_path):
    """Start ``celery -A veyltak_site worker`` against this test run's database and broker.

    The worker is another process, so it only sees committed rows: use it from tests marked
    ``django_db(transaction=True)``. Stale messages from earlier tests are purged first.
    Four threads, so concurrent runs of one task really race.
    """
    yield from _live_worker(tmp_path, pool="threads", concurrency=4, conn_max_age=0)


@pytest.fixture
def live_prefork_worker(transactional_db, tmp_path):
    """A worker as the Procfile runs it: a prefork process keeping its database connection
    between tasks (CONN_MAX_AGE)."""
    yield from _live_worker(tmp_path, pool="prefork", concurrency=1, conn_max_age=60)


def _live_worker(tmp_path, *, pool: str, concurrency: int, conn_max_age: int):
    import os
    import signal
    import subprocess
    import sys
    import time
    from urllib.parse import quote

    from django.conf import settings
    from django.db import connection

    from veyltak_site.celery import app

    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp", "pyamqp")):
        pytest.skip("needs a real broker (Redis or RabbitMQ)")
    app.control.purge()
    db = connection.settings_dict
    auth = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    url = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "DB_CONN_MAX_AGE": str(conn_max_age),
    }
    env.pop("DATABASE_TEST_NAME", None)
    worker = LiveWorker(tmp_path / "worker.log")
    with open(worker.log_path, "wb") as log:
        worker.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "veyltak_site",
                "worker",
                "--pool",
                pool,
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--hostname",
                f"test-{os.getpid()}@%h",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while " ready." not in worker.log():
            if worker.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Celery worker did not start:\n{worker.log()}")
            time.sleep(0.1)
        yield worker
    finally:
        worker.process.send_signal(signal.SIGTERM)
        try:
            worker.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait(timeout=10)
        app.control.purge()


def wait_for_phase(client: Client, heist_id: str, phase: str, timeout: float = 30.0) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/v1/heists/{heist_id}/").json()
        if view["phase"] == phase or time.monotonic() > deadline:
            return view
        time.sleep(0.02)
