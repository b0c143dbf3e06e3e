"""The pages around the board (issue 18): the menu's rules link, Play's Quick heist and folded
choices, "Continue your heist", the result's three looks, its rematch, next level, highlights and
share link, and the replay night by night with the technical details folded away."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from game.models import Heist
from tests.support.heists import age_checked_client, make_player, post, start

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


def _form(html: str, button: str) -> dict[str, str]:
    """The hidden fields of the form whose submit button reads ``button``."""
    for form in re.findall(r"<form\b.*?</form>", html, flags=re.S):
        if re.search(rf"<button[^>]*>{re.escape(button)}</button>", form):
            return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    raise AssertionError(f"no form with a {button!r} button")


def _before(html: str, first: str, then: str) -> bool:
    return html.index(first) < html.index(then)


def test_the_menu_links_the_rules_page():
    html = Client().get("/").content.decode()
    nav = re.search(r'<nav [^>]*aria-label="Main">.*?</nav>', html, flags=re.S)[0]
    assert 'href="/rules/"' in nav and ">Rules<" in nav
    rules = Client().get("/rules/").content.decode()
    assert re.search(r'href="/rules/" aria-current="page"', rules)


def test_quick_heist_is_on_top_and_one_post_starts_a_heist(guest):
    html = guest.get("/play/").content.decode()
    assert _before(html, ">Quick heist</button>", '<details class="more-choices setup"')
    # The choices are folded (a closed disclosure) below it.
    assert re.search(r'<details class="more-choices setup">\s*<summary>', html)
    fields = _form(html, "Quick heist")
    assert fields["rival"] and fields["difficulty"] and fields["deck"]
    assert fields["encounter"] == ""
    answer = guest.post("/play/", fields)
    assert answer.status_code == 302
    assert re.fullmatch(r"/heists/[0-9a-f-]+/", answer["Location"])
    game = Heist.objects.get()
    assert (game.rival, game.difficulty) == (fields["rival"], fields["difficulty"])


def test_the_choices_open_when_asked_for_or_after_an_error(guest):
    html = guest.get("/play/?rival=furnace").content.decode()
    assert '<details class="more-choices setup" open>' in html
    assert re.search(r'value="furnace" aria-describedby="rival-furnace-tag" checked', html)
    refused = guest.post("/play/", {"rival": "nobody", "difficulty": "rookie"})
    assert '<details class="more-choices setup" open>' in refused.content.decode()


def test_an_encounter_card_says_its_changes_once(guest):
    html = guest.get("/play/").content.decode()
    line = "Signal Tower is closed on nights 1 and 2: no crew may be sent there."
    assert html.count(line) == 1
    # Its story is on the rules page; the card does not say the same thing twice.
    assert "A storm has shut the Signal Tower" not in html


def test_continue_your_heist_on_home_and_play_while_one_is_active(guest):
    assert "Continue your heist" not in guest.get("/").content.decode()
    assert "Continue your heist" not in guest.get("/play/").content.decode()
    view = start(guest)
    board = f"/heists/{view['id']}/"
    for path in ("/", "/play/"):
        html = guest.get(path).content.decode()
        assert re.search(rf'<a class="button" href="{board}" id="continue-heist">', html), path
        assert "night 1 of 6" in html
    # Nobody else sees it, and it goes once the heist is over.
    assert "Continue your heist" not in Client().get("/").content.decode()
    assert "Continue your heist" not in age_checked_client().get("/play/").content.decode()
    _finish(guest, view["id"])
    assert "Continue your heist" not in guest.get("/").content.decode()


def test_a_visitor_with_no_session_gets_none_started_by_the_home_page():
    client = Client()
    client.get("/")
    assert not client.cookies.get("sessionid")


def _finished_as(client: Client, outcome: str, difficulty: str = "rookie") -> str:
    view = start(client, difficulty=difficulty)
    _finish(client, view["id"])
    # The page shows the outcome the server stored; set it to the state under test.
    Heist.objects.filter(pk=view["id"]).update(outcome=outcome)
    return view["id"]


@pytest.mark.parametrize(
    ("outcome", "title"), [("win", "You win"), ("loss", "The rival wins"), ("draw", "A draw")]
)
def test_win_draw_and_loss_each_look_their_own(guest, outcome, title):
    hid = _finished_as(guest, outcome)
    html = guest.get(f"/heists/{hid}/result/").content.decode()
    assert f'class="result-banner result-{outcome}"' in html
    assert re.search(rf'<h1 id="result-title" class="outcome">{title}</h1>', html)
    # One-tap Rematch in the banner at the top, before the highlights and the table.
    assert _before(html, ">Rematch</button>", 'id="highlights-title"')
    rematch = _form(html, "Rematch")
    assert rematch["difficulty"] == "rookie" and len(rematch["deck_cards"].split(",")) == 12
    assert ("Try the next level" in html) == (outcome == "win")


def test_the_next_level_after_a_win_is_one_post(guest):
    hid = _finished_as(guest, "win")
    html = guest.get(f"/heists/{hid}/result/").content.decode()
    fields = _form(html, "Try the next level")
    assert fields["difficulty"] == "hustler"
    answer = guest.post("/play/", fields)
    assert answer.status_code == 302
    assert Heist.objects.get(status="active").difficulty == "hustler"


def test_no_next_level_above_the_top_one(guest):
    hid = _finished_as(guest, "win", difficulty="kingpin")
    assert "Try the next level" not in guest.get(f"/heists/{hid}/result/").content.decode()


def test_the_result_names_the_best_night_and_the_vaults_taken(guest):
    view = start(guest)
    _finish(guest, view["id"])
    history = guest.get(f"/api/v1/heists/{view['id']}/").json()["history"]
    html = guest.get(f"/heists/{view['id']}/result/").content.decode()
    rival_vaults = sum(v["winner"] == "rival" for n in history for v in n["vaults"])
    assert re.search(rf'<span class="rival-text">The Furnace {rival_vaults}</span>', html)
    # No crew sent: no vault and no loot taken, and the page says so plainly.
    assert '<span class="you-text">You 0</span>' in html
    assert "No loot taken this time" in html


def test_a_share_link_opens_the_replay_for_anyone_holding_it(guest):
    hid = _finished_as(guest, "loss")
    html = guest.get(f"/heists/{hid}/result/").content.decode()
    link = re.search(r'id="share-link" type="text" readonly value="([^"]+)"', html)[1]
    assert link.startswith("http://testserver/heists/") and "share=" in link
    assert "I lost to The Furnace" in html
    path = link.removeprefix("http://testserver").replace("&amp;", "&")
    friend = age_checked_client()
    assert friend.get(f"/heists/{hid}/replay/").status_code == 404  # without the link
    page = friend.get(path)
    assert page.status_code == 200
    shared = page.content.decode()
    assert "A heist shared with you" in shared
    token = path.split("share=", 1)[1]
    assert f'href="?share={token}&amp;night=2" rel="next"' in shared
    # A forged or another heist's token opens nothing.
    assert friend.get(f"/heists/{hid}/replay/?share=forged").status_code == 404
    other = _finished_as(guest, "win")
    assert friend.get(f"/heists/{other}/replay/?share={token}").status_code == 404


def test_the_replay_shows_both_hands_and_folds_the_technical_details(guest):
    view = start(guest)
    hand = {c["crew"] for c in view["you"]["hand"]}
    _finish(guest, view["id"])
    html = guest.get(f"/heists/{view['id']}/replay/").content.decode()
    assert "night 1 of 6" in html
    hands = re.search(r'<div class="replay-hands">.*?</div>', html, flags=re.S)[0]
    you = re.search(r'id="hand-you-title".*?</ul>', hands, flags=re.S)[0]
    rival = re.search(r'id="hand-rival-title".*?</ul>', hands, flags=re.S)[0]
    names = {
        "ghost-locksmith": "Ghost Locksmith",
        "mirror-courier": "Mirror Courier",
        "paper-decoy": "Paper Decoy",
        "borrowed-face": "Borrowed Face",
        "coolant-carrier": "Coolant Carrier",
        "spark": "Spark",
        "conductor": "Conductor",
    }
    for slug in hand:
        assert names[slug] in you
    assert len(re.findall(r'class="mini-card( sent)?"', rival)) == view["rival"]["hand_count"]
    # Seeds, fingerprints and the command line only inside the closed disclosure.
    details = re.search(r'<details class="tech-details">.*?</details>', html, flags=re.S)[0]
    outside = html.replace(details, "")
    for jargon in ("SHA-256", "seed", "python -m game.engine.replay", "nonce", "commitment"):
        assert jargon not in outside, jargon
    assert "python -m game.engine.replay FILE.json" in details
    # Prev and Next are plain links: no JavaScript needed to step.
    assert 'href="?night=2" rel="next"' in html
    middle = guest.get(f"/heists/{view['id']}/replay/?night=3").content.decode()
    assert 'href="?night=2" rel="prev"' in middle and 'href="?night=4" rel="next"' in middle


def test_the_signed_in_players_result_and_replay_are_theirs_alone():
    _, client = make_player()
    hid = _finished_as(client, "draw")
    assert client.get(f"/heists/{hid}/result/").status_code == 200
    assert age_checked_client().get(f"/heists/{hid}/result/").status_code == 404
