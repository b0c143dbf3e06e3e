"""The shop's routes (DESIGN.md section 5): the shelf, purchases with their Idempotency-Key,
the collection and equipping; every error code from a request that produces it, with the
balance and the collection unchanged after each; every answer as the OpenAPI schema says."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connections
from django.test import Client

from game.engine import DEFAULT_VERSION, get_ruleset
from shop import presenters, selectors, services
from shop.models import IdempotencyRecord, Ownership, Purchase, Transaction
from tests.support.ledger import balance, entries_sum, new_user, wallet
from tests.support.schema import check_response
from tests.support.shop import COLLECTION, EQUIPPED, PURCHASES, SHOP, buy, equip, signed_in, state

pytestmark = pytest.mark.django_db

ITEM_KEYS = {"slug", "kind", "name", "description", "price", "art", "active", "owned", "equipped"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture(autouse=True)
def catalogue(db):
    services.shop_catalogue_load()


@pytest.fixture
def rich(db):
    user = new_user()
    services.signs_grant(user=user, amount=1000, reason_text="test")
    return user


def error(response) -> str:
    return response.json()["error"]["code"]


def test_a_guest_sees_the_shop_with_no_balance_and_owns_nothing(schema):
    response = Client().get(SHOP)
    check_response(schema, SHOP, "get", 200, response)
    body = response.json()
    assert body["balance"] is None
    kinds = [i["kind"] for i in body["items"]]
    assert kinds == sorted(kinds, key=["crew", "card_back", "board_theme", "title"].index)
    assert all(set(i) == ITEM_KEYS and not i["owned"] and not i["equipped"] for i in body["items"])
    assert {i["slug"] for i in body["items"] if i["kind"] == "crew"} >= {"fence", "night-owl"}


def test_guests_get_sign_in_required_on_every_write(schema):
    guest = Client()
    refused = {
        PURCHASES: buy(guest, "back-brass", 80),
        EQUIPPED: equip(guest, "card_back", "back-brass"),
    }
    for path, response in refused.items():
        assert response.status_code == 403 and error(response) == "sign_in_required"
        check_response(schema, path, "post" if path == PURCHASES else "put", 403, response)
    collection = guest.get(COLLECTION)
    check_response(schema, COLLECTION, "get", 200, collection)
    assert collection.json()["cosmetics"] == []
    assert "fence" not in collection.json()["crew"]
    assert collection.json()["equipped"] == {"card_back": None, "board_theme": None, "title": None}


def test_a_purchase_debits_once_and_lands_in_the_collection(schema, rich):
    client = signed_in(rich)
    response = buy(client, "back-brass", 80, key="first-key")
    check_response(schema, PURCHASES, "post", 201, response)
    body = response.json()
    assert body["balance"] == 920 == balance(rich) == entries_sum(wallet(rich).pk)
    assert body["purchase"]["item"] == "back-brass" and body["purchase"]["price"] == 80
    assert "Idempotent-Replayed" not in response
    purchase = Purchase.objects.get(pk=body["purchase"]["id"])
    tx = purchase.transaction
    assert tx.reason == "purchase" and tx.reference == "item:back-brass"
    assert dict(tx.entries.values_list("account__kind", "amount")) == {"wallet": -80, "system": 80}
    assert Ownership.objects.get(user=rich, item__slug="back-brass").purchase == purchase
    record = IdempotencyRecord.objects.get(user=rich, key="first-key")
    assert record.body.encode() == response.content and record.status_code == 201

    shelf = client.get(SHOP)
    check_response(schema, SHOP, "get", 200, shelf)
    assert shelf.json()["balance"] == 920
    brass = next(i for i in shelf.json()["items"] if i["slug"] == "back-brass")
    assert brass["owned"] and not brass["equipped"]
    collection = client.get(COLLECTION).json()
    assert collection["cosmetics"] == [{"slug": "back-brass", "kind": "card_back"}]

    again = buy(client, "back-brass", 80, key="first-key")
    check_response(schema, PURCHASES, "post", 201, again)
    assert again.content == response.content and again["Idempotent-Replayed"] == "true"
    assert balance(rich) == 920 and Purchase.objects.filter(user=rich).count() == 1


def test_a_night_market_crew_bought_joins_the_crew_a_deck_may_hold(rich):
    client = signed_in(rich)
    before = client.get(COLLECTION).json()["crew"]
    assert "night-owl" not in before
    assert selectors.unowned_crew(rich, ["night-owl", "fence", "night-owl"]) == [
        "night-owl",
        "fence",
    ]
    assert buy(client, "night-owl", 180).status_code == 201
    assert selectors.unowned_crew(rich, ["night-owl", "fence"]) == ["fence"]
    assert selectors.unowned_crew(None, ["night-owl"]) == ["night-owl"]
    after = client.get(COLLECTION).json()["crew"]
    assert after == presenters.collection(rich)["crew"]
    # In a ruleset of the Night Market (the route shows the default ruleset's types).
    assert "night-owl" in presenters.collection(rich, ruleset="2026.12")["crew"]
    assert "fence" not in presenters.collection(rich, ruleset="2026.12")["crew"]
    assert "night-owl" not in presenters.collection(None, ruleset="2026.12")["crew"]
    if "night-owl" in get_ruleset(DEFAULT_VERSION).crew:
        assert set(after) - set(before) == {"night-owl"}


@pytest.mark.parametrize(
    ("setup", "request_", "status", "code"),
    [
        (None, lambda c: buy(c, "back-brass", 80, key=None), 400, "idempotency_key_required"),
        (None, lambda c: buy(c, "back-brass", 80, key="x" * 65), 400, "idempotency_key_required"),
        (None, lambda c: buy(c, "back-brass", 80, key="has space"), 400,
         "idempotency_key_required"),
        (None, lambda c: c.post(PURCHASES, data=json.dumps({"item": "back-brass"}),
                                content_type="application/json", HTTP_IDEMPOTENCY_KEY="k"),
         400, "invalid_input"),
        (None, lambda c: buy(c, "no-such-thing", 80), 404, "unknown_item"),
        (None, lambda c: buy(c, "back-brass", 79), 409, "price_changed"),
        ("own-brass", lambda c: buy(c, "back-brass", 80), 409, "already_owned"),
        ("poor", lambda c: buy(c, "double-agent", 250), 409, "insufficient_signs"),
        ("own-brass", lambda c: buy(c, "back-neon", 80, key="brass-key"), 422,
         "idempotency_key_reused"),
    ],
)  # fmt: skip
def test_every_purchase_refusal_changes_nothing(schema, rich, setup, request_, status, code):
    client = signed_in(rich)
    if setup == "own-brass":
        assert buy(client, "back-brass", 80, key="brass-key").status_code == 201
    elif setup == "poor":
        assert buy(client, "theme-vault", 200).status_code == 201
        assert buy(client, "theme-velvet", 200).status_code == 201
        assert buy(client, "theme-harbour", 200).status_code == 201
        assert buy(client, "insider", 200).status_code == 201
        assert balance(rich) == 200
    before = state(rich)
    response = request_(client)
    check_response(schema, PURCHASES, "post", status, response)
    assert error(response) == code
    assert state(rich) == before


def test_a_refused_key_is_not_stored_and_may_be_sent_again(rich):
    client = signed_in(rich)
    assert error(buy(client, "back-brass", 79, key="retry-me")) == "price_changed"
    assert not IdempotencyRecord.objects.filter(user=rich).exists()
    assert buy(client, "back-brass", 80, key="retry-me").status_code == 201


def test_keys_belong_to_their_player(rich):
    other = new_user()
    services.signs_grant(user=other, amount=100, reason_text="test")
    assert buy(signed_in(rich), "back-brass", 80, key="shared").status_code == 201
    mine = buy(signed_in(other), "back-brass", 80, key="shared")
    assert mine.status_code == 201 and "Idempotent-Replayed" not in mine
    assert balance(other) == 20


@pytest.mark.postgres(reason="another connection holds the key's advisory lock")
def test_a_key_in_flight_answers_request_in_progress(schema, rich):
    client = signed_in(rich)
    held, release = threading.Event(), threading.Event()

    def hold():
        # Another request with the key, mid-way: its transaction holds the key's lock.
        conn = connections.create_connection("default")
        try:
            with conn.cursor() as cursor:
                cursor.execute("BEGIN")
                lock = services.purchase_lock_id(rich.pk, "busy-key")
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock])
                held.set()
                release.wait(30)
                cursor.execute("ROLLBACK")
        finally:
            conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(30)
        before = state(rich)
        response = buy(client, "back-brass", 80, key="busy-key")
        check_response(schema, PURCHASES, "post", 409, response)
        assert error(response) == "request_in_progress"
        assert state(rich) == before
    finally:
        release.set()
        thread.join(30)
    assert buy(client, "back-brass", 80, key="busy-key").status_code == 201


def test_equipping_and_taking_off(schema, rich):
    client = signed_in(rich)
    for item, price in (("back-brass", 80), ("title-ghost", 90), ("back-neon", 80)):
        assert buy(client, item, price).status_code == 201
    response = equip(client, "card_back", "back-brass")
    check_response(schema, EQUIPPED, "put", 200, response)
    assert response.json()["equipped"] == {
        "card_back": "back-brass",
        "board_theme": None,
        "title": None,
    }
    equip(client, "title", "title-ghost")
    response = equip(client, "card_back", "back-neon")
    assert response.json()["equipped"] == {
        "card_back": "back-neon",
        "board_theme": None,
        "title": "title-ghost",
    }
    assert selectors.equipped(rich) == response.json()["equipped"]
    assert selectors.titles_for([rich.pk, rich.pk + 999]) == {rich.pk: "Ghost", rich.pk + 999: None}
    shelf = {i["slug"]: i for i in client.get(SHOP).json()["items"]}
    assert shelf["back-neon"]["equipped"] and not shelf["back-brass"]["equipped"]
    off = equip(client, "card_back", None)
    assert off.status_code == 200
    assert off.json()["equipped"]["card_back"] is None
    assert off.json()["equipped"]["title"] == "title-ghost"


@pytest.mark.parametrize(
    ("kind", "item", "status", "code"),
    [
        ("card_back", "back-neon", 409, "not_owned"),
        ("card_back", "title-ghost", 400, "wrong_kind"),
        ("crew", "night-owl", 400, "wrong_kind"),
        ("hat", "back-brass", 400, "wrong_kind"),
        ("card_back", "no-such-back", 404, "unknown_item"),
    ],
)
def test_every_equip_refusal_changes_nothing(schema, rich, kind, item, status, code):
    client = signed_in(rich)
    for slug, price in (("back-brass", 80), ("title-ghost", 90), ("night-owl", 180)):
        assert buy(client, slug, price).status_code == 201
    equip(client, "card_back", "back-brass")
    before = state(rich)
    response = equip(client, kind, item)
    check_response(schema, EQUIPPED, "put", status, response)
    assert error(response) == code
    assert state(rich) == before


def test_a_refund_takes_the_item_back_once(rich):
    client = signed_in(rich)
    body = buy(client, "back-brass", 80).json()
    equip(client, "card_back", "back-brass")
    purchase = Purchase.objects.get(pk=body["purchase"]["id"])
    services.signs_refund(purchase_id=purchase.transaction_id)
    assert balance(rich) == 1000
    assert not Ownership.objects.filter(user=rich).exists()
    assert selectors.equipped(rich)["card_back"] is None
    assert error(equip(client, "card_back", "back-brass")) == "not_owned"
    with pytest.raises(Exception, match="refunded already"):
        services.signs_refund(purchase_id=purchase.transaction_id)
    # Bought again after the refund: a new purchase, owned again.
    assert buy(client, "back-brass", 80).status_code == 201
    assert Ownership.objects.filter(user=rich).count() == 1
    assert Transaction.objects.filter(reason="purchase").count() == 2


def test_the_data_export_holds_the_purchases_the_collection_and_what_is_worn(rich):
    client = signed_in(rich)
    assert buy(client, "back-brass", 80).status_code == 201
    assert buy(client, "fence", 150).status_code == 201
    assert equip(client, "card_back", "back-brass").status_code == 200
    fence = Purchase.objects.get(user=rich, item__slug="fence")
    services.signs_refund(purchase_id=fence.transaction_id)

    export = client.get("/accounts/export/").json()["collection"]
    assert [(p["item"], p["kind"], p["price"], p["owned"]) for p in export["purchases"]] == [
        ("back-brass", "card_back", 80, True),
        ("fence", "crew", 150, False),  # refunded: bought once, no longer owned
    ]
    assert export["owned"] == ["back-brass"]
    assert export["equipped"] == {"card_back": "back-brass", "board_theme": None, "title": None}
    stranger = signed_in(new_user())
    assert stranger.get("/accounts/export/").json()["collection"] == {
        "purchases": [],
        "owned": [],
        "equipped": {"card_back": None, "board_theme": None, "title": None},
    }
