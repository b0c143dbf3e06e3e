"""Concurrency: one night sealed from two threads at once resolves once (one 200, one 409), and
the rival's seal run twice at once stores one plan. Real PostgreSQL row locks, separate
connections (transaction=True, so each thread sees the others' commits)."""

from __future__ import annotations

import threading
import time

import pytest
from django.test import Client

from game.models import Heist, HeistNight
from game.services import heists as services
from game.services import rivals as rival_services
from game.tasks import plan_rival_night
from tests.support.heists import age_checked_client, post, start
from tests.support.heists import seal as seal_as_board
from tests.support.threads import run_threads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture
def slow_resolve(monkeypatch):
    """Resolution takes a while, so the second seal surely arrives while the first holds the
    row lock (it has read night N before the lock, and must be turned away under it)."""
    calls = []
    real = services.resolve

    def resolve(*args, **kwargs):
        calls.append(threading.get_ident())
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "resolve", resolve)
    return calls


@pytest.mark.parametrize("last_night", [False, True])
def test_same_night_sealed_twice_at_once_resolves_once(slow_resolve, last_night):
    client = age_checked_client()
    view = start(client)
    heist_id = view["id"]
    night = 1
    if last_night:
        for night in range(1, 6):
            response = seal_as_board(client, heist_id, {"night": night, "crew": []})
            assert response.status_code == 200
        night = 6
        slow_resolve.clear()
    plan_rival_night(heist_id, night)  # both seals go straight for the lock
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}

    def seal():
        # Another request from the same browser (same session), on its own connection.
        c = Client()
        c.cookies.load(cookies)
        return post(c, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})

    responses = run_threads(seal, seal)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], [r.content for r in responses]
    refused = next(r for r in responses if r.status_code == 409)
    expected = "heist_finished" if last_night else "wrong_night"
    assert refused.json()["error"]["code"] == expected
    assert len(slow_resolve) == 1  # the night was resolved once
    heist = Heist.objects.get(pk=heist_id)
    resolved = HeistNight.objects.filter(heist=heist, result__isnull=False).count()
    assert resolved == night
    if last_night:
        assert heist.status == "finished" and heist.night == 7
    else:
        assert heist.night == 2 and HeistNight.objects.filter(heist=heist).count() == 2


def test_rival_seal_run_twice_at_once_seals_one_plan(monkeypatch):
    client = age_checked_client()
    heist_id = start(client)["id"]
    # Both runs compute their plan before either writes: the claim alone decides.
    both_computed = threading.Barrier(2)
    real = rival_services.choose_plan

    def choose_plan(*args, **kwargs):
        plan = real(*args, **kwargs)
        both_computed.wait(timeout=10)
        return plan

    monkeypatch.setattr(rival_services, "choose_plan", choose_plan)
    results = run_threads(
        lambda: plan_rival_night(heist_id, 1), lambda: plan_rival_night(heist_id, 1)
    )
    assert sorted(results) == [False, True]
    night = HeistNight.objects.get(heist_id=heist_id, night=1)
    sealed = (night.rival_plan, night.rival_nonce, night.rival_commitment, night.rival_sealed_at)
    assert all(v is not None for v in sealed)
    # A third run, later, changes nothing either.
    monkeypatch.setattr(rival_services, "choose_plan", real)
    assert plan_rival_night(heist_id, 1) is False
    night.refresh_from_db()
    assert (night.rival_plan, night.rival_nonce, night.rival_commitment, night.rival_sealed_at) == (
        sealed
    )
