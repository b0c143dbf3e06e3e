"""The server-rendered pages: home, the rival picker, the Heist board deck builder, the heist
board frame, the result and the replay (the browser-driven checks are in tests/e2e)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from game.engine.rules import get_ruleset
from game.presenters.words import encounter_lines
from game.services.catalogue import catalogue_load
from game.views import SESSION_DECK
from tests.support.heists import STARTER_SLUGS, make_player, post, start

pytestmark = pytest.mark.django_db


def _finish(client: Client, heist_id: str) -> None:
    for _ in range(6):
        view = client.get(f"/api/v1/heists/{heist_id}/").json()
        if view["status"] != "active":
            return
        answer = post(
            client,
            f"/api/v1/heists/{heist_id}/seal/",
            {"night": view["night"], "crew": [], "boost": False},
        )
        assert answer.status_code == 200, answer.content


def test_home_says_what_it_is_and_links_to_play():
    catalogue_load()
    page = Client().get("/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "heist card duel" in html
    assert 'href="/play/"' in html
    assert "Mirror Courier" in html


def test_the_picker_sends_an_unchecked_guest_to_the_age_screen():
    page = Client().get("/play/")
    assert page.status_code == 302
    assert page["Location"] == "/age-check/?next=%2Fplay%2F"


def test_the_picker_lists_rivals_difficulties_and_encounters_in_full(guest):
    html = guest.get("/play/").content.decode()
    for name in ("The Furnace", "Quiet Hands", "Rookie", "Hustler", "Safecracker", "Kingpin"):
        assert name in html
    # Modifiers disclosed in full, as sentences.
    assert "Signal Tower is closed on nights 1 and 2: no crew may be sent there." in html
    assert "The rival starts at Heat 3 (Energy 2)." in html


def test_start_from_the_picker_opens_the_board(guest):
    answer = guest.post(
        "/play/", {"rival": "the-reader", "difficulty": "kingpin", "deck": "live-wire"}
    )
    assert answer.status_code == 302
    board = guest.get(answer["Location"])
    assert board.status_code == 200
    html = board.content.decode()
    assert 'id="board"' in html and "board.js" in html
    # The board's data, at the address the page names (cached: it names its content).
    data = guest.get(board.context["rules_url"])
    assert data.status_code == 200 and "immutable" in data["Cache-Control"]
    rules = json.loads(data.content)
    # The board reads the heist's own ruleset (2026.12): every crew type of it, base and Night
    # Market, no more, no fewer, with the Night Market words as said of the rival's own crew.
    ruleset = get_ruleset()
    assert rules["version"] == ruleset.version
    assert rules["max_crew"] == 2 and list(rules["crew"]) == list(ruleset.crew)
    assert rules["rival_reasons"]["lone-wolf: you sent 1 crew"] == "it sent 1 crew"


def test_an_unknown_rival_is_explained_not_a_crash(guest):
    answer = guest.post("/play/", {"rival": "nobody", "difficulty": "rookie"})
    assert answer.status_code == 400
    assert "nobody" in answer.content.decode()


def test_another_players_heist_is_not_found(guest):
    view = start(guest)
    _, other = make_player("other@example.com")
    assert other.get(f"/heists/{view['id']}/").status_code == 404
    assert other.get(f"/heists/{view['id']}/replay/").status_code == 404


def test_result_and_replay_of_a_finished_heist(guest):
    view = start(guest)
    assert guest.get(f"/heists/{view['id']}/result/").status_code == 302  # not over yet
    _finish(guest, view["id"])
    assert guest.get(f"/heists/{view['id']}/")["Location"].endswith("/result/")
    html = guest.get(f"/heists/{view['id']}/result/").content.decode()
    assert "Final score" in html and "Rematch" in html and "sign in" in html
    replay = guest.get(f"/heists/{view['id']}/replay/?night=6").content.decode()
    assert "night 6 of 6" in replay
    assert "Back to the result" in replay


def test_signed_in_player_sees_signs_on_the_result():
    _, client = make_player()
    view = start(client)
    _finish(client, view["id"])
    awarded = client.get(f"/api/v1/heists/{view['id']}/").json()["result"]["signs_awarded"]
    html = client.get(f"/heists/{view['id']}/result/").content.decode()
    # The line for what the server decided, not just any "Sign" (the page always says "Sign out").
    if awarded is None:
        expected = "No Signs were awarded for this heist."
    else:
        expected = f"You earned {awarded} Sign{'' if awarded == 1 else 's'} for this heist."
        # And the ledger's line for it, by reason.
        line = rf'<li data-amount="{awarded}"><span class="signs-amount">\+{awarded}</span> '
        assert re.search(line + r"(Won|Drew|Lost) at \w+</li>", html)
    assert expected in html
    assert "sign in to earn" not in html.lower()


def test_deck_builder_refuses_a_third_copy_and_a_thirteenth_card_without_js():
    client = Client()
    counts = {f"count-{slug}": 0 for slug in get_ruleset().crew}
    counts["count-spark"] = 2
    page = client.post("/deck/", {**counts, "action": "add:spark"})
    assert "At most 2 copies of Spark." in page.content.decode()
    twelve = {f"count-{slug}": STARTER_SLUGS.count(slug) for slug in get_ruleset().crew}
    page = client.post("/deck/", {**twelve, "action": "add:watcher"})
    assert "Your deck already has 12 cards" in page.content.decode()
    assert client.session.get(SESSION_DECK) is None


def test_deck_builder_saves_a_legal_deck_in_the_session():
    client = Client()
    twelve = {f"count-{slug}": STARTER_SLUGS.count(slug) for slug in get_ruleset().crew}
    assert client.post("/deck/", {**twelve, "action": "save"}).status_code == 302
    assert sorted(client.session[SESSION_DECK]) == sorted(STARTER_SLUGS)
    short = dict(twelve, **{"count-spark": 0})
    page = client.post("/deck/", {**short, "action": "save"})
    assert page.status_code == 400
    assert "Add 1 more card to make 12." in page.content.decode()


def test_describe_modifiers_in_words():
    rules = get_ruleset()
    lines = encounter_lines(
        {
            "start_heat": {"player": 2},
            "vault_mods": [
                {"vault": "crown-vault", "nights": [6], "kind": "double", "amount": 0},
                {"vault": "memory-archive", "nights": [4, 5, 6], "kind": "fixed", "amount": 2},
                {"vault": "signal-tower", "nights": [1, 3], "kind": "raise", "amount": 1},
            ],
        },
        rules,
    )
    assert lines == [
        "You start at Heat 2 (Energy 2).",
        "Crown Vault: loot is doubled on night 6.",
        "Memory Archive: loot is fixed at 2 on nights 4 to 6.",
        "Signal Tower: loot is raised by 1 on nights 1 and 3.",
    ]
