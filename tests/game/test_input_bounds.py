"""Numbers and lists from a client are bounded before anything is built from them (issue 17,
finding 1): the deck page's counts, the picker's fields, the seal's night and card ids."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from django.test import Client

from game.engine.rules import get_ruleset
from game.views import SESSION_DECK
from tests.support.heists import post, start

pytestmark = pytest.mark.django_db


def _counts(**overrides) -> dict[str, str]:
    counts = {f"count-{slug}": "0" for slug in get_ruleset().crew}
    counts.update({f"count-{slug.replace('_', '-')}": str(n) for slug, n in overrides.items()})
    return counts


def _peak_bytes(client: Client, data: dict) -> tuple[int, int]:
    gc.collect()
    tracemalloc.start()
    try:
        response = client.post("/deck/", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return response.status_code, peak


def test_deck_page_memory_does_not_grow_with_the_count_sent():
    client = Client()
    client.get("/deck/")  # warm up: templates, the catalogue, the session
    small_status, small = _peak_bytes(client, {**_counts(spark=5), "action": "save"})
    huge_status, huge = _peak_bytes(client, {**_counts(spark=50_000_000), "action": "save"})
    assert small_status == huge_status == 400
    # A list of 50 million references alone is 400 MB; the page must not build anything from
    # the number, so both posts peak alike (a page render is well under a few MB).
    assert huge < small + 2_000_000, (small, huge)
    assert client.session.get(SESSION_DECK) is None


@pytest.mark.parametrize(
    "value", ["9" * 4000, "-3", "1e9", "0x10", "3.0", " 1 1", "٣", "99999999999999999999"]
)
def test_deck_page_refuses_a_count_out_of_bounds_with_a_reason(value):
    client = Client()
    for action in ("save", "add:spark", "remove:spark"):
        page = client.post("/deck/", {**_counts(spark=value), "action": action})
        assert page.status_code == 400, (value, action)
        html = page.content.decode()
        assert "Spark" in html and ("whole number from 0 to 2" in html or "At most 2" in html)
        assert value not in html or len(value) < 4
    assert client.session.get(SESSION_DECK) is None


def test_deck_page_still_resets_from_a_starter_after_a_bad_count():
    client = Client()
    page = client.post("/deck/", {**_counts(spark="9" * 50), "action": "starter:starter"})
    assert page.status_code == 200
    assert "Ready" in page.content.decode() or 'id="deck-total">12<' in page.content.decode()


def test_picker_cuts_a_rematch_deck_and_long_fields_before_using_them(guest):
    huge = ",".join(["spark"] * 200_000)
    page = guest.post("/play/", {"rival": "furnace", "difficulty": "rookie", "deck_cards": huge})
    assert page.status_code == 400
    assert len(page.content) < 200_000
    long_rival = "x" * 100_000
    page = guest.post("/play/", {"rival": long_rival, "difficulty": "rookie"})
    assert page.status_code == 400
    assert long_rival not in page.content.decode()


def test_seal_refuses_huge_night_and_card_numbers_as_invalid_input(guest):
    view = start(guest)
    guest.get(f"/api/v1/heists/{view['id']}/")
    for body in (
        {"night": 10**40, "crew": [], "boost": False},
        {"night": 1, "crew": [{"card": 10**40, "vault": "crown-vault"}], "boost": False},
        {"night": 1, "crew": [{"card": -1, "vault": "crown-vault"}], "boost": False},
    ):
        answer = post(guest, f"/api/v1/heists/{view['id']}/seal/", body)
        assert answer.status_code == 400, answer.content
        assert answer.json()["error"]["code"] == "invalid_input"
