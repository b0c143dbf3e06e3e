"""GET /api/v1/heists/{id}/preview/: the board's live power per vault, from the player's own view
only; bad input refused with a code; other players' heists the same 404."""

from __future__ import annotations

import pytest

from game.models import Heist
from tests.support.heists import age_checked_client, seal, start

pytestmark = [pytest.mark.django_db]


def _preview(client, heist_id, **params):
    return client.get(f"/api/v1/heists/{heist_id}/preview/", params)


def test_preview_answers_the_plan_and_leaks_nothing(guest):
    view = start(guest, rival="furnace", difficulty="rookie")
    card = view["you"]["hand"][0]
    vault = view["vaults"][0]["slug"]
    answer = _preview(guest, view["id"], night=1, crew=f"{card['card']}:{vault}")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert set(data) == {"night", "boost", "spent", "energy", "vaults", "tomorrow", "other_boost"}
    assert [v["slug"] for v in data["vaults"]] == [v["slug"] for v in view["vaults"]]
    first = data["vaults"][0]
    assert first["crew"][0]["card"] == card["card"]
    assert first["power"] >= 1
    assert sum(p["amount"] for p in first["crew"][0]["parts"]) == first["crew"][0]["power"]
    # Nothing of the rival's hidden state: no card of its hand, no nonce, no plan.
    heist = Heist.objects.get(pk=view["id"])
    text = answer.content.decode()
    assert "nonce" not in text and "rival" not in text.replace("the rival", "")
    night = heist.nights.get(night=1)
    if night.rival_plan:
        assert str(night.rival_plan) not in text
    # Nothing was stored: the heist still plans night 1 with the same hand.
    assert guest.get(f"/api/v1/heists/{view['id']}/").json()["you"]["hand"] == view["you"]["hand"]


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"night": 1, "crew": "nope"}, 400, "invalid_input"),
        ({"crew": ""}, 400, "invalid_input"),
        ({"night": 2, "crew": ""}, 409, "wrong_night"),
        ({"night": 1, "crew": "", "boost": "true"}, 400, "boost_without_crew"),
        ({"night": 1, "crew": "999:crown-vault"}, 400, "card_not_in_hand"),
        ({"night": 1, "crew": "0:nowhere"}, 400, "unknown_vault"),
    ],
)
def test_bad_input_is_refused_with_a_code(guest, params, status, code):
    view = start(guest, rival="furnace", difficulty="rookie")
    answer = _preview(guest, view["id"], **params)
    assert answer.status_code == status, answer.content
    assert answer.json()["error"]["code"] == code


def test_someone_elses_heist_and_a_finished_one(guest):
    view = start(guest, rival="furnace", difficulty="rookie")
    other = age_checked_client()
    assert _preview(other, view["id"], night=1).status_code == 404
    assert _preview(other, "not-a-uuid", night=1).status_code == 404
    for night in range(1, view["nights"] + 1):
        seal(guest, view["id"], {"night": night, "crew": [], "boost": False})
    answer = _preview(guest, view["id"], night=view["nights"])
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "heist_finished"
