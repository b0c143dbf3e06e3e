"""Every error code of DESIGN.md section 5 (and the ones this API adds), each produced by a
request that should produce it, with the heist unchanged after every refused request."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.test import Client

from game.engine import get_ruleset
from game.models import Heist, HeistNight
from tests.support.heists import age_checked_client, make_player, play_out, post, seal, start

pytestmark = [pytest.mark.django_db]

COSTS = {slug: crew.cost for slug, crew in get_ruleset().crew.items()}
# At most two cost-1 cards: with the "overtime" encounter (Heat 2, so 2 Energy) the two most
# expensive cards of any hand cost 3 or more.
HEAVY_DECK = [
    "ghost-locksmith", "ghost-locksmith", "rooftop-runner", "rooftop-runner",
    "signal-thief", "signal-thief", "conductor", "conductor", "watcher", "watcher",
    "mirror-courier", "mirror-courier",
]  # fmt: skip
# Only cost-1 cards that never cool, plus two Ghost Locksmiths: Boost every night climbs Heat.
HOT_DECK = [
    "spark", "spark", "capacitor", "capacitor", "mirror-courier", "mirror-courier",
    "paper-decoy", "paper-decoy", "borrowed-face", "borrowed-face",
    "ghost-locksmith", "ghost-locksmith",
]  # fmt: skip


def snapshot(heist_id: str) -> dict:
    """Everything stored about a heist, to show a refused request changed nothing."""
    heist = Heist.objects.get(pk=heist_id)
    return {
        "heist": model_to_dict(heist),
        "last_activity_at": heist.last_activity_at,
        "nights": [model_to_dict(n) for n in HeistNight.objects.filter(heist=heist)],
    }


def refused(client: Client, method: str, path: str, body: dict | None, status: int, code: str):
    response = post(client, path, body) if method == "post" else client.get(path)
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    return error


def seal_refused(client, view, body, status, code):
    heist_id = view["id"]
    before = snapshot(heist_id)
    error = refused(client, "post", f"/api/v1/heists/{heist_id}/seal/", body, status, code)
    assert snapshot(heist_id) == before
    return error


def _hand(view):
    return view["you"]["hand"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"night": 1, "crew": [{"card": 99, "vault": "crown-vault"}]}, "card_not_in_hand"),
        ({"night": 1, "crew": [], "boost": True}, "boost_without_crew"),
        ({"night": 1, "crew": [{"card": "HAND0", "vault": "bank"}]}, "unknown_vault"),
        (
            {
                "night": 1,
                "crew": [
                    {"card": "HAND0", "vault": "crown-vault"},
                    {"card": "HAND0", "vault": "signal-tower"},
                ],
            },
            "duplicate_card",
        ),
        (
            {
                "night": 1,
                "crew": [
                    {"card": "HAND0", "vault": "crown-vault"},
                    {"card": "HAND1", "vault": "crown-vault"},
                    {"card": "HAND2", "vault": "crown-vault"},
                ],
            },
            "too_many_crew",
        ),
        ({"night": 2, "crew": []}, "wrong_night"),
        ({"night": 0, "crew": []}, "invalid_input"),
        ({"crew": []}, "invalid_input"),
        ({"night": 1, "crew": [{"card": "x", "vault": "crown-vault"}]}, "invalid_input"),
    ],
)
def test_plan_errors(guest, body, code):
    view = start(guest)
    hand = [c["card"] for c in _hand(view)]
    for entry in body.get("crew", []):
        if isinstance(entry["card"], str) and entry["card"].startswith("HAND"):
            entry["card"] = hand[int(entry["card"][4:])]
    status = 409 if code == "wrong_night" else 400
    error = seal_refused(guest, view, body, status, code)
    if code == "invalid_input":
        assert error["fields"]


def test_vault_closed(guest):
    view = start(guest, encounter="tower-blackout")
    card = _hand(view)[0]["card"]
    body = {"night": 1, "crew": [{"card": card, "vault": "signal-tower"}]}
    seal_refused(guest, view, body, 400, "vault_closed")


def test_over_energy(guest):
    view = start(guest, deck=HEAVY_DECK, encounter="overtime")
    assert view["you"]["energy"] == 2
    cards = sorted(_hand(view), key=lambda c: COSTS[c["crew"]])[-2:]
    assert sum(COSTS[c["crew"]] for c in cards) > 2
    body = {"night": 1, "crew": [{"card": c["card"], "vault": "crown-vault"} for c in cards]}
    seal_refused(guest, view, body, 400, "over_energy")


def test_boost_locked(guest):
    view = start(guest, deck=HOT_DECK, encounter="overtime")
    for night in (1, 2):
        card = min(_hand(view), key=lambda c: COSTS[c["crew"]])
        body = {"night": night, "crew": [{"card": card["card"], "vault": "crown-vault"}]}
        response = seal(guest, view["id"], {**body, "boost": True})
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    assert view["you"]["heat"] == 6
    card = min(_hand(view), key=lambda c: COSTS[c["crew"]])
    body = {"night": 3, "crew": [{"card": card["card"], "vault": "crown-vault"}], "boost": True}
    seal_refused(guest, view, body, 400, "boost_locked")


def test_rival_not_sealed_until_the_view_has_sealed_it(guest, monkeypatch):
    view = start(guest)
    # Before anyone sealed the rival's night, the seal is refused at once.
    seal_refused(guest, view, {"night": 1, "crew": []}, 409, "rival_not_sealed")

    def broken_policy(*args, **kwargs):
        raise RuntimeError("the rival's policy is down")

    # A view whose fallback fails still answers, and the seal is still refused.
    monkeypatch.setattr("game.services.rivals.choose_plan", broken_policy)
    assert guest.get(f"/api/v1/heists/{view['id']}/").json()["phase"] == "rival_planning"
    seal_refused(guest, view, {"night": 1, "crew": []}, 409, "rival_not_sealed")
    monkeypatch.undo()
    # Once the policy answers again, the board's next read seals it and the seal goes through.
    response = seal(guest, view["id"], {"night": 1, "crew": []})
    assert response.status_code == 200


def test_a_seal_never_waits_for_the_rival_nor_seals_it(guest, settings, monkeypatch):
    """DESIGN.md section 3, step 5: while the rival has not sealed, the seal route answers 409
    at once. A spy stands in for every way a request could wait (no sleep may be called), and
    the route leaves the rival's night to the worker and the view even once it is overdue."""
    from datetime import timedelta

    from django.utils import timezone

    settings.RIVAL_FALLBACK_SECONDS = 30
    waits = []

    def spy(seconds):
        waits.append(seconds)
        raise AssertionError(f"a request slept for {seconds} s")

    monkeypatch.setattr("time.sleep", spy)
    view = start(guest)
    seal_refused(guest, view, {"night": 1, "crew": []}, 409, "rival_not_sealed")
    night = HeistNight.objects.filter(heist_id=view["id"], night=1)
    night.update(started_at=timezone.now() - timedelta(seconds=31))
    seal_refused(guest, view, {"night": 1, "crew": []}, 409, "rival_not_sealed")
    assert night.get().rival_commitment is None  # the seal route did not seal the rival
    assert waits == []
    # The board's next read of the overdue night seals it; then the seal plays the night.
    shown = guest.get(f"/api/v1/heists/{view['id']}/").json()["rival"]["commitment"]
    assert shown == night.get().rival_commitment
    response = post(guest, f"/api/v1/heists/{view['id']}/seal/", {"night": 1, "crew": []})
    assert response.status_code == 200, response.content
    assert response.json()["result"]["rival"]["commitment"] == shown
    assert waits == []


def test_heist_finished_and_replay_before_the_end(guest):
    view = start(guest)
    refused(guest, "get", f"/api/v1/heists/{view['id']}/replay/", None, 409, "heist_not_finished")
    view = play_out(guest, view, seed=3)
    seal_refused(guest, view, {"night": 6, "crew": []}, 409, "heist_finished")
    seal_refused(guest, view, {"night": 7, "crew": []}, 409, "heist_finished")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"rival": "nobody"}, "unknown_rival"),
        ({"difficulty": "godlike"}, "unknown_difficulty"),
        ({"encounter": "moon-base"}, "unknown_encounter"),
        ({"deck": ["spark"] * 12}, "deck_too_many_copies"),
        ({"deck": ["spark"]}, "deck_wrong_size"),
        ({"deck": ["spark", "spark", *HOT_DECK[2:11], "teleporter"]}, "deck_unknown_card"),
        ({"client_seed": "x" * 65}, "invalid_input"),
        ({"rival": None}, "invalid_input"),
    ],
)
def test_start_errors(guest, body, code):
    body = {"rival": "furnace", "difficulty": "rookie", **body}
    refused(guest, "post", "/api/v1/heists/", body, 400, code)
    assert Heist.objects.count() == 0


def test_age_check_required_on_every_heist_route(guest):
    view = start(guest)
    heist_id = view["id"]
    before = snapshot(heist_id)
    stranger = Client()
    for method, path, body in [
        ("post", "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}),
        ("get", f"/api/v1/heists/{heist_id}/", None),
        ("post", f"/api/v1/heists/{heist_id}/seal/", {"night": 1, "crew": []}),
        ("get", f"/api/v1/heists/{heist_id}/replay/", None),
    ]:
        refused(stranger, method, path, body, 403, "age_check_required")
    assert snapshot(heist_id) == before
    assert Heist.objects.count() == 1
    # The catalogue stays public.
    for path in ("/api/v1/crew/", "/api/v1/rivals/", "/api/v1/encounters/", "/api/v1/decks/"):
        assert stranger.get(path).status_code == 200


def test_another_players_heist_is_404_on_every_route(guest):
    mine = start(guest)
    finished = play_out(guest, start(guest), seed=4)
    _, player = make_player("someone@example.com")
    other_guest = age_checked_client()
    for heist_id in (mine["id"], finished["id"]):
        before = snapshot(heist_id)
        for client in (other_guest, player):
            for method, path, body in [
                ("get", f"/api/v1/heists/{heist_id}/", None),
                ("post", f"/api/v1/heists/{heist_id}/seal/", {"night": 1, "crew": []}),
                ("get", f"/api/v1/heists/{heist_id}/replay/", None),
            ]:
                refused(client, method, path, body, 404, "not_found")
        assert snapshot(heist_id) == before
    for bad in ("not-a-uuid", "00000000-0000-0000-0000-000000000000"):
        refused(guest, "get", f"/api/v1/heists/{bad}/", None, 404, "not_found")


def test_a_players_heist_is_404_for_a_guest_and_another_player(player):
    _user, client = player
    view = start(client)
    _, other = make_player("other@example.com")
    for stranger in (other, age_checked_client()):
        refused(stranger, "get", f"/api/v1/heists/{view['id']}/", None, 404, "not_found")
    assert client.get(f"/api/v1/heists/{view['id']}/").status_code == 200


def test_unsafe_heist_routes_need_the_csrf_token_even_for_guests(guest):
    view = start(guest)
    strict = Client(enforce_csrf_checks=True)
    strict.cookies.load({k: m.value for k, m in guest.cookies.items()})
    before = snapshot(view["id"])
    for path, body in [
        ("/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}),
        (f"/api/v1/heists/{view['id']}/seal/", {"night": 1, "crew": []}),
    ]:
        assert post(strict, path, body).status_code == 403
    assert snapshot(view["id"]) == before and Heist.objects.count() == 1
    # With the token (from GET /api/v1/me/), the same browser goes through.
    token = strict.get("/api/v1/me/").cookies["csrftoken"].value
    strict.get(f"/api/v1/heists/{view['id']}/")  # the board's read: the rival seals
    response = strict.post(
        f"/api/v1/heists/{view['id']}/seal/",
        {"night": 1, "crew": []},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 200, response.content
