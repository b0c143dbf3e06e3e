"""Personal pages and answers are never stored by a shared or a browser cache (issue 17,
finding 9): Cache-Control carries private and no-store."""

from __future__ import annotations

import pytest
from django.utils.cache import get_max_age

from tests.support.heists import make_player, post, start

pytestmark = pytest.mark.django_db


def assert_private(response, where: str) -> None:
    value = response.get("Cache-Control", "")
    tokens = {token.strip().split("=")[0] for token in value.split(",")}
    assert {"private", "no-store"} <= tokens, f"{where}: Cache-Control {value!r}"
    assert "public" not in tokens, where
    assert not get_max_age(response), where


def _finished_heist(client) -> str:
    view = start(client)
    for _ in range(10):
        view = client.get(f"/api/v1/heists/{view['id']}/").json()
        if view["status"] != "active":
            break
        post(client, f"/api/v1/heists/{view['id']}/seal/", {"night": view["night"], "crew": []})
    return view["id"]


def test_personal_pages_and_answers_are_private_no_store():
    _, client = make_player()
    live = start(client)["id"]
    done = _finished_heist(client)
    client.post(
        "/api/v1/decks/mine/",
        {"name": "Mine", "cards": start(client)["you"]["deck"]},
        content_type="application/json",
    )
    answers = {
        "profile": client.get("/accounts/profile/"),
        "export": client.get("/accounts/export/"),
        "play": client.get("/play/"),
        "deck": client.get("/deck/"),
        "board": client.get(f"/heists/{live}/"),
        "result": client.get(f"/heists/{done}/result/"),
        "replay": client.get(f"/heists/{done}/replay/"),
        "api me": client.get("/api/v1/me/"),
        "api heist": client.get(f"/api/v1/heists/{live}/"),
        "api replay": client.get(f"/api/v1/heists/{done}/replay/"),
        "api start": post(client, "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}),
        "api saved decks": client.get("/api/v1/decks/mine/"),
        "api age check": post(client, "/api/v1/age-check/", {"birth_date": "1990-01-01"}),
    }
    for where, response in answers.items():
        assert response.status_code in (200, 201), (where, response.status_code)
        assert_private(response, where)


def test_a_guests_pages_and_errors_are_private_too(guest):
    view = start(guest)
    for where, response in {
        "home": guest.get("/"),
        "board": guest.get(f"/heists/{view['id']}/"),
        "api me": guest.get("/api/v1/me/"),
        "api error": guest.get("/api/v1/heists/not-a-heist/"),
        "api unknown route": guest.get("/api/v1/nonexistent/"),
    }.items():
        assert_private(response, where)
