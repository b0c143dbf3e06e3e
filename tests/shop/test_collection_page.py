"""The collection page (issue 26): every crew type as a card with its art (the base set, Night
Market crew owned, and locked ones with their price), every cosmetic owned and what is worn,
wearing and taking off from the page; a guest sees the base set and a prompt to sign in; the
header's menu and the profile link to it."""

from __future__ import annotations

import re
import uuid

import pytest

from accounts.services import profile_attest
from game.engine import get_ruleset
from shop import selectors, services
from shop.models import ShopItem
from tests.support.ledger import new_user

pytestmark = pytest.mark.django_db

RULES = get_ruleset()
BASE = [c for c in RULES.crew.values() if c.set != "night-market"]
MARKET = [c for c in RULES.crew.values() if c.set == "night-market"]


@pytest.fixture(autouse=True)
def _catalogue(db):
    services.shop_catalogue_load()


def _card(html: str, slug: str) -> str:
    found = re.search(rf'<li class="collection-card [^"]*" id="crew-{slug}".*?</li>', html, re.S)
    assert found, slug
    return found[0]


def _player_with(client, *slugs: str):
    user = new_user()
    for slug in slugs:
        item = ShopItem.objects.get(slug=slug)
        services.signs_credit(user=user, amount=item.price, reason="grant", key=f"t:{uuid.uuid4()}")
        services.item_purchase(
            user=user,
            key=uuid.uuid4().hex,
            request_hash=slug,
            item=slug,
            price=item.price,
            render=lambda data: b"{}",
        )
    client.force_login(user)
    return user


def test_a_guest_sees_the_base_set_and_a_sign_in_prompt(client):
    html = client.get("/collection/").content.decode()
    assert 'id="collection-guest"' in html and "/accounts/login/?next=/collection/" in html
    for crew in BASE:
        card = _card(html, crew.slug)
        assert crew.name in card and f'data-crew-face="{crew.slug}"' in card
        assert "Base set" in card
    for crew in MARKET:
        assert f'id="crew-{crew.slug}"' not in html
    assert f"{len(MARKET)} more crew types" in html
    assert "Cosmetics" not in html
    assert 'href="/collection/"' in html  # the header's menu


def test_a_player_sees_owned_and_locked_crew_and_the_cosmetics_worn(client):
    user = _player_with(client, "fence", "back-neon", "theme-vault")
    services.item_equip(user=user, kind="card_back", item="back-neon")
    html = client.get("/collection/").content.decode()
    assert f"<b>{len(BASE) + 1}</b> of {len(BASE) + len(MARKET)} crew types" in html
    assert "Owned" in _card(html, "fence") and 'data-state="owned"' in _card(html, "fence")
    insider = _card(html, "insider")
    assert 'data-state="locked"' in insider and "200 Signs" in insider
    assert 'href="/shop/#item-insider"' in insider
    for crew in BASE:
        assert 'data-state="base"' in _card(html, crew.slug)
    assert "Wearing: <b>Neon Alley</b>" in html
    assert "Wearing: <b>the standard board</b>" in html
    assert "Wearing: <b>no title</b>" in html
    assert 'id="item-back-neon"' in html and 'id="item-theme-vault"' in html
    assert 'id="item-back-brass"' not in html  # not owned

    # Wearing from the page comes back to it.
    worn = client.post(
        "/shop/equip/", {"kind": "board_theme", "item": "theme-vault", "back": "collection"}
    )
    assert worn.status_code == 302 and worn["Location"] == "/collection/#item-theme-vault"
    assert selectors.equipped(user)["board_theme"] == "theme-vault"
    off = client.post("/shop/equip/", {"kind": "card_back", "item": "", "back": "collection"})
    assert off["Location"] == "/collection/"
    assert selectors.equipped(user)["card_back"] is None
    html = client.get("/collection/").content.decode()
    assert "Wearing: <b>Vault Steel</b>" in html
    assert "Wearing: <b>the standard card back</b>" in html


def test_the_profile_and_the_menu_link_to_it(client):
    profile_attest(user=_player_with(client))
    page = client.get("/accounts/profile/").content.decode()
    assert page.count('href="/collection/"') == 2  # the menu and the Signs section
    here = client.get("/collection/").content.decode()
    assert re.search(r'<a href="/collection/" aria-current="page">Collection</a>', here)


@pytest.mark.parametrize(
    "item", ["\x00", "back-neon\x00", "\x00back-neon", "back-neon\x00; --", "x" * 5000]
)
def test_wear_with_an_item_that_is_no_slug_says_so_and_changes_nothing(client, item):
    """The Wear form posts its item as it stands; one holding a NUL (which PostgreSQL text
    cannot hold) or longer than any slug is an item the shop does not have, said on the page
    the form came from, as for any unknown name (it was a 500 on PostgreSQL)."""
    user = _player_with(client, "back-neon")
    services.item_equip(user=user, kind="card_back", item="back-neon")
    worn = client.post("/shop/equip/", {"kind": "card_back", "item": item, "back": "collection"})
    assert worn.status_code == 302 and worn["Location"] == "/collection/"
    assert "The shop has nothing by that name." in client.get("/collection/").content.decode()
    assert selectors.equipped(user)["card_back"] == "back-neon"
    for kind in ("card_back\x00", "\x00"):
        wrong = client.post("/shop/equip/", {"kind": kind, "item": "back-neon"})
        assert wrong.status_code == 302 and wrong["Location"] == "/shop/"
    assert selectors.equipped(user)["card_back"] == "back-neon"
