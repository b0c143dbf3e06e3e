"""Purchases under concurrency, on PostgreSQL with real row and advisory locks, through the
route: each thread has its own database connection and commits for real (transaction=True);
every round's requests are released together by a barrier."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from shop import selectors, services
from shop.models import Ownership, Purchase, ShopItem, Transaction
from tests.support.ledger import balance, entries_sum, new_user, wallet
from tests.support.shop import buy, signed_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

ROUNDS = int(__import__("os").environ.get("SHOP_ROUNDS", "100"))
BUYERS = 50


def rounds_at_once(threads: int, rounds: int, request):
    """``threads`` threads, each with its own client and connection, run ``rounds`` rounds;
    in each, all call ``request(round, thread, client)`` at once. Returns results[round][thread]
    (an exception where one was raised)."""
    barrier = threading.Barrier(threads)
    results = [[None] * threads for _ in range(rounds)]

    def run(i):
        client = Client()
        try:
            for r in range(rounds):
                try:
                    barrier.wait(timeout=60)
                    results[r][i] = request(r, i, client)
                except BaseException as exc:
                    results[r][i] = exc
        finally:
            connection.close()

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=600)
    assert not any(w.is_alive() for w in workers), "a thread hung (a lock wait that never ends)"
    return results


def session_cookie(user) -> str:
    return signed_in(user).cookies[settings.SESSION_COOKIE_NAME].value


def test_50_parallel_purchases_buy_exactly_what_the_balance_covers_100_times():
    services.shop_catalogue_load()
    # Four or more items of one price: the card backs.
    items = list(
        ShopItem.objects.filter(kind="card_back", active=True).values_list("slug", "price")
    )
    prices = {price for _, price in items}
    assert len(items) >= 4 and len(prices) == 1
    (price,) = prices
    players = [new_user() for _ in range(ROUNDS)]
    for player in players:
        services.signs_grant(user=player, amount=3 * price, reason_text="exactly three")
    cookies = [session_cookie(p) for p in players]

    def request(r, i, client):
        client.cookies[settings.SESSION_COOKIE_NAME] = cookies[r]
        slug, _ = items[i % len(items)]
        response = buy(client, slug, price, key=f"round-{r}-buyer-{i}")
        return response.status_code, response.json()

    results = rounds_at_once(BUYERS, ROUNDS, request)
    for r, player in enumerate(players):
        answers = results[r]
        assert not [a for a in answers if isinstance(a, BaseException)], answers
        statuses = Counter(status for status, _ in answers)
        assert statuses == {201: 3, 409: BUYERS - 3}, (r, statuses)
        codes = {body["error"]["code"] for status, body in answers if status == 409}
        assert codes <= {"insufficient_signs", "already_owned"}, (r, codes)
        bought = sorted(body["purchase"]["item"] for status, body in answers if status == 201)
        assert len(set(bought)) == 3
        assert (
            sorted(Ownership.objects.filter(user=player).values_list("item__slug", flat=True))
            == bought
        )
        assert Purchase.objects.filter(user=player).count() == 3
        assert balance(player) == 0 == entries_sum(wallet(player).pk)
        # The last purchase's answer says the balance it left: 0.
        assert sorted(body["balance"] for status, body in answers if status == 201) == [
            0,
            price,
            2 * price,
        ]
    assert selectors.ledger_problems() == []


def test_10_parallel_requests_with_one_key_buy_once_and_answer_alike():
    services.shop_catalogue_load()
    rounds = 20
    players = [new_user() for _ in range(rounds)]
    for player in players:
        services.signs_grant(user=player, amount=1000, reason_text="test")
    cookies = [session_cookie(p) for p in players]

    def request(r, i, client):
        client.cookies[settings.SESSION_COOKIE_NAME] = cookies[r]
        response = buy(client, "theme-vault", 200, key="one-key")
        return response.status_code, response.content, response.get("Idempotent-Replayed")

    results = rounds_at_once(10, rounds, request)
    for r, player in enumerate(players):
        answers = results[r]
        assert not [a for a in answers if isinstance(a, BaseException)], answers
        created = [a for a in answers if a[0] == 201]
        others = [a for a in answers if a[0] != 201]
        # One first answer; the rest replay it byte for byte, or were refused while it ran.
        assert [a[2] for a in created].count(None) == 1
        assert len({content for _, content, _ in created}) == 1
        assert all(a[2] == "true" for a in created if a[2] is not None)
        assert all(
            status == 409 and b"request_in_progress" in content for status, content, _ in others
        )
        assert Purchase.objects.filter(user=player).count() == 1
        purchase = Purchase.objects.get(user=player)
        debits = Transaction.objects.filter(
            reason="purchase", entries__account__user=player
        ).count()
        assert debits == 1
        assert balance(player) == 800 == entries_sum(wallet(player).pk)

        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = cookies[r]
        later = buy(client, "theme-vault", 200, key="one-key")
        assert later.status_code == 201 and later["Idempotent-Replayed"] == "true"
        assert later.content == created[0][1]
        assert later.json()["purchase"]["id"] == purchase.pk
        other = buy(client, "theme-velvet", 200, key="one-key")
        assert other.status_code == 422
        assert other.json()["error"]["code"] == "idempotency_key_reused"
        assert balance(player) == 800 and Purchase.objects.filter(user=player).count() == 1
