"""The heist debrief and "try this night again" through the API (DESIGN.md sections 5 and 10)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import pytest
import time_machine

from game.models import FeaturedSlot, Heist, HeistDebrief
from game.services import featured as featured_services
from game.services.debriefs import debrief_compute
from shop.selectors import wallet_balance
from tests.support.featured import T0, start_featured
from tests.support.heists import (
    age_checked_client,
    crew_costs,
    legal_plan,
    play_out,
    post,
    seal,
    start,
)
from tests.support.worker import forget_workers

pytestmark = pytest.mark.django_db

LABELS = {"best", "good", "inaccuracy", "mistake", "blunder"}


@pytest.fixture(autouse=True)
def _no_fallback_debrief(settings):
    # No worker here: the debrief stays pending unless a test computes it or opens the fallback.
    settings.DEBRIEF_FALLBACK_SECONDS = 600


def debrief_of(client, heist_id):
    return client.get(f"/api/v1/heists/{heist_id}/debrief/")


def finished(client, *, seed=3, **body):
    return play_out(client, start(client, **body), seed=seed)


def test_pending_with_retry_after_until_stored_then_ready(guest):
    view = finished(guest, rival="the-reader", difficulty="kingpin")
    response = debrief_of(guest, view["id"])
    assert response.status_code == 202
    assert response.json() == {"status": "pending"}
    assert response["Retry-After"] == "2"
    assert debrief_compute(heist_id=view["id"]) is True
    assert debrief_compute(heist_id=view["id"]) is False  # computed once, kept
    body = debrief_of(guest, view["id"]).json()
    assert body["status"] == "ready"
    assert 0 <= body["accuracy"] <= 100
    assert [n["night"] for n in body["nights"]] == [1, 2, 3, 4, 5, 6]
    assert {n["label"] for n in body["nights"]} <= LABELS
    assert all(n["loot_lost"] >= 0 for n in body["nights"])
    assert [n["measure"] for n in body["nights"]] == ["loot"] * 4 + ["win"] * 2
    # Each night's plan is the one the player sealed (by crew type and vault).
    for n, result in zip(body["nights"], view["history"], strict=True):
        sealed = sorted((c["crew"], c["vault"]) for c in result["you"]["crew"])
        assert sorted((c["crew"], c["vault"]) for c in n["yours"]["crew"]) == sealed
        assert n["yours"]["boost"] == result["you"]["boost"]
        assert n["why"]
    tp = body["turning_point"]
    assert 1 <= tp["night"] <= 6 and tp["text"].startswith(f"Night {tp['night']}: ")
    assert len(body["grid"]) == 6
    stored = HeistDebrief.objects.get(heist_id=view["id"])
    assert stored.accuracy == body["accuracy"]


def test_the_fallback_works_it_out_when_no_worker_did(guest, settings):
    forget_workers()  # no debrief worker alive (tests/game/test_debrief_fallback.py: with one)
    view = finished(guest)
    assert debrief_of(guest, view["id"]).status_code == 202
    settings.DEBRIEF_FALLBACK_SECONDS = 0
    response = debrief_of(guest, view["id"])
    assert response.status_code == 200 and response.json()["status"] == "ready"


def test_before_the_end_and_for_anyone_else(guest):
    view = start(guest)
    response = debrief_of(guest, view["id"])
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "heist_active"
    retry = post(guest, f"/api/v1/heists/{view['id']}/retry/", {"night": 1})
    assert retry.status_code == 409 and retry.json()["error"]["code"] == "heist_active"
    view = play_out(guest, view)
    debrief_compute(heist_id=view["id"])
    other = age_checked_client()
    # Another browser: the same 404 as no heist at all, for the debrief and the retry.
    assert debrief_of(other, view["id"]).status_code == 404
    assert debrief_of(other, view["id"]).json()["error"]["code"] == "not_found"
    assert post(other, f"/api/v1/heists/{view['id']}/retry/", {"night": 2}).status_code == 404
    assert debrief_of(other, "not-a-heist").status_code == 404


def test_an_abandoned_heist_has_no_debrief_nor_retries(guest):
    view = start(guest)
    Heist.objects.filter(pk=view["id"]).update(
        status=Heist.Status.ABANDONED, finished_at=dt.datetime.now(dt.UTC)
    )
    assert debrief_of(guest, view["id"]).json()["error"]["code"] == "heist_abandoned"
    retry = post(guest, f"/api/v1/heists/{view['id']}/retry/", {"night": 1})
    assert retry.json()["error"]["code"] == "heist_abandoned"


def without_randomness(view):
    """A heist view less what differs between two heists of one position: its id, the rival's
    commitment to this night's plan (a fresh nonce) and what a retry says of itself."""
    out = json.loads(json.dumps(view))
    out.pop("id")
    out.pop("practice_of")
    out["rival"].pop("commitment")
    return out


def without_nonce(result):
    """A night's result less the rival's nonce and commitment (fresh in every heist)."""
    out = json.loads(json.dumps(result))
    out["rival"].pop("nonce")
    out["rival"].pop("commitment")
    return out


def play_recording(client, view, *, seed):
    """Play the heist out as the board does, keeping its view at the start of each night (once
    the rival has sealed)."""
    import random

    rng = random.Random(seed)
    costs = crew_costs()
    views = {}
    while view["status"] == "active":
        view = client.get(f"/api/v1/heists/{view['id']}/").json()
        views[view["night"]] = view
        response = seal(client, view["id"], legal_plan(view, rng, costs))
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    return view, views


@pytest.mark.parametrize("night", [1, 4, 6])
def test_a_retry_starts_from_exactly_that_nights_position(player, night):
    user, client = player
    first, views = play_recording(
        client, start(client, rival="quiet-hands", difficulty="safecracker"), seed=night
    )
    response = post(client, f"/api/v1/heists/{first['id']}/retry/", {"night": night})
    assert response.status_code == 201, response.content
    retry = response.json()
    assert retry["practice_of"] == {
        "heist": first["id"],
        "night": night,
        "then": {
            "outcome": first["result"]["outcome"],
            "you": first["result"]["you"],
            "rival": first["result"]["rival"],
        },
        "compared": None,
    }
    assert retry["ranked"] is False and retry["featured"] is None
    view = client.get(f"/api/v1/heists/{retry['id']}/").json()
    assert view["phase"] == "planning"
    assert without_randomness(view) == without_randomness(views[night])
    # The rival's random stream too: the plan sealed that night the first time meets the same
    # rival plan, and the night turns out the same (the rival's fresh nonce aside).
    then = first["history"][night - 1]
    balance = wallet_balance(user=user)
    again = seal(
        client,
        retry["id"],
        {
            "night": night,
            "crew": [{"card": c["card"], "vault": c["vault"]} for c in then["you"]["crew"]],
            "boost": then["you"]["boost"],
        },
    )
    assert again.status_code == 200, again.content
    assert without_nonce(again.json()["result"]) == without_nonce(then)
    # Played to the end: never earns, and it says how it went against the first time.
    end, _ = play_recording(client, again.json()["heist"], seed=99)
    assert end["result"]["signs_awarded"] is None
    assert Heist.objects.get(pk=end["id"]).signs_reason == "practice"
    assert wallet_balance(user=user) == balance
    said = end["practice_of"]["compared"]
    assert said.startswith(f"Trying night {night} again, you finished ")
    assert f"the first time, {first['result']['you']} to {first['result']['rival']}" in said
    # Its replay record verifies offline like any heist's.
    record = client.get(f"/api/v1/heists/{end['id']}/replay/").json()
    assert record["start"]["night"] == night
    assert [n["night"] for n in record["nights"]] == list(range(night, 7))
    assert_verifies(record)


def assert_verifies(record, tmp=None):
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(record, fh)
    done = subprocess.run(
        [sys.executable, "-m", "game.engine.replay", fh.name], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK")


def test_a_retry_of_a_retry_and_nights_it_did_not_play(guest):
    first = finished(guest)
    retry = post(guest, f"/api/v1/heists/{first['id']}/retry/", {"night": 3}).json()
    again = play_out(guest, retry, seed=5)
    bad = post(guest, f"/api/v1/heists/{again['id']}/retry/", {"night": 2})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_night"
    ok = post(guest, f"/api/v1/heists/{again['id']}/retry/", {"night": 5})
    assert ok.status_code == 201 and ok.json()["practice_of"]["night"] == 5
    for body in ({"night": 0}, {"night": 7}, {"night": "x"}, {}):
        response = post(guest, f"/api/v1/heists/{first['id']}/retry/", body)
        assert response.status_code == 400, body


def test_a_practice_heist_is_debriefed_from_its_own_nights(guest):
    first = finished(guest)
    retry = play_out(
        guest, post(guest, f"/api/v1/heists/{first['id']}/retry/", {"night": 4}).json(), seed=8
    )
    assert debrief_compute(heist_id=retry["id"]) is True
    body = debrief_of(guest, retry["id"]).json()
    assert [n["night"] for n in body["nights"]] == [4, 5, 6]


@pytest.fixture
def clock(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True) as traveller:
        yield traveller


def test_a_featured_heist_waits_for_its_slot_to_close(clock, player):
    # The clock first: a player signed in before it moved months ahead would find the session
    # expired where the session store reads the moved clock (the database, on SQLite).
    featured_services.featured_reconcile()
    slot = FeaturedSlot.objects.get(starts_at=T0)
    _, client = player
    view = play_out(client, start_featured(client, slot.slug))
    debrief_compute(heist_id=view["id"])
    # Practice heists of the open slot (a player's after the ranked try, a guest's) wait too.
    guest = age_checked_client()
    practice = [
        (who, play_out(who, start_featured(who, slot.slug), seed=4)) for who in (client, guest)
    ]
    assert [p["ranked"] for _, p in practice] == [False, False]
    for who, heist in [(client, view), *practice]:
        for response in (
            debrief_of(who, heist["id"]),
            post(who, f"/api/v1/heists/{heist['id']}/retry/", {"night": 2}),
        ):
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "slot_open"
            assert slot.server_seed not in response.content.decode()
        # The pages say so and offer no retry; their retry button's address refuses too.
        result = who.get(f"/heists/{heist['id']}/result/").content.decode()
        assert f"/heists/{heist['id']}/retry/" not in result
        refused = who.post(f"/heists/{heist['id']}/retry/", {"night": "2"})
        assert refused.status_code == 302 and refused["Location"].endswith("/result/")
    assert not Heist.objects.filter(practice_of__isnull=False).exists()
    clock.move_to(slot.ends_at + dt.timedelta(seconds=30))
    featured_services.featured_reconcile()
    assert debrief_of(client, view["id"]).status_code == 200
    retry = post(client, f"/api/v1/heists/{view['id']}/retry/", {"night": 2})
    assert retry.status_code == 201
    # A practice retry of a slot's heist is no featured heist: never ranked, never on a board.
    assert retry.json()["featured"] is None and retry.json()["ranked"] is False


def test_a_debrief_is_worked_out_in_a_thread_that_yields_the_cores(settings):
    import os
    import threading

    from game.services.debriefs import at_low_priority

    settings.DEBRIEF_NICE = 10
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def work():
        return threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    tid, nice = at_low_priority(work)
    assert tid != threading.get_native_id()
    assert nice == max(10, mine)
    # The caller's own priority is untouched, and an error reaches the caller.
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
    with pytest.raises(ZeroDivisionError):
        at_low_priority(lambda: 1 / 0)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle policy")
def test_the_debrief_workers_thread_runs_under_the_idle_policy_the_webs_does_not(settings):
    """The debrief worker's task: a woken request takes the core from it at once (SCHED_IDLE),
    not after the debrief's time slice, and the worker's own thread keeps its policy. The web's
    fallback keeps the normal policy (its thread shares the GIL with request threads)."""
    import threading

    from game.services.debriefs import at_low_priority

    def policy():
        return os.sched_getscheduler(threading.get_native_id())

    settings.DEBRIEF_NICE = 10
    mine = policy()
    assert mine != os.SCHED_IDLE
    assert at_low_priority(policy, idle=True) == os.SCHED_IDLE
    assert policy() == mine
    assert at_low_priority(policy) == mine
    # DEBRIEF_NICE=0 turns the lowering off, the policy with it.
    settings.DEBRIEF_NICE = 0
    assert at_low_priority(policy, idle=True) == mine


def test_the_debrief_task_asks_for_the_idle_policy_the_web_fallback_does_not(guest, monkeypatch):
    from game.services import debriefs

    asked = []
    real = debriefs.at_low_priority

    def spy(work, *, idle=False):
        asked.append(idle)
        return real(work, idle=idle)

    monkeypatch.setattr(debriefs, "at_low_priority", spy)
    by_task, by_web = finished(guest, seed=3), finished(guest, seed=4)
    assert debrief_compute(heist_id=by_task["id"], by="task") is True
    assert debrief_compute(heist_id=by_web["id"], by="web") is True
    assert asked == [True, False]
