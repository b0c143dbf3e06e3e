"""PostgreSQL itself refuses what would corrupt the ledger, whatever code (or person) sends it:
raw SQL that changes or deletes an entry, a transaction that does not balance, a wallet balance
below zero or away from its entries, a reused key. Real commits (transaction=True), because the
zero-sum and balance checks are deferred to commit."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from shop import selectors, services
from shop.models import Account, Entry, Reason, Transaction
from tests.support.ledger import balance, entries_sum, new_user, wallet

pytestmark = [pytest.mark.django_db(transaction=True)]
# The CHECK constraints hold on SQLite too; the triggers (append-only entries, balanced
# transactions at commit, balances equal to their entries) are PostgreSQL's.
TRIGGERS = pytest.mark.postgres(reason="the ledger's triggers are PostgreSQL's")


@pytest.fixture
def funded():
    user = new_user()
    services.signs_welcome(user=user)
    services.signs_debit(user=user, amount=30, key="purchase:guards")
    return user


def sql(statement: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def assert_untouched(user, expected: int) -> None:
    assert balance(user) == expected
    assert entries_sum(wallet(user).pk) == expected
    assert selectors.ledger_problems() == []


@TRIGGERS
def test_raw_update_of_an_entry_is_refused(funded):
    entry = Entry.objects.filter(account=wallet(funded)).first()
    with pytest.raises(IntegrityError, match="append-only"):
        sql("UPDATE shop_entry SET amount = amount + 1000 WHERE id = %s", [entry.pk])
    with pytest.raises(IntegrityError, match="append-only"):
        sql("UPDATE shop_entry SET balance_after = 5000 WHERE id = %s", [entry.pk])
    assert_untouched(funded, 70)


@TRIGGERS
def test_raw_delete_of_an_entry_is_refused(funded):
    entry = Entry.objects.filter(account=wallet(funded)).first()
    with pytest.raises(IntegrityError, match="append-only"):
        sql("DELETE FROM shop_entry WHERE id = %s", [entry.pk])
    # The ORM's delete is the same statement, refused the same way.
    with pytest.raises(IntegrityError, match="append-only"):
        Entry.objects.filter(pk=entry.pk).delete()
    assert_untouched(funded, 70)


@TRIGGERS
def test_a_transaction_that_does_not_balance_is_refused_at_commit(funded):
    grants = services.system_account_id("grants")
    rewards = services.system_account_id("rewards")
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        tx = Transaction.objects.create(key="unbalanced", reason=Reason.GRANT)
        Entry.objects.create(transaction=tx, account_id=grants, amount=-50)
        Entry.objects.create(transaction=tx, account_id=rewards, amount=40)
    # One line alone, and no line at all, are refused too.
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        tx = Transaction.objects.create(key="one-line", reason=Reason.GRANT)
        Entry.objects.create(transaction=tx, account_id=grants, amount=-50)
    with pytest.raises(IntegrityError, match="does not balance"):
        Transaction.objects.create(key="no-lines", reason=Reason.GRANT)
    assert not Transaction.objects.filter(key__in=["unbalanced", "one-line", "no-lines"]).exists()
    assert_untouched(funded, 70)


@TRIGGERS
def test_an_entry_added_later_to_a_balanced_transaction_is_refused(funded):
    tx = Transaction.objects.get(key="purchase:guards")
    with pytest.raises(IntegrityError, match="does not balance"):
        Entry.objects.create(
            transaction=tx, account_id=services.system_account_id("rewards"), amount=-5
        )
    assert_untouched(funded, 70)


def test_raw_update_of_a_balance_below_zero_is_refused(funded):
    with pytest.raises(IntegrityError, match="shop_wallet_balance_not_negative"):
        sql("UPDATE shop_account SET balance = -1 WHERE id = %s", [wallet(funded).pk])
    assert_untouched(funded, 70)


@TRIGGERS
def test_raw_update_of_a_balance_away_from_its_entries_is_refused_at_commit(funded):
    with pytest.raises(IntegrityError, match="holds a balance of 1000"):
        sql("UPDATE shop_account SET balance = 1000 WHERE id = %s", [wallet(funded).pk])
    assert_untouched(funded, 70)


@TRIGGERS
def test_a_wallet_entry_that_breaks_the_chain_is_refused(funded):
    account = wallet(funded)
    shop = services.system_account_id("shop")
    # Balanced, and the cached balance moved with it, but balance_after does not follow on.
    with pytest.raises(IntegrityError, match="balance_after"), transaction.atomic():
        tx = Transaction.objects.create(key="chain", reason=Reason.PURCHASE)
        Entry.objects.create(transaction=tx, account=account, amount=-10, balance_after=65)
        Entry.objects.create(transaction=tx, account_id=shop, amount=10)
    # An entry written without moving the cached balance is refused at commit.
    with pytest.raises(IntegrityError, match="holds a balance of 70"), transaction.atomic():
        tx = Transaction.objects.create(key="no-balance", reason=Reason.PURCHASE)
        Entry.objects.create(transaction=tx, account=account, amount=-10, balance_after=60)
        Entry.objects.create(transaction=tx, account_id=shop, amount=10)
    # A system account's entry keeps no running balance.
    with pytest.raises(IntegrityError, match="system account"), transaction.atomic():
        tx = Transaction.objects.create(key="system-balance", reason=Reason.GRANT)
        Entry.objects.create(transaction=tx, account_id=shop, amount=10, balance_after=10)
        Entry.objects.create(
            transaction=tx, account_id=services.system_account_id("grants"), amount=-10
        )
    assert_untouched(funded, 70)


def test_a_system_account_row_keeps_no_balance(funded):
    with pytest.raises(IntegrityError, match="shop_system_balance_not_kept"):
        sql("UPDATE shop_account SET balance = 5 WHERE slug = 'rewards'")


@TRIGGERS
def test_a_transaction_key_is_unique_and_a_transaction_is_fixed(funded):
    tx = Transaction.objects.get(key="purchase:guards")
    with pytest.raises(IntegrityError, match="shop_transaction_key"):
        sql(
            "INSERT INTO shop_transaction (key, reason, reference, memo, created_at) "
            "VALUES ('purchase:guards', 'grant', '', '', now())"
        )
    with pytest.raises(IntegrityError, match="fixed once written"):
        sql("UPDATE shop_transaction SET reason = 'grant' WHERE id = %s", [tx.pk])
    with pytest.raises(IntegrityError, match="fixed once written"):
        sql("DELETE FROM shop_transaction WHERE id = %s", [tx.pk])
    assert_untouched(funded, 70)


def test_deleting_a_staff_member_or_a_player_keeps_the_ledger(funded):
    staff = get_user_model().objects.create_user(username="staff", email="staff@example.com")
    services.signs_grant(user=funded, amount=5, reason_text="Sorry for the outage", actor=staff)
    staff.delete()  # SET_NULL on the actor: the one change a transaction allows
    grant = Transaction.objects.get(reason=Reason.GRANT)
    assert grant.actor_id is None and grant.memo == "Sorry for the outage"
    account_id = wallet(funded).pk
    funded.delete()
    account = Account.objects.get(pk=account_id)
    assert account.user_id is None and account.balance == 75 == entries_sum(account_id)
    assert selectors.ledger_problems() == []
