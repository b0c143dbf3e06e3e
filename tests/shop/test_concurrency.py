"""The ledger under concurrency, on PostgreSQL with real row locks: each thread has its own
connection and commits for real (transaction=True), all released at once by a barrier."""

from __future__ import annotations

import random
import threading
import uuid
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Count

from shop import selectors, services
from shop.models import Account, Entry, HeistEarning, Reason, Transaction
from tests.support.ledger import NOON, award, balance, entries_sum, new_user, wallet
from veyltak_site.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def at_once(targets):
    """Run every target in its own thread, released together. Returns (results, errors) in
    the targets' order; an error is the exception the target raised."""
    barrier = threading.Barrier(len(targets))
    results: list = [None] * len(targets)
    errors: list = [None] * len(targets)

    def run(i, target):
        try:
            barrier.wait(timeout=30)
            results[i] = target()
        except BaseException as exc:
            errors[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung (a lock wait that never ends)"
    return results, errors


def test_50_threads_award_the_same_heist_once():
    user = new_user()
    heist_id = uuid.uuid4()
    results, errors = at_once(
        [lambda: award(user.pk, outcome="win", difficulty="kingpin", heist_id=heist_id)] * 50
    )
    assert errors == [None] * 50
    assert {r.amount for r in results} == {60}
    assert Counter(r.replayed for r in results) == {True: 49, False: 1}
    assert Transaction.objects.count() == 1 and HeistEarning.objects.count() == 1
    assert balance(user) == 60 == entries_sum(wallet(user).pk)


def test_50_concurrent_grants_and_awards_on_one_wallet_keep_balance_equal_to_entries():
    user = new_user()
    grants = [
        lambda i=i: services.signs_grant(user=user, amount=i + 1, reason_text=f"grant {i}")
        for i in range(25)
    ]
    awards = [lambda: award(user.pk, outcome="win", difficulty="hustler", at=NOON)] * 25
    targets = grants + awards
    random.Random(7).shuffle(targets)
    _, errors = at_once(targets)
    assert errors == [None] * 50
    account = wallet(user)
    assert account.balance == entries_sum(account.pk)
    # 25 grants of 1..25, and of 25 awards on one UTC day the first 20 pay 20 each.
    assert account.balance == sum(range(1, 26)) + 20 * 20
    assert Counter(HeistEarning.objects.values_list("result", flat=True)) == {
        "earned": 20,
        "daily_limit": 5,
    }
    # The running balances form one unbroken chain in entry order.
    running = 0
    for amount, after in (
        Entry.objects.filter(account=account).order_by("id").values_list("amount", "balance_after")
    ):
        running += amount
        assert after == running
    assert selectors.ledger_problems() == []


def test_50_debits_racing_for_the_last_signs_never_overdraw():
    user = new_user()
    services.signs_welcome(user=user)  # 100
    results, errors = at_once(
        [lambda: services.signs_debit(user=user, amount=10, key=f"purchase:{uuid.uuid4()}")] * 50
    )
    refused = [e for e in errors if e is not None]
    assert len(refused) == 40
    assert {(e.code, e.status_code) for e in refused if isinstance(e, ApplicationError)} == {
        ("insufficient_signs", 409)
    }
    assert len([r for r in results if r is not None]) == 10
    assert balance(user) == 0 == entries_sum(wallet(user).pk)


def test_movements_over_several_wallets_in_any_order_never_deadlock():
    players = [new_user() for _ in range(5)]
    rng = random.Random(3)

    def payout(n: int):
        chosen = rng.sample(players, 3)  # a different order each time
        return services.signs_payout(
            payouts=[(p, 1 + n % 4) for p in chosen],
            reason=Reason.FEATURED,
            key=f"featured:race:{n}",
        )

    def spend(n: int):
        player = players[n % 5]
        try:
            return services.signs_debit(user=player, amount=1, key=f"purchase:race:{n}")
        except ApplicationError as exc:
            assert exc.code == "insufficient_signs"
            return None

    targets = [lambda n=n: payout(n) for n in range(30)] + [lambda n=n: spend(n) for n in range(20)]
    rng.shuffle(targets)
    _, errors = at_once(targets)
    assert errors == [None] * 50
    for player in players:
        assert balance(player) == entries_sum(wallet(player).pk)
    assert selectors.ledger_problems() == []


def test_a_new_players_first_movements_at_once_make_one_wallet():
    user = new_user()
    _, errors = at_once(
        [lambda: award(user.pk)] * 10
        + [lambda: services.signs_grant(user=user, amount=1, reason_text="hi")] * 10
    )
    assert errors == [None] * 20
    wallets = Account.objects.filter(user=user).values("user").annotate(n=Count("id"))
    assert list(wallets) == [{"user": user.pk, "n": 1}]
    assert balance(user) == 10 * 10 + 10
