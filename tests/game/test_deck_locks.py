"""The deck builder and the shop (issue 13): Night Market crew are shown with their price and
locked until owned, with a link to buy them; a locked crew cannot be added (with or without
JavaScript: the page has no + for it, and a posted + is refused with the reason); a saved deck
holding a crew the player no longer owns (after a refund) says why it can't be used, and the
rival picker does not offer it."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from game.engine import get_ruleset
from game.models import SavedDeck
from shop import services as shop_services
from shop.models import Purchase
from tests.support.heists import age_checked_client, make_player
from tests.support.shop import own_and_wear

pytestmark = pytest.mark.django_db

FENCE = "fence"  # Night Market, 150 Signs (shop/data/catalogue.json)


@pytest.fixture(autouse=True)
def _catalogue(db):
    shop_services.shop_catalogue_load()


def _night_market() -> list[str]:
    return [s for s, c in get_ruleset().crew.items() if c.set == "night-market"]


def _counts(cards: list[str]) -> dict[str, str]:
    counts = Counter(cards)
    return {f"count-{s}": str(counts[s]) for s in get_ruleset().crew}


def _deck_with_fence() -> list[str]:
    base = [s for s, c in get_ruleset().crew.items() if c.set == "base"]
    return [FENCE, FENCE] + [s for s in base[:5] for _ in range(2)]


def test_a_guest_sees_every_night_market_crew_locked_with_its_price():
    html = age_checked_client().get("/deck/").content.decode()
    assert len(_night_market()) == 7
    for slug in _night_market():
        row = re.search(rf'<li data-slug="{slug}".*?</li>', html, re.S).group(0)
        assert 'data-locked="true"' in row and "Night Market" in row
        assert f'value="add:{slug}"' not in row  # no + for it
        assert "Sign in and buy it" in row and f'href="/shop/#item-{slug}"' in row
    fence = re.search(r'<li data-slug="fence".*?</li>', html, re.S).group(0)
    assert "150 Signs in the shop" in fence
    # Base crew are free to everyone.
    assert 'value="add:spark"' in html


def test_a_player_adds_a_night_market_crew_once_they_own_it():
    user, client = make_player("deckbuyer@example.com")
    html = client.get("/deck/").content.decode()
    assert 'href="/shop/buy/fence/"' in html
    refused = client.post("/deck/", {"action": f"add:{FENCE}", **_counts([])})
    assert refused.status_code == 400
    assert "Fence is Night Market crew: buy it in the shop" in refused.content.decode()
    assert 'id="count-fence" aria-label="Fence copies">0<' in refused.content.decode()
    own_and_wear(user, FENCE)
    added = client.post("/deck/", {"action": f"add:{FENCE}", **_counts([])})
    assert added.status_code == 200
    assert 'id="count-fence" aria-label="Fence copies">1<' in added.content.decode()
    assert 'data-slug="fence" data-set="night-market" class="in-deck"' in added.content.decode()
    saved = client.post(
        "/deck/", {"action": "save", "name": "Market", **_counts(_deck_with_fence())}
    )
    assert saved.status_code == 302
    assert SavedDeck.objects.get(user=user, name="Market").cards.count(FENCE) == 2


def test_a_guest_cannot_save_a_deck_with_night_market_crew():
    client = age_checked_client()
    answer = client.post("/deck/", {"action": "save", **_counts(_deck_with_fence())})
    assert answer.status_code == 400
    assert "Night Market crew you do not own: Fence" in answer.content.decode()
    assert "veyltak_deck" not in client.session


def test_a_refunded_crew_makes_a_saved_deck_say_why_it_cannot_be_used():
    user, client = make_player("refunded@example.com")
    own_and_wear(user, FENCE)
    client.post("/deck/", {"action": "save", "name": "Market", **_counts(_deck_with_fence())})
    deck = SavedDeck.objects.get(user=user, name="Market")
    assert f'value="saved:{deck.pk}"' in client.get("/play/").content.decode()
    purchase = Purchase.objects.get(user=user, item__slug=FENCE)
    shop_services.signs_refund(purchase_id=purchase.transaction_id)
    html = client.get("/deck/").content.decode()
    assert (
        "Can't be used: it holds Night Market crew you don't own (Fence). "
        "Buy them in the shop, or load the deck and take them out."
    ) in html.replace("&#x27;", "'")
    loaded = client.get(f"/deck/?load={deck.pk}").content.decode()
    assert "Play with" not in loaded
    assert f'value="saved:{deck.pk}"' not in client.get("/play/").content.decode()
