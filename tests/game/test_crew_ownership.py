"""Night Market crew only once bought (DESIGN.md section 5, RULES.md 2026.12): deck saving and
heist start refuse a deck holding a Night Market type the player does not own with 400
``crew_not_owned`` and write nothing; bought, the same deck saves and starts; refunded, it is
refused again. The set of each type is the ruleset's data (``set: night-market``)."""

from __future__ import annotations

import json

import pytest

from game.engine import available_versions, get_ruleset
from game.engine.rules import DEFAULT_VERSION
from game.models import Heist, SavedDeck
from game.owners import Owner
from game.services.decks import deck_save
from game.services.heists import heist_start
from shop import services as shop_services
from shop.models import Purchase
from tests.support.heists import STARTER_SLUGS, make_player, post
from veyltak_site.exceptions import ApplicationError

pytestmark = pytest.mark.django_db

# The newest ruleset with a Night Market set (2026.12 and later).
NM_RULESET = next(v for v in reversed(available_versions()) if get_ruleset(v).crew_in_set(
    "night-market"))  # fmt: skip
NIGHT_MARKET = get_ruleset(NM_RULESET).crew_in_set("night-market")


def nm_deck(*types: str) -> list[str]:
    """The starter deck with its last cards swapped for one copy of each of ``types``."""
    return STARTER_SLUGS[: 12 - len(types)] + list(types)


@pytest.fixture
def buyer(db):
    shop_services.shop_catalogue_load()
    user, client = make_player("buyer@example.com")
    shop_services.signs_grant(user=user, amount=1000, reason_text="test")
    return user, client


def purchase(client, slug: str):
    price = next(i for i in client.get("/api/v1/shop/").json()["items"] if i["slug"] == slug)
    response = client.post(
        "/api/v1/shop/purchases/",
        data=json.dumps({"item": slug, "price": price["price"]}),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"buy-{slug}",
    )
    assert response.status_code == 201, response.content
    return response.json()["purchase"]["id"]


def refused(call) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        call()
    assert caught.value.code == "crew_not_owned" and caught.value.status_code == 400
    return caught.value


def test_the_night_market_set_is_the_rulesets_seven():
    assert set(NIGHT_MARKET) == {"fence", "insider", "night-owl", "cold-reader",
                                 "double-agent", "lone-wolf", "smoke-runner"}  # fmt: skip


def test_saving_a_deck_with_unowned_night_market_crew_is_refused_until_bought(buyer):
    user, client = buyer
    cards = nm_deck("fence", "night-owl")
    error = refused(lambda: deck_save(user=user, name="Market", cards=cards, ruleset=NM_RULESET))
    assert "Fence, Night Owl" in error.message and "cards" in error.fields
    assert not SavedDeck.objects.filter(user=user).exists()

    purchase(client, "fence")
    error = refused(lambda: deck_save(user=user, name="Market", cards=cards, ruleset=NM_RULESET))
    assert "Night Owl" in error.message and "Fence" not in error.message
    purchase(client, "night-owl")
    deck, created = deck_save(user=user, name="Market", cards=cards, ruleset=NM_RULESET)
    assert created and deck.cards == cards


def test_starting_a_heist_with_unowned_night_market_crew_is_refused_until_bought(buyer):
    user, client = buyer
    owner = Owner(user_id=user.pk)
    cards = nm_deck("double-agent")

    def start():
        return heist_start(
            owner=owner, rival="furnace", difficulty="rookie", deck=cards, ruleset=NM_RULESET
        )

    error = refused(start)
    assert "Double Agent" in error.message and "deck" in error.fields
    assert not Heist.objects.exists()
    paid = purchase(client, "double-agent")
    snapshot = start()
    assert snapshot.heist.player_deck == cards and snapshot.heist.ruleset == NM_RULESET
    assert Heist.objects.filter(user=user).count() == 1

    # Refunded: the crew leaves the collection, and the deck is refused again.
    shop_services.signs_refund(purchase_id=Purchase.objects.get(pk=paid).transaction_id)
    refused(start)
    assert Heist.objects.filter(user=user).count() == 1


def test_a_guest_owns_no_night_market_crew_and_base_decks_need_nothing(db):
    guest = Owner(user_id=None, guest_id="guest-session")
    refused(
        lambda: heist_start(owner=guest, rival="furnace", difficulty="rookie",
                            deck=nm_deck("smoke-runner"), ruleset=NM_RULESET)
    )  # fmt: skip
    heist_start(
        owner=guest, rival="furnace", difficulty="rookie", deck=STARTER_SLUGS, ruleset=NM_RULESET
    )
    assert Heist.objects.count() == 1


@pytest.mark.skipif(
    not get_ruleset(DEFAULT_VERSION).crew_in_set("night-market"),
    reason=f"the default ruleset {DEFAULT_VERSION} has no Night Market crew yet",
)
def test_the_routes_answer_crew_not_owned(buyer):
    _, client = buyer
    cards = nm_deck("lone-wolf")
    start = {"rival": "furnace", "difficulty": "rookie", "deck": cards}
    save = {"name": "Wolf", "cards": cards}
    for path, body in (("/api/v1/heists/", start), ("/api/v1/decks/mine/", save)):
        response = post(client, path, body)
        assert response.status_code == 400, response.content
        assert response.json()["error"]["code"] == "crew_not_owned"
    assert not Heist.objects.exists() and not SavedDeck.objects.exists()
    purchase(client, "lone-wolf")
    assert post(client, "/api/v1/decks/mine/", {"name": "Wolf", "cards": cards}).status_code == 201
    assert post(client, "/api/v1/heists/", start).status_code == 201
