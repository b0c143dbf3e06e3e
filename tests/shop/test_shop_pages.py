"""The shop's pages without JavaScript: the shelf for a guest and for a player, the purchase's
confirmation (price, balance, balance after) and its form with the Idempotency-Key in a hidden
field, through the same service as the API (a form sent twice buys once), every refusal
leaving the balance and the collection as they were, and wearing and taking off cosmetics."""

from __future__ import annotations

import re
import uuid

import pytest

from shop import selectors, services
from shop.models import Ownership, Purchase, ShopItem
from tests.support.ledger import balance, entries_sum, new_user, wallet

pytestmark = pytest.mark.django_db

BACK = "back-midnight"  # a card back, 80 Signs (shop/data/catalogue.json)
THEME = "theme-vault"


@pytest.fixture(autouse=True)
def _catalogue(db):
    services.shop_catalogue_load()


def _player(client, signs: int):
    user = new_user()
    if signs:
        services.signs_credit(user=user, amount=signs, reason="grant", key=f"t:{uuid.uuid4()}")
    client.force_login(user)
    return user


def _key(html: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', html).group(1)


def _state(user):
    account = wallet(user)
    return (
        balance(user),
        entries_sum(account.pk) if account else 0,
        sorted(Ownership.objects.filter(user=user).values_list("item__slug", flat=True)),
        selectors.equipped(user),
        Purchase.objects.filter(user=user).count(),
    )


def test_a_guest_sees_every_kind_and_a_sign_in_prompt(client):
    html = client.get("/shop/").content.decode()
    for heading in ("Night Market crew", "Card backs", "Board themes", "Titles"):
        assert heading in html
    for item in ShopItem.objects.filter(active=True):
        assert f'id="item-{item.slug}"' in html
    assert "Sign in to buy" in html
    assert "/accounts/login/?next=/shop/" in html
    assert 'id="shop-balance"' not in html
    assert "data-buy" not in html and "equip-form" not in html
    assert "js/shop.js" not in html  # nothing for a guest's browser to run
    # The art is the board's own hooks.
    assert f'class="card-back" data-card-back="{BACK}"' in html
    assert f'class="theme-preview" data-board-theme="{THEME}"' in html


def test_a_guest_asked_to_sign_in_before_buying_or_wearing(client):
    answer = client.get(f"/shop/buy/{BACK}/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    answer = client.post(f"/shop/buy/{BACK}/", {"idempotency_key": "k1", "price": "80"})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert Purchase.objects.count() == 0


def test_the_shelf_shows_the_balance_prices_and_buy_links(client):
    _player(client, 130)
    html = client.get("/shop/").content.decode()
    assert 'data-balance="130"' in html
    assert f'href="/shop/buy/{BACK}/" data-buy' in html
    assert "80 Signs" in html
    assert "Sign in to buy" not in html
    assert "js/shop.js" in html
    # A 250-Sign crew: the shelf says how many are missing, and offers no Buy link for it.
    assert "You need <b>120</b> more Signs" in html
    assert 'href="/shop/buy/double-agent/"' not in html
    assert 'disabled aria-describedby="short-double-agent">Buy</button>' in html


def test_confirming_shows_price_balance_and_after_and_buys_once(client):
    user = _player(client, 130)
    page = client.get(f"/shop/buy/{BACK}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert re.search(r"<dt>Price</dt><dd>80 Signs</dd>", html)
    assert re.search(r"<dt>You hold</dt><dd>130 Signs</dd>", html)
    assert re.search(r"<dt>After buying</dt><dd>50 Signs</dd>", html)
    key = _key(html)
    assert len(key) == 32
    form = {"idempotency_key": key, "price": "80"}
    answer = client.post(f"/shop/buy/{BACK}/", form, follow=True)
    # A cosmetic: the shelf opens on it, shown big once.
    assert answer.redirect_chain[0][0] == "/shop/#unveil"
    shown = answer.content.decode()
    assert "You bought Midnight Lattice for 80 Signs. You hold 50 Signs now." in shown
    assert '<section class="unveil unveil-panel" id="unveil"' in shown
    assert f'data-card-back="{BACK}"' in shown[shown.index('id="unveil"') :]
    assert 'id="unveil"' not in client.get("/shop/").content.decode()
    after = _state(user)
    assert after[0] == after[1] == 50 and after[2] == [BACK] and after[4] == 1
    # The same form sent again (a double click, a reload): the first answer, nothing more.
    again = client.post(f"/shop/buy/{BACK}/", form, follow=True)
    assert "That purchase was already made" in again.content.decode()
    assert _state(user) == after
    shelf = client.get("/shop/").content.decode()
    assert 'data-balance="50"' in shelf
    assert f'<li class="item owned" id="item-{BACK}"' in shelf
    assert 'aria-label="Wear Midnight Lattice"' in shelf


@pytest.mark.parametrize(
    ("signs", "form", "status", "words"),
    [
        (130, {"price": "70"}, 409, "costs 80 Signs now, not 70"),
        (130, {"price": "eighty"}, 409, "costs 80 Signs now"),
        (50, {"price": "80"}, 409, "Signs"),
        (130, {"price": "80", "idempotency_key": ""}, 400, "Idempotency-Key"),
        (130, {"price": "80", "idempotency_key": "x" * 65}, 400, "Idempotency-Key"),
    ],
    ids=["price_changed", "price_not_a_number", "insufficient_signs", "no_key", "long_key"],
)
def test_a_refused_form_says_why_and_changes_nothing(client, signs, form, status, words):
    user = _player(client, signs)
    form = {"idempotency_key": uuid.uuid4().hex, **form}
    before = _state(user)
    answer = client.post(f"/shop/buy/{BACK}/", form)
    assert answer.status_code == status
    assert words in answer.content.decode()
    assert 'role="alert"' in answer.content.decode()
    assert _state(user) == before


def test_a_key_sent_again_for_another_item_is_refused_and_a_new_one_offered(client):
    user = _player(client, 300)
    key = uuid.uuid4().hex
    client.post(f"/shop/buy/{BACK}/", {"idempotency_key": key, "price": "80"})
    before = _state(user)
    answer = client.post("/shop/buy/back-brass/", {"idempotency_key": key, "price": "80"})
    assert answer.status_code == 422
    assert _key(answer.content.decode()) != key
    assert _state(user) == before


def test_short_of_signs_the_confirmation_offers_no_purchase(client):
    _player(client, 50)
    html = client.get(f"/shop/buy/{BACK}/").content.decode()
    assert "You need 30 more Signs for Midnight Lattice" in html
    assert "idempotency_key" not in html
    assert "<dt>After buying</dt><dd>not enough</dd>" in html


def test_unknown_item_is_404_and_owned_item_goes_back_to_the_shelf(client):
    _player(client, 200)
    assert client.get("/shop/buy/no-such-thing/").status_code == 404
    client.post(f"/shop/buy/{BACK}/", {"idempotency_key": "k-1", "price": "80"})
    answer = client.get(f"/shop/buy/{BACK}/", follow=True)
    assert "is yours already" in answer.content.decode()


def test_wearing_and_taking_off_a_cosmetic(client):
    user = _player(client, 300)
    client.post(f"/shop/buy/{BACK}/", {"idempotency_key": "k-2", "price": "80"})
    answer = client.post("/shop/equip/", {"kind": "card_back", "item": BACK}, follow=True)
    assert "You now wear Midnight Lattice." in answer.content.decode()
    assert selectors.equipped(user)["card_back"] == BACK
    html = client.get("/shop/").content.decode()
    assert f'class="item owned equipped" id="item-{BACK}"' in html
    assert 'aria-label="Take off Midnight Lattice"' in html
    answer = client.post("/shop/equip/", {"kind": "card_back", "item": ""}, follow=True)
    assert "Your card back is back to the default." in answer.content.decode()
    assert selectors.equipped(user)["card_back"] is None


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"kind": "card_back", "item": "back-brass"}, "Buy Brass Tumblers before you wear it."),
        ({"kind": "board_theme", "item": BACK}, "is a card back, not a board theme"),
        ({"kind": "crew", "item": "fence"}, "Only cosmetics are worn"),
        ({"kind": "card_back", "item": "nothing-like-it"}, "The shop has nothing by that name."),
    ],
    ids=["not_owned", "wrong_kind", "crew_not_worn", "unknown_item"],
)
def test_a_refused_wear_says_why_and_changes_nothing(client, form, words):
    user = _player(client, 300)
    client.post(f"/shop/buy/{BACK}/", {"idempotency_key": "k-3", "price": "80"})
    before = _state(user)
    answer = client.post("/shop/equip/", form, follow=True)
    assert words in answer.content.decode()
    assert _state(user) == before


def test_an_owned_crew_leads_to_the_deck_builder(client):
    _player(client, 300)
    client.post("/shop/buy/fence/", {"idempotency_key": "k-4", "price": "150"})
    html = client.get("/shop/").content.decode()
    assert 'class="item owned" id="item-fence"' in html
    assert 'href="/deck/">Put it in a deck' in html
