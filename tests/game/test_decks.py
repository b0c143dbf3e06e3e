"""Named saved decks for signed-in players (issue 6): the services, the JSON API under
/api/v1/decks/mine/, the Heist board page and the rival picker; guests keep their session deck."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import account_delete
from game.engine.rules import DEFAULT_VERSION, get_ruleset
from game.models import Heist, SavedDeck
from game.selectors import decks as selectors
from game.services import decks as services
from game.views import SESSION_DECK
from tests.support.heists import STARTER_SLUGS, make_player, post
from veyltak_site.exceptions import ApplicationError

pytestmark = pytest.mark.django_db

MINE = "/api/v1/decks/mine/"
WIRED = [
    "spark", "spark", "capacitor", "capacitor", "conductor", "conductor",
    "mirror-courier", "mirror-courier", "ghost-locksmith", "ghost-locksmith",
    "coolant-carrier", "coolant-carrier",
]  # fmt: skip


def _form(cards: list[str], **extra) -> dict:
    return {**{f"count-{slug}": cards.count(slug) for slug in get_ruleset().crew}, **extra}


# --- services -------------------------------------------------------------------------------


def test_save_strips_the_name_and_overwrites_the_same_name(player):
    user, _ = player
    deck, created = services.deck_save(user=user, name="  Night Shift  ", cards=STARTER_SLUGS)
    assert created and deck.name == "Night Shift" and deck.cards == STARTER_SLUGS
    assert deck.ruleset == DEFAULT_VERSION

    again, created = services.deck_save(user=user, name="Night Shift", cards=WIRED)
    assert not created and again.pk == deck.pk
    assert SavedDeck.objects.get(pk=deck.pk).cards == WIRED
    assert SavedDeck.objects.filter(user=user).count() == 1
    assert again.updated_at >= deck.created_at


@pytest.mark.parametrize(
    ("cards", "code"),
    [
        (STARTER_SLUGS[:11], "deck_wrong_size"),
        (["spark"] * 3 + STARTER_SLUGS[3:], "deck_too_many_copies"),
        (["no-such-crew", *STARTER_SLUGS[1:]], "deck_unknown_card"),
    ],
)
def test_an_illegal_deck_is_refused_with_the_engines_code(player, cards, code):
    user, client = player
    with pytest.raises(ApplicationError) as refused:
        services.deck_save(user=user, name="Bad", cards=cards)
    assert refused.value.code == code and refused.value.status_code == 400
    answer = post(client, MINE, {"name": "Bad", "cards": cards})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == code
    assert "cards" in answer.json()["error"]["fields"]
    assert not SavedDeck.objects.exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 41])
def test_a_deck_name_has_1_to_40_characters(player, name):
    user, client = player
    with pytest.raises(ApplicationError) as refused:
        services.deck_save(user=user, name=name, cards=STARTER_SLUGS)
    assert refused.value.code == "deck_name_invalid"
    answer = post(client, MINE, {"name": name, "cards": STARTER_SLUGS})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "deck_name_invalid"
    services.deck_save(user=user, name="y" * 40, cards=STARTER_SLUGS)


def test_at_most_the_limit_of_saved_decks_but_overwriting_still_works(player):
    user, client = player
    for i in range(services.SAVED_DECKS_MAX):
        services.deck_save(user=user, name=f"Deck {i:02d}", cards=STARTER_SLUGS)
    with pytest.raises(ApplicationError) as refused:
        services.deck_save(user=user, name="One too many", cards=STARTER_SLUGS)
    assert refused.value.code == "deck_limit_reached" and refused.value.status_code == 409
    answer = post(client, MINE, {"name": "One too many", "cards": STARTER_SLUGS})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "deck_limit_reached"
    # Saving over an existing name is not a new deck.
    _, created = services.deck_save(user=user, name="Deck 07", cards=WIRED)
    assert not created
    assert SavedDeck.objects.filter(user=user).count() == services.SAVED_DECKS_MAX
    # The limit is per player.
    other, _ = make_player("other@example.com")
    assert services.deck_save(user=other, name="Deck 00", cards=STARTER_SLUGS)[1]


def test_delete_by_id_or_name_and_only_ones_own(player):
    user, _ = player
    other, _ = make_player("other@example.com")
    a, _ = services.deck_save(user=user, name="A", cards=STARTER_SLUGS)
    services.deck_save(user=user, name="B", cards=STARTER_SLUGS)
    theirs, _ = services.deck_save(user=other, name="A", cards=STARTER_SLUGS)
    with pytest.raises(ApplicationError) as refused:
        services.deck_delete(user=user, name_or_id=theirs.pk)
    assert refused.value.code == "not_found" and refused.value.status_code == 404
    services.deck_delete(user=user, name_or_id=a.pk)
    services.deck_delete(user=user, name_or_id="B")
    assert not SavedDeck.objects.filter(user=user).exists()
    assert SavedDeck.objects.filter(pk=theirs.pk).exists()
    with pytest.raises(ApplicationError):
        services.deck_delete(user=user, name_or_id="B")


def test_saved_decks_are_listed_by_name_and_a_guest_has_none(player):
    user, _ = player
    for name in ("delta", "Alpha", "charlie"):
        services.deck_save(user=user, name=name, cards=STARTER_SLUGS)
    assert [d.name for d in selectors.saved_decks(user=user)] == ["Alpha", "charlie", "delta"]
    from django.contrib.auth.models import AnonymousUser

    assert selectors.saved_decks(user=AnonymousUser()) == []


def test_deleting_the_account_deletes_its_saved_decks_and_export_lists_them(player):
    user, client = player
    services.deck_save(user=user, name="Keep me", cards=STARTER_SLUGS)
    exported = client.get("/accounts/export/").json()
    assert [(d["name"], d["cards"]) for d in exported["decks"]] == [("Keep me", STARTER_SLUGS)]
    assert exported["decks"][0]["ruleset"] == DEFAULT_VERSION
    account_delete(user=user)
    assert not get_user_model().objects.filter(pk=user.pk).exists()
    assert not SavedDeck.objects.exists()


# --- the JSON API ---------------------------------------------------------------------------


def test_api_lists_saves_overwrites_and_deletes(player):
    _, client = player
    assert client.get(MINE).json() == []
    created = post(client, MINE, {"name": " Live ", "cards": WIRED})
    assert created.status_code == 201, created.content
    deck = created.json()
    assert set(deck) == {"id", "name", "cards", "ruleset", "created_at", "updated_at"}
    assert deck["name"] == "Live" and deck["cards"] == WIRED
    again = post(client, MINE, {"name": "Live", "cards": STARTER_SLUGS})
    assert again.status_code == 200 and again.json()["id"] == deck["id"]
    listed = client.get(MINE).json()
    assert [(d["id"], d["cards"]) for d in listed] == [(deck["id"], STARTER_SLUGS)]
    gone = client.delete(f"{MINE}{deck['id']}/")
    assert gone.status_code == 204
    assert client.get(MINE).json() == []
    assert client.delete(f"{MINE}{deck['id']}/").status_code == 404


def test_api_another_players_deck_is_not_found_and_not_listed(player):
    _, client = player
    _, other = make_player("other@example.com")
    mine = post(client, MINE, {"name": "Mine", "cards": STARTER_SLUGS}).json()
    assert other.get(MINE).json() == []
    answer = other.delete(f"{MINE}{mine['id']}/")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    assert SavedDeck.objects.filter(pk=mine["id"]).exists()


def test_api_refuses_guests_and_checks_csrf(guest):
    answer = guest.get(MINE)
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "not_authenticated"
    assert post(guest, MINE, {"name": "x", "cards": STARTER_SLUGS}).status_code == 403
    user, _ = make_player("csrf@example.com")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert post(strict, MINE, {"name": "x", "cards": STARTER_SLUGS}).status_code == 403
    assert not SavedDeck.objects.exists()


# --- pages ----------------------------------------------------------------------------------


def test_deck_page_saves_loads_and_deletes_named_decks(player):
    user, client = player
    page = client.get("/deck/").content.decode()
    assert 'name="name"' in page and "No saved decks yet" in page

    refused = client.post("/deck/", _form(WIRED, action="save", name="  "))
    assert refused.status_code == 400
    assert "Give the deck a name" in refused.content.decode()

    saved = client.post("/deck/", _form(WIRED, action="save", name="Sparks"))
    deck = SavedDeck.objects.get(user=user, name="Sparks")
    assert saved.status_code == 302 and saved["Location"] == f"/deck/?load={deck.pk}"
    assert sorted(deck.cards) == sorted(WIRED)
    assert client.session.get(SESSION_DECK) is None  # a signed-in player's deck has a name

    loaded = client.get(saved["Location"])
    html = loaded.content.decode()
    assert "Deck “Sparks” saved." in html
    assert 'value="Sparks"' in html and f"?load={deck.pk}" in html
    assert f"/play/?deck=saved%3A{deck.pk}" in html
    assert {r["slug"]: r["count"] for r in loaded.context["crew"]}["capacitor"] == 2

    # Saving the same name again overwrites it.
    client.post("/deck/", _form(STARTER_SLUGS, action="save", name="Sparks"))
    assert sorted(SavedDeck.objects.get(pk=deck.pk).cards) == sorted(STARTER_SLUGS)

    # Illegal decks are refused with the board's reason and nothing is stored.
    bad = client.post("/deck/", _form(STARTER_SLUGS[:11], action="save", name="Short"))
    assert bad.status_code == 400 and "Add 1 more card" in bad.content.decode()
    assert not SavedDeck.objects.filter(name="Short").exists()

    deleted = client.post("/deck/", _form(WIRED, action=f"delete:{deck.pk}", name=""))
    assert deleted.status_code == 200
    assert "Deck “Sparks” deleted." in deleted.content.decode()
    assert not SavedDeck.objects.filter(pk=deck.pk).exists()
    # The board keeps what was on it.
    assert {r["slug"]: r["count"] for r in deleted.context["crew"]}["capacitor"] == 2


def test_deck_page_cannot_load_or_delete_another_players_deck(player):
    _, client = player
    other, _ = make_player("other@example.com")
    theirs, _ = services.deck_save(user=other, name="Secret plan", cards=WIRED)
    page = client.get(f"/deck/?load={theirs.pk}").content.decode()
    assert "Secret plan" not in page
    refused = client.post("/deck/", _form(STARTER_SLUGS, action=f"delete:{theirs.pk}"))
    assert refused.status_code == 400
    assert SavedDeck.objects.filter(pk=theirs.pk).exists()


def test_guests_keep_one_session_deck_and_get_no_name_field(guest):
    page = guest.get("/deck/").content.decode()
    assert 'name="name"' not in page and "Your saved decks" not in page
    saved = guest.post("/deck/", _form(WIRED, action="save", name="ignored"))
    assert saved.status_code == 302 and saved["Location"] == "/deck/"
    assert sorted(guest.session[SESSION_DECK]) == sorted(WIRED)
    assert not SavedDeck.objects.exists()


def test_picker_lists_saved_decks_and_starts_with_one(player):
    user, client = player
    services.deck_save(user=user, name="Older", cards=STARTER_SLUGS)
    newest, _ = services.deck_save(user=user, name="Wired", cards=WIRED)
    page = client.get("/play/")
    html = page.content.decode()
    assert "Older" in html and "Wired" in html and "Saved deck: 2\N{MULTIPLICATION SIGN} " in html
    assert page.context["chosen"]["deck"] == f"saved:{newest.pk}"  # the latest saved

    answer = client.post(
        "/play/", {"rival": "furnace", "difficulty": "rookie", "deck": f"saved:{newest.pk}"}
    )
    assert answer.status_code == 302, answer.content.decode()[:500]
    assert Heist.objects.get(user=user).player_deck == WIRED


def test_picker_refuses_another_players_saved_deck(player):
    _, client = player
    other, _ = make_player("other@example.com")
    theirs, _ = services.deck_save(user=other, name="Theirs", cards=WIRED)
    assert "Theirs" not in client.get("/play/").content.decode()
    answer = client.post(
        "/play/", {"rival": "furnace", "difficulty": "rookie", "deck": f"saved:{theirs.pk}"}
    )
    assert answer.status_code == 400
    assert "saved deck is not there" in answer.content.decode()
    assert not Heist.objects.exists()


def test_picker_leaves_out_a_deck_the_current_rules_refuse(player):
    user, client = player
    deck, _ = services.deck_save(user=user, name="Old rules", cards=STARTER_SLUGS)
    SavedDeck.objects.filter(pk=deck.pk).update(cards=["retired-crew", *STARTER_SLUGS[1:]])
    assert "Old rules" not in client.get("/play/").content.decode()
    page = client.get("/deck/").content.decode()
    assert "Old rules" in page and "Not legal under the current rules" in page
