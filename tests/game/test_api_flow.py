"""Full heists through the JSON API, night by night, as a guest and as a signed-in player."""

from __future__ import annotations

import hashlib
import json

import pytest

from game.engine import get_ruleset
from game.models import Heist, HeistNight
from tests.support.heists import crew_costs, legal_plan, post, start

pytestmark = [pytest.mark.django_db]

VIEW_KEYS = {
    "id", "ruleset", "status", "night", "nights", "phase", "vaults", "you", "rival",
    "encounter", "seed_commitment", "featured", "ranked", "history", "result", "practice_of",
    "challenge",
}  # fmt: skip
YOU_KEYS = {"heat", "energy", "score", "hand", "deck_count", "discard", "deck", "cosmetics"}
RIVAL_KEYS = {
    "slug", "name", "difficulty", "heat", "energy", "score", "hand_count", "deck_count",
    "discard", "deck", "commitment", "cosmetics",
}  # fmt: skip
RESULT_KEYS = {"night", "loot", "closed", "you", "rival", "vaults", "score"}


def _check_view_shape(view: dict) -> None:
    assert set(view) == VIEW_KEYS
    assert set(view["you"]) == YOU_KEYS
    assert set(view["rival"]) == RIVAL_KEYS
    assert view["nights"] == get_ruleset().nights
    assert len(view["vaults"]) == 3
    for vault in view["vaults"]:
        assert set(vault) == {"slug", "name", "loot", "closed"}
    for entry in view["history"]:
        assert set(entry) == RESULT_KEYS
        assert set(entry["you"]) == {"heat_start", "heat_end", "boost", "crew", "heat_parts"}
        assert set(entry["rival"]) == {
            "heat_start", "heat_end", "boost", "crew", "heat_parts", "nonce", "commitment",
        }  # fmt: skip
        for vault in entry["vaults"]:
            assert set(vault) == {"slug", "you_power", "rival_power", "winner", "loot"}
            assert vault["winner"] in ("you", "rival", None)
        assert set(entry["score"]) == {"you", "rival"}
        for crew in entry["you"]["crew"]:
            assert set(crew) == {"card", "crew", "vault", "power", "breakdown"}
            assert sum(p["amount"] for p in crew["breakdown"]) == crew["power"]
        for crew in entry["rival"]["crew"]:
            assert set(crew) == {"crew", "vault", "power", "breakdown"}  # no card id
            assert sum(p["amount"] for p in crew["breakdown"]) == crew["power"]


def _play_night_by_night(client, view: dict, seed: int) -> dict:
    import random

    rng = random.Random(seed)
    costs = crew_costs()
    heist_id = view["id"]
    for night in range(1, view["nights"] + 1):
        assert view["night"] == night
        assert view["status"] == "active"
        # The player sees the rival's commitment before sealing.
        fetched = client.get(f"/api/v1/heists/{heist_id}/").json()
        _check_view_shape(fetched)
        plan = legal_plan(fetched, rng, costs)
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", plan)
        assert response.status_code == 200, response.content
        body = response.json()
        assert set(body) == {"result", "heist"}
        result = body["result"]
        assert set(result) == RESULT_KEYS
        assert result["night"] == night
        assert [c["card"] for c in result["you"]["crew"]] == sorted(c["card"] for c in plan["crew"])
        assert result["you"]["boost"] == plan["boost"]
        view = body["heist"]
        _check_view_shape(view)
        assert view["history"][-1] == result
        assert len(view["history"]) == night
    return view


def _finish_checks(client, view: dict) -> None:
    assert view["status"] == "finished"
    assert view["phase"] == "finished"
    assert view["night"] == view["nights"]
    last = view["history"][-1]["score"]
    result = view["result"]
    assert result["you"] == last["you"] and result["rival"] == last["rival"]
    you, rival = last["you"], last["rival"]
    expected = "win" if you > rival else "loss" if rival > you else "draw"
    assert result["outcome"] == expected
    # Signs for a signed-in player (DESIGN.md section 6's table), none for a guest.
    signed_in = client.get("/api/v1/me/").json()["authenticated"]
    table = {
        "rookie": {"win": 10, "draw": 5, "loss": 3},
        "hustler": {"win": 20, "draw": 10, "loss": 5},
    }
    earned = table[view["rival"]["difficulty"]][expected]
    assert result["signs_awarded"] == (earned if signed_in else None)
    heist = Heist.objects.get(pk=view["id"])
    assert heist.outcome == expected and heist.finished_at is not None
    assert HeistNight.objects.filter(heist=heist).count() == view["nights"]
    # The seal after the end is refused, and the replay is published.
    response = post(client, f"/api/v1/heists/{view['id']}/seal/", {"night": 6, "crew": []})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "heist_finished"
    replay = client.get(f"/api/v1/heists/{view['id']}/replay/")
    assert replay.status_code == 200
    record = replay.json()
    assert hashlib.sha256(record["server_seed"].encode()).hexdigest() == view["seed_commitment"]
    assert len(record["nights"]) == view["nights"]


def test_full_heist_as_guest(guest):
    view = start(guest, client_seed="my lucky seed")
    _check_view_shape(view)
    assert view["status"] == "active" and view["night"] == 1
    assert view["phase"] in ("rival_planning", "planning")
    assert view["you"]["deck"] == _starter()
    assert len(view["you"]["hand"]) == 3
    assert view["history"] == [] and view["result"] is None
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user is None and heist.guest_id
    assert heist.client_seed == "my lucky seed"
    view = _play_night_by_night(guest, view, seed=1)
    _finish_checks(guest, view)


def test_full_heist_as_signed_in_player(player):
    user, client = player
    view = start(client, rival="quiet-hands", difficulty="hustler", encounter="tower-blackout")
    assert view["rival"]["slug"] == "quiet-hands" and view["rival"]["difficulty"] == "hustler"
    assert view["encounter"]["slug"] == "tower-blackout"
    assert [v["closed"] for v in view["vaults"]] == [False, False, True]
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user == user and heist.guest_id == ""
    view = _play_night_by_night(client, view, seed=2)
    _finish_checks(client, view)


def test_custom_deck_and_ready_made_decks(guest):
    decks = guest.get("/api/v1/decks/").json()
    assert {d["slug"] for d in decks} >= {"starter", "live-wire", "shadow-play"}
    deck = next(d for d in decks if d["slug"] == "shadow-play")["deck"]
    view = start(guest, deck=deck)
    assert view["you"]["deck"] == deck


def _starter() -> list[str]:
    with open("game/data/decks.json", encoding="utf-8") as fh:
        return next(d["deck"] for d in json.load(fh)["decks"] if d["slug"] == "starter")


def test_query_counts_stay_small(guest, settings, django_assert_max_num_queries):
    """The hot routes: the view is the session, the guest's age-gate record (the verdict lives
    on the server, accounts/gate.py) and one query, and to its ETag one light query; the seal
    locks, reads and writes in a handful (a regression here shows in bench/routes.py's CPU
    per seal and bench/api.py's seal p95 first)."""
    from game.tasks import plan_rival_night

    view = start(guest)
    url = f"/api/v1/heists/{view['id']}/"
    plan_rival_night(view["id"], 1)
    with django_assert_max_num_queries(3):
        read = guest.get(url)
        assert read.status_code == 200
    # An unchanged view to its ETag (the board's polls): the gate record and one light query
    # (and the session's row where sessions are not cached: SQLite with the local cache).
    session_reads = 0 if settings.SESSION_ENGINE == "veyltak_site.sessions" else 1
    with django_assert_max_num_queries(2 + session_reads):
        assert guest.get(url, HTTP_IF_NONE_MATCH=read["ETag"]).status_code == 304
    # A seal of a night in play: the gate record, the heist and its nights under the lock,
    # the night's UPDATE, the heist's, the next night's INSERT, and the test's own savepoint
    # and its release (in production the request's transaction is BEGIN and COMMIT).
    for night in range(1, 6):
        plan_rival_night(view["id"], night)
        with django_assert_max_num_queries(7 + session_reads):
            response = post(guest, f"{url}seal/", {"night": night, "crew": []})
            assert response.status_code == 200
    # The last: the same without the next night's INSERT, the heist's UPDATE its finish (its
    # nights sealed are counted from the nights read under the lock, not asked again).
    plan_rival_night(view["id"], 6)
    with django_assert_max_num_queries(6 + session_reads):
        response = post(guest, f"{url}seal/", {"night": 6, "crew": []})
        assert response.status_code == 200


def test_the_view_seals_an_overdue_rival_night_itself(
    guest, settings, django_assert_max_num_queries
):
    """DESIGN.md section 3.5 on the view: a night older than RIVAL_FALLBACK_SECONDS that no
    worker sealed is sealed by GET /api/v1/heists/{id}/ (the board's poll); a younger one is
    left to the worker, at no extra query."""
    from datetime import timedelta

    from django.utils import timezone

    settings.RIVAL_FALLBACK_SECONDS = 30
    view = start(guest)
    url = f"/api/v1/heists/{view['id']}/"
    with django_assert_max_num_queries(3):  # the session, the gate record, the heist
        fresh = guest.get(url).json()
    assert fresh["phase"] == "rival_planning" and fresh["rival"]["commitment"] is None

    night = HeistNight.objects.filter(heist_id=view["id"], night=1)
    night.update(started_at=timezone.now() - timedelta(seconds=31))
    overdue = guest.get(url).json()
    assert overdue["phase"] == "planning"
    stored = night.get().rival_commitment
    assert stored is not None and overdue["rival"]["commitment"] == stored
    seal = post(guest, f"{url}seal/", {"night": 1, "crew": []})
    assert seal.status_code == 200, seal.content
    assert seal.json()["result"]["rival"]["commitment"] == overdue["rival"]["commitment"]
