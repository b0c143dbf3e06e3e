"""A Hypothesis state machine plays random sequences of awards, grants, purchases (the debit
seam), refunds and retried movements on several wallets, against a model of what each wallet
should hold. After every step: every balance equals the model and the sum of its entries and is
never negative, and check_signs_ledger passes. On PostgreSQL each step's deferred checks (zero
sum, wallet against entries) are run at once, as a commit would run them."""

from __future__ import annotations

import datetime as dt
import uuid
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from shop import services
from shop.models import Account, Entry, Transaction
from tests.support.ledger import award, entries_sum, new_user
from veyltak_site.exceptions import ApplicationError

pytestmark = pytest.mark.django_db

TABLE = {
    "win": {"rookie": 10, "hustler": 20, "safecracker": 35, "kingpin": 60},
    "draw": {"rookie": 5, "hustler": 10, "safecracker": 17, "kingpin": 30},
    "loss": {"rookie": 3, "hustler": 5, "safecracker": 8, "kingpin": 12},
}
DAY = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
PLAYERS = 3
players = st.integers(0, PLAYERS - 1)


class LedgerMachine(RuleBasedStateMachine):
    purchases = Bundle("purchases")
    movements = Bundle("movements")

    def __init__(self) -> None:
        super().__init__()
        # Each run starts clean: everything it writes is rolled back in teardown.
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.users = [new_user() for _ in range(PLAYERS)]
        self.expected = [0] * PLAYERS
        self.heists_on = {}  # (player, day) -> finished heists counted for the daily limit
        self.refunded: set[int] = set()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)

    def _uid(self, i: int) -> int:
        return self.users[i].pk

    @rule(
        i=players,
        outcome=st.sampled_from(sorted(TABLE)),
        difficulty=st.sampled_from(sorted(TABLE["win"])),
        day=st.integers(0, 1),
    )
    def heist_award(self, i, outcome, difficulty, day):
        heist_id = uuid.uuid4()
        at = DAY + dt.timedelta(days=day)
        result = award(
            self._uid(i), outcome=outcome, difficulty=difficulty, heist_id=heist_id, at=at
        )
        counted = self.heists_on.get((i, day), 0)
        expected = TABLE[outcome][difficulty] if counted < 20 else 0
        self.heists_on[(i, day)] = counted + 1
        assert (result.amount, result.replayed) == (expected, False)
        self.expected[i] += expected
        # The same heist again, as a retry would send it: nothing more.
        again = award(
            self._uid(i), outcome=outcome, difficulty=difficulty, heist_id=heist_id, at=at
        )
        assert (again.amount, again.replayed) == (expected, True)

    @rule(target=movements, i=players, amount=st.integers(1, 300))
    def grant(self, i, amount):
        key = f"grant:{uuid.uuid4().hex}"
        services.signs_grant(user=self._uid(i), amount=amount, reason_text="machine", key=key)
        self.expected[i] += amount
        return (i, amount, key)

    @rule(movement=movements)
    def grant_retried(self, movement):
        i, amount, key = movement
        posted = services.signs_grant(user=self._uid(i), amount=amount, reason_text="m", key=key)
        assert not posted.created

    @rule(target=purchases, i=players, amount=st.integers(1, 250))
    def purchase(self, i, amount):
        key = f"purchase:{uuid.uuid4().hex}"
        before = Transaction.objects.count()
        try:
            posted = services.signs_debit(user=self._uid(i), amount=amount, key=key)
        except ApplicationError as exc:
            assert exc.code == "insufficient_signs" and self.expected[i] < amount
            assert Transaction.objects.count() == before
            return multiple()
        assert self.expected[i] >= amount
        self.expected[i] -= amount
        return (i, amount, posted.transaction.pk)

    @rule(bought=purchases, amount=st.one_of(st.none(), st.integers(1, 300)))
    def refund(self, bought, amount):
        i, paid, tx = bought
        try:
            services.signs_refund(purchase_id=tx, amount=amount, note="machine")
        except ApplicationError as exc:
            if amount is not None and amount > paid:
                assert exc.code == "invalid_amount"
            else:
                assert exc.code == "already_refunded" and tx in self.refunded
            return
        assert tx not in self.refunded and (amount is None or amount <= paid)
        self.refunded.add(tx)
        self.expected[i] += paid if amount is None else amount

    @rule(bought=consumes(purchases))
    def purchase_retried(self, bought):
        # The purchase's key again: the first answer, and no second debit.
        i, amount, tx = bought
        key = Transaction.objects.get(pk=tx).key
        posted = services.signs_debit(user=self._uid(i), amount=amount, key=key)
        assert not posted.created and posted.transaction.pk == tx

    @invariant()
    def balances_equal_entries(self):
        for i, user in enumerate(self.users):
            account = Account.objects.filter(kind="wallet", user=user).first()
            held = account.balance if account else 0
            assert held == self.expected[i] >= 0
            if account is not None:
                assert entries_sum(account.pk) == held
                last = Entry.objects.filter(account=account).order_by("-id").first()
                assert last is None or last.balance_after == held

    @invariant()
    def ledger_checks_pass(self):
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                # The zero-sum and wallet checks wait for a commit this test never makes.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        call_command("check_signs_ledger", stdout=StringIO(), stderr=StringIO())


@pytest.mark.slow
def test_random_ledger_histories_keep_every_rule():
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=20,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
