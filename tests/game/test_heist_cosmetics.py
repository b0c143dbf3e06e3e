"""Cosmetics in play (DESIGN.md section 7): fixed in the heist when it starts, in the heist view
(``you.cosmetics``, ``rival.cosmetics``) and on the board page's hooks; the title beside the
player's name on the profile and on the featured leaderboard."""

from __future__ import annotations

import pytest

from game.models import Heist
from shop import services as shop_services
from tests.support.heists import make_player, start
from tests.support.shop import own_and_wear

pytestmark = pytest.mark.django_db

NONE = {"card_back": None, "board_theme": None, "title": None}


def rival_look(view: dict) -> dict:
    """What the heist's rival wears, by its own data (game/data/rival_looks.json)."""
    from game.catalogue import rival_cosmetics

    return rival_cosmetics(view["rival"]["slug"])


@pytest.fixture(autouse=True)
def _catalogue(db):
    shop_services.shop_catalogue_load()


def test_a_guest_heist_wears_nothing(guest):
    view = start(guest)
    assert view["you"]["cosmetics"] == NONE
    assert view["rival"]["cosmetics"] == rival_look(view)


def test_what_the_player_wears_is_fixed_when_the_heist_starts(db):
    user, client = make_player("dressed@example.com")
    own_and_wear(user, "back-neon", "theme-velvet", "title-ghost")
    view = start(client)
    worn = {"card_back": "back-neon", "board_theme": "theme-velvet", "title": "title-ghost"}
    assert view["you"]["cosmetics"] == worn
    assert view["rival"]["cosmetics"] == rival_look(view)
    # Taking everything off (or wearing something else) later changes no heist in play.
    for kind in ("card_back", "board_theme", "title"):
        shop_services.item_equip(user=user, kind=kind, item=None)
    again = client.get(f"/api/v1/heists/{view['id']}/").json()
    assert again["you"]["cosmetics"] == worn
    assert start(client)["you"]["cosmetics"] == NONE


def test_the_board_page_carries_the_hooks(db):
    user, client = make_player("board@example.com")
    own_and_wear(user, "back-brass", "theme-harbour")
    view = start(client)
    page = client.get(f"/heists/{view['id']}/")
    assert page.context["board_theme"] == "theme-harbour"
    assert page.context["card_back"] == {
        "you": "back-brass",
        "rival": rival_look(view)["card_back"],
    }
    plain = start(make_player("plain@example.com")[1])
    page = make_player("x@example.com")  # another player cannot see it (404), as in the API
    assert page[1].get(f"/heists/{plain['id']}/").status_code == 404


def test_every_rival_wears_its_own_card_back_from_the_shop(db):
    from game.catalogue import rival_cosmetics
    from game.rivals.personas import list_personas
    from shop.models import ShopItem

    backs = set(ShopItem.objects.filter(kind="card_back").values_list("slug", flat=True))
    worn = [rival_cosmetics(p.slug)["card_back"] for p in list_personas()]
    assert all(back in backs for back in worn), worn
    # Each rival its own, so the two sides' piles never look alike against a rival.
    assert len(set(worn)) == len(worn)
    _, client = make_player("rival-back@example.com")
    for persona in list_personas():
        view = start(client, rival=persona.slug)
        assert view["rival"]["cosmetics"]["card_back"] == rival_cosmetics(persona.slug)["card_back"]


def test_a_heist_from_before_cosmetics_wears_nothing(db):
    _, client = make_player("old@example.com")
    view = start(client)
    Heist.objects.filter(pk=view["id"]).update(cosmetics={})
    again = client.get(f"/api/v1/heists/{view['id']}/").json()
    assert again["you"]["cosmetics"] == NONE and again["rival"]["cosmetics"] == NONE
    page = client.get(f"/heists/{view['id']}/")
    assert page.context["board_theme"] == "default"
    assert page.context["card_back"] == {"you": "default", "rival": "default"}


def test_the_title_shows_beside_the_name_on_the_profile(db):
    user, client = make_player("titled@example.com")
    html = client.get("/accounts/profile/").content.decode()
    assert "player-title" not in html
    own_and_wear(user, "title-kingpin")
    html = client.get("/accounts/profile/").content.decode()
    assert (
        '<span class="player-title"><span class="visually-hidden">Title: </span>Kingpin</span>'
        in (html)
    )
