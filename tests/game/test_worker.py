"""The rival's turn on a real Celery worker (on Redis, or the on-disk broker with SQLite), and a
heist that completes with no worker at all through the web process's fallback."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.db import connection
from django.db.models import F

from game.models import Heist, HeistNight
from game.services import rivals as services
from game.tasks import plan_rival_night
from tests.support.heists import (
    age_checked_client,
    commitment_of,
    post,
    start,
    wait_for_phase,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.slow
@pytest.mark.celery_worker
def test_worker_seals_every_night_before_the_player(live_worker, settings, monkeypatch):
    # The web process must not need its fallback: make it unusable here.
    settings.RIVAL_FALLBACK_SECONDS = 60

    def no_fallback(*args, **kwargs):
        raise AssertionError("the fallback ran: the worker did not seal")

    monkeypatch.setattr(services, "_rival_seal", no_fallback)
    client = age_checked_client()
    view = start(client, rival="the-reader", difficulty="kingpin")
    heist_id = view["id"]
    for night in range(1, 7):
        view = wait_for_phase(client, heist_id, "planning")
        assert view["phase"] == "planning", live_worker.log()
        assert view["night"] == night and len(view["rival"]["commitment"]) == 64
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})
        assert response.status_code == 200, response.content
        assert response.json()["result"]["rival"]["commitment"] == view["rival"]["commitment"]
    heist = Heist.objects.get(pk=heist_id)
    assert heist.status == "finished"
    for night in HeistNight.objects.filter(heist=heist):
        assert night.rival_sealed_at < night.resolved_at
    returns = live_worker.task_returns("game.plan_rival_night")
    assert returns.count("True") == 6, live_worker.log()


@pytest.mark.slow
@pytest.mark.celery_worker
def test_rival_task_sent_twice_at_once_seals_one_plan(live_worker):
    client = age_checked_client()
    heist_id = start(client)["id"]  # on commit, the night's task is sent once...
    for _ in range(3):  # ...and three more copies race it on the worker's four threads
        plan_rival_night.delay(heist_id, 1)
    deadline = time.monotonic() + 30
    while len(live_worker.task_returns("game.plan_rival_night")) < 4:
        assert time.monotonic() < deadline, live_worker.log()
        time.sleep(0.05)
    returns = live_worker.task_returns("game.plan_rival_night")
    assert sorted(returns) == ["False", "False", "False", "True"], live_worker.log()
    night = HeistNight.objects.get(heist_id=heist_id, night=1)
    assert night.rival_commitment and night.rival_nonce and night.rival_plan is not None


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.postgres(reason="it counts the worker's connections in pg_stat_activity")
def test_worker_keeps_its_database_connection_between_tasks(live_procfile_worker, settings):
    """Celery alone would close the connection after every task (a PostgreSQL backend started
    and ended per rival turn); the worker follows CONN_MAX_AGE and health checks as web
    requests do, so a connection the server dropped is replaced before the next task."""
    settings.RIVAL_FALLBACK_SECONDS = 60  # the view must not seal in the worker's place

    def other_backends() -> set[int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return {pid for (pid,) in cursor.fetchall()}

    client = age_checked_client()
    seen = []
    for _ in range(3):
        heist_id = start(client)["id"]
        view = wait_for_phase(client, heist_id, "planning")
        assert view["phase"] == "planning", live_procfile_worker.log()
        seen.append(other_backends())
    assert len(seen[0]) == 1, (seen, live_procfile_worker.log())
    assert seen[0] == seen[1] == seen[2], seen

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [next(iter(seen[0]))])
    heist_id = start(client)["id"]
    view = wait_for_phase(client, heist_id, "planning")
    assert view["phase"] == "planning", live_procfile_worker.log()
    assert live_procfile_worker.task_returns("game.plan_rival_night") == ["True"] * 4
    assert other_backends().isdisjoint(seen[0])


def test_heist_completes_with_no_worker(settings):
    """No worker runs: each night's task waits in the broker. The board's seal is refused
    (409 rival_not_sealed) until its poll of the heist view finds the night
    RIVAL_FALLBACK_SECONDS old; the view then seals the rival's plan in the web process, and
    the seal plays the night. No request waits for the worker.

    Each night is made old by moving its start back, not by waiting (as below)."""
    settings.RIVAL_FALLBACK_SECONDS = 60
    client = age_checked_client()
    view = start(client)
    heist_id = view["id"]
    for night in range(1, 7):
        assert view["phase"] == "rival_planning" and view["night"] == night
        early = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})
        assert early.status_code == 409, early.content
        assert early.json()["error"]["code"] == "rival_not_sealed"
        assert client.get(f"/api/v1/heists/{heist_id}/").json()["phase"] == "rival_planning"
        _age_the_night(heist_id, night, seconds=61)
        polled = client.get(f"/api/v1/heists/{heist_id}/").json()
        assert polled["phase"] == "planning"
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})
        assert response.status_code == 200, response.content
        assert response.json()["result"]["rival"]["commitment"] == polled["rival"]["commitment"]
        view = response.json()["heist"]
    assert view["status"] == "finished" and len(view["history"]) == 6
    for row in HeistNight.objects.filter(heist_id=heist_id):
        # Sealed by the view once the night was overdue, before the player's seal.
        assert (row.rival_sealed_at - row.started_at).total_seconds() >= 60
        assert row.rival_sealed_at < row.resolved_at


def test_the_view_seals_the_rival_when_no_worker_did_in_time(settings):
    """No worker runs: once the night is RIVAL_FALLBACK_SECONDS old, GET /api/v1/heists/{id}/
    seals the rival's plan itself (DESIGN.md section 3.5), so the board stops showing the rival
    "planning"; the seal that follows plays that same sealed plan (commitment unchanged).

    The night is made old by moving its start back, not by waiting: on a loaded machine a
    request can take longer than any wait a test would choose."""
    settings.RIVAL_FALLBACK_SECONDS = 60
    client = age_checked_client()
    view = start(client)
    heist_id = view["id"]
    early = client.get(f"/api/v1/heists/{heist_id}/").json()
    assert early["phase"] == "rival_planning" and early["rival"]["commitment"] is None
    assert not HeistNight.objects.get(heist_id=heist_id, night=1).rival_sealed

    _age_the_night(heist_id, 1, seconds=61)
    view = client.get(f"/api/v1/heists/{heist_id}/").json()
    assert view["phase"] == "planning"
    commitment = view["rival"]["commitment"]
    assert commitment is not None and len(commitment) == 64
    row = HeistNight.objects.get(heist_id=heist_id, night=1)
    assert row.rival_commitment == commitment and row.result is None
    # Polling again changes nothing: the seal is claimed once.
    assert client.get(f"/api/v1/heists/{heist_id}/").json()["rival"]["commitment"] == commitment

    # Already sealed: the seal plays that plan at once. The seal route never waits for the
    # rival (an unsealed night is 409 rival_not_sealed), so a 200 with the same commitment
    # says it played the plan the view sealed, whatever the machine's load.
    response = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": 1, "crew": []})
    assert response.status_code == 200, response.content
    rival = response.json()["result"]["rival"]
    assert rival["commitment"] == commitment
    assert commitment_of(rival["nonce"], rival["crew"], rival["boost"]) == commitment
    # The next night starts unsealed again, and the view leaves it alone until it is overdue.
    assert response.json()["heist"]["phase"] == "rival_planning"
    assert client.get(f"/api/v1/heists/{heist_id}/").json()["phase"] == "rival_planning"


def _age_the_night(heist_id: str, night: int, *, seconds: float) -> None:
    HeistNight.objects.filter(heist_id=heist_id, night=night).update(
        started_at=F("started_at") - dt.timedelta(seconds=seconds)
    )


@pytest.mark.slow
@pytest.mark.celery_worker
def test_worker_works_out_the_debrief_when_a_heist_finishes(live_worker, settings, monkeypatch):
    from game.models import HeistDebrief
    from game.services import debriefs

    # Only the worker may work it out: the route's fallback would hide a missing task.
    settings.DEBRIEF_FALLBACK_SECONDS = 600

    in_the_web = []
    monkeypatch.setattr(debriefs, "debrief_compute", lambda **kw: in_the_web.append(kw))
    client = age_checked_client()
    view = start(client, rival="furnace", difficulty="kingpin")
    heist_id = view["id"]
    for night in range(1, 7):
        view = wait_for_phase(client, heist_id, "planning")
        assert view["phase"] == "planning", live_worker.log()
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})
        assert response.status_code == 200, response.content
    deadline = time.monotonic() + 60
    while True:
        response = client.get(f"/api/v1/heists/{heist_id}/debrief/")
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        assert response.status_code == 202 and response["Retry-After"]
        time.sleep(0.1)
    assert response.status_code == 200, live_worker.log()
    assert response.json()["accuracy"] == HeistDebrief.objects.get(heist_id=heist_id).accuracy
    # Sending nobody all heist long, against plans that take free vaults: far from accurate.
    assert response.json()["accuracy"] < 80
    assert live_worker.task_returns("game.debrief_heist") == ["True"], live_worker.log()
    assert in_the_web == []
