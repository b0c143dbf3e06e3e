"""The shop through its API: signed-in clients, purchases through the route, items owned and worn
through the services, and the state a refusal must leave as it was (read from the tables, not
through the code under test)."""

from __future__ import annotations

import json
import uuid

from django.test import Client

from shop import services as shop_services
from shop.models import Equipped, Ownership, Purchase, ShopItem, Transaction
from tests.support.ledger import balance

SHOP = "/api/v1/shop/"
PURCHASES = "/api/v1/shop/purchases/"
COLLECTION = "/api/v1/collection/"
EQUIPPED = "/api/v1/collection/equipped/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def buy(client: Client, item: str, price: int, key: str | None = "", **extra):
    """POST a purchase; ``key`` "" makes a new one, None sends no header."""
    headers = {}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key or uuid.uuid4().hex
    return client.post(
        PURCHASES,
        data=json.dumps({"item": item, "price": price}),
        content_type="application/json",
        **headers,
        **extra,
    )


def equip(client: Client, kind: str, item: str | None):
    return client.put(
        EQUIPPED, data=json.dumps({"kind": kind, "item": item}), content_type="application/json"
    )


def state(user) -> tuple:
    """Everything a refused purchase or equip must leave unchanged."""
    return (
        balance(user),
        sorted(Ownership.objects.filter(user=user).values_list("item__slug", flat=True)),
        sorted(Equipped.objects.filter(user=user).values_list("kind", "item__slug")),
        Purchase.objects.filter(user=user).count(),
        Transaction.objects.count(),
    )


def own_and_wear(user, *slugs: str) -> None:
    """Give the player ``slugs`` (bought with granted Signs) and wear the cosmetics."""
    for slug in slugs:
        item = ShopItem.objects.get(slug=slug)
        shop_services.signs_credit(
            user=user, amount=item.price, reason="grant", key=f"t:{uuid.uuid4()}"
        )
        shop_services.item_purchase(
            user=user,
            key=uuid.uuid4().hex,
            request_hash=slug,
            item=slug,
            price=item.price,
            render=lambda data: b"{}",
        )
        if item.kind != "crew":  # crew go into decks, not on
            shop_services.item_equip(user=user, kind=item.kind, item=slug)
