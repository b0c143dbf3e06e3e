"""The ledger's services on any database: every movement balances, wallets never go below zero,
keys make retries harmless, grants and refunds keep their rules, the welcome grant pays once."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from shop import selectors, services
from shop.models import Account, Entry, Reason, Transaction
from tests.support.ledger import balance, entries_sum, new_user, wallet
from veyltak_site.exceptions import ApplicationError

pytestmark = pytest.mark.django_db


def lines(tx: Transaction) -> dict[str, int]:
    """A transaction's entries as {"wallet"|system slug: amount}."""
    return {(e.account.slug or "wallet"): e.amount for e in tx.entries.select_related("account")}


def test_credit_and_debit_move_signs_between_a_wallet_and_a_system_account(user):
    granted = services.signs_grant(user=user, amount=50, reason_text="Beta tester")
    assert granted.created and lines(granted.transaction) == {"wallet": 50, "grants": -50}
    bought = services.signs_debit(user=user, amount=20, key="purchase:1", reference="purchase:1")
    assert lines(bought.transaction) == {"wallet": -20, "shop": 20}
    assert bought.balances == {wallet(user).pk: 30}
    assert balance(user) == 30 == entries_sum(wallet(user).pk)
    entries = list(Entry.objects.filter(account=wallet(user)).order_by("id"))
    assert [(e.amount, e.balance_after) for e in entries] == [(50, 50), (-20, 30)]
    assert selectors.system_balances() == {"rewards": 0, "grants": -50, "shop": 20}
    # The system rows keep nothing: their balance is derived from their entries.
    assert set(Account.objects.filter(kind="system").values_list("balance", flat=True)) == {0}
    assert selectors.ledger_problems() == []


def test_a_debit_beyond_the_balance_is_refused_and_writes_nothing(user):
    services.signs_grant(user=user, amount=10, reason_text="Test")
    before = Transaction.objects.count()
    with pytest.raises(ApplicationError) as refused:
        services.signs_debit(user=user, amount=11, key="purchase:too-much")
    assert refused.value.code == "insufficient_signs" and refused.value.status_code == 409
    assert Transaction.objects.count() == before and balance(user) == 10
    # Exactly the balance is fine, down to zero.
    services.signs_debit(user=user, amount=10, key="purchase:all")
    assert balance(user) == 0


@pytest.mark.parametrize("amount", [0, -5, 2.5, "10", True, None])
def test_amounts_are_positive_whole_numbers(user, amount):
    with pytest.raises(ApplicationError) as refused:
        services.signs_debit(user=user, amount=amount, key="purchase:odd")
    assert refused.value.code == "invalid_amount"
    with pytest.raises(ApplicationError):
        services.signs_grant(user=user, amount=amount, reason_text="Odd")
    assert not Transaction.objects.exists()


def test_the_same_key_twice_pays_once_and_a_different_movement_under_it_is_refused(user):
    first = services.signs_credit(user=user, amount=25, reason=Reason.FEATURED, key="slot:a:1")
    again = services.signs_credit(user=user, amount=25, reason=Reason.FEATURED, key="slot:a:1")
    assert first.created and not again.created
    assert again.transaction.pk == first.transaction.pk and balance(user) == 25
    for kwargs in ({"amount": 30}, {"reason": Reason.HEIST}, {"user": new_user()}):
        call = {"user": user, "amount": 25, "reason": Reason.FEATURED, "key": "slot:a:1", **kwargs}
        with pytest.raises(ApplicationError) as refused:
            services.signs_credit(**call)
        assert refused.value.code == "ledger_key_conflict"
    assert Transaction.objects.count() == 1 and balance(user) == 25


def test_reasons_go_to_their_own_system_accounts(user):
    with pytest.raises(ValueError):
        services.signs_credit(user=user, amount=5, reason=Reason.PURCHASE, key="x")
    with pytest.raises(ValueError):
        services.signs_debit(user=user, amount=5, reason=Reason.GRANT, key="y")
    assert not Transaction.objects.exists()


def test_a_payout_pays_several_players_in_one_balanced_transaction():
    first, second, third = new_user(), new_user(), new_user()
    posted = services.signs_payout(
        payouts=[(third, 75), (first, 150), (second, 100)],
        reason=Reason.FEATURED,
        key="featured:slot-1:top3",
        reference="featured:slot-1",
    )
    assert lines(posted.transaction)["rewards"] == -325
    assert [balance(u) for u in (first, second, third)] == [150, 100, 75]
    assert posted.transaction.entries.count() == 4
    repeat = services.signs_payout(
        payouts=[(first, 150), (second, 100), (third, 75)],
        reason=Reason.FEATURED,
        key="featured:slot-1:top3",
    )
    assert not repeat.created and Transaction.objects.count() == 1
    assert selectors.ledger_problems() == []


def test_welcome_grant_pays_100_once_per_player(user):
    for _ in range(3):
        services.signs_welcome(user=user)
    assert balance(user) == 100
    tx = Transaction.objects.get()
    assert tx.reason == "welcome" and tx.key == f"welcome:{user.pk}"
    assert lines(tx) == {"wallet": 100, "grants": -100}


def test_staff_grant_records_the_actor_and_the_reason(user):
    staff = get_user_model().objects.create_user(username="staff", email="staff@example.com")
    posted = services.signs_grant(
        user=user, amount=40, reason_text="  Lost a heist to a bug  ", actor=staff, key="form:1"
    )
    assert posted.transaction.actor == staff
    assert posted.transaction.memo == "Lost a heist to a bug"
    # The same form sent twice (the same key) grants once.
    services.signs_grant(
        user=user, amount=40, reason_text="Lost a heist to a bug", actor=staff, key="form:1"
    )
    assert balance(user) == 40
    for text in ("", "   ", "x" * 201):
        with pytest.raises(ApplicationError) as refused:
            services.signs_grant(user=user, amount=5, reason_text=text)
        assert refused.value.code == "invalid_reason"
    with pytest.raises(ApplicationError) as refused:
        services.signs_grant(user=user, amount=services.GRANT_MAX + 1, reason_text="Typo")
    assert refused.value.code == "invalid_amount"
    assert balance(user) == 40


def _purchase(user, amount: int, key: str) -> Transaction:
    return services.signs_debit(user=user, amount=amount, key=key).transaction


def test_a_refund_gives_back_at_most_the_purchase_and_only_once(user):
    staff = get_user_model().objects.create_user(username="staff", email="staff@example.com")
    services.signs_grant(user=user, amount=200, reason_text="Start")
    purchase = _purchase(user, 150, "purchase:crew")
    assert balance(user) == 50
    with pytest.raises(ApplicationError) as refused:
        services.signs_refund(purchase_id=purchase.pk, amount=151, actor=staff)
    assert refused.value.code == "invalid_amount"
    refund = services.signs_refund(purchase_id=purchase.pk, amount=100, actor=staff, note="Bug")
    assert lines(refund.transaction) == {"wallet": 100, "shop": -100}
    assert refund.transaction.refund_of == purchase and refund.transaction.actor == staff
    assert balance(user) == 150
    for amount in (None, 50, 1):
        with pytest.raises(ApplicationError) as refused:
            services.signs_refund(purchase_id=purchase.pk, amount=amount, actor=staff)
        assert refused.value.code == "already_refunded"
    assert balance(user) == 150
    # In full by default.
    second = _purchase(user, 80, "purchase:back")
    services.signs_refund(purchase_id=second.pk)
    assert balance(user) == 150
    assert selectors.ledger_problems() == []


def test_only_purchases_are_refunded(user):
    grant = services.signs_grant(user=user, amount=20, reason_text="Start").transaction
    with pytest.raises(ApplicationError) as refused:
        services.signs_refund(purchase_id=grant.pk)
    assert refused.value.code == "not_refundable"
    with pytest.raises(ApplicationError) as refused:
        services.signs_refund(purchase_id=grant.pk + 1000)
    assert refused.value.code == "not_found"
    refund = services.signs_refund(purchase_id=_purchase(user, 5, "purchase:r").pk).transaction
    with pytest.raises(ApplicationError) as refused:
        services.signs_refund(purchase_id=refund.pk)
    assert refused.value.code == "not_refundable"
    assert balance(user) == 20


def test_a_deleted_players_wallet_stays_in_the_ledger_and_can_be_refunded_into(user):
    services.signs_grant(user=user, amount=30, reason_text="Start")
    purchase = _purchase(user, 30, "purchase:gone")
    account_id = wallet(user).pk
    user.delete()
    services.signs_refund(purchase_id=purchase.pk)
    assert Account.objects.get(pk=account_id).balance == 30 == entries_sum(account_id)
    assert selectors.ledger_problems() == []


def test_a_guest_has_no_wallet_and_cannot_be_paid():
    from django.contrib.auth.models import AnonymousUser

    assert selectors.wallet_balance(user=AnonymousUser()) is None
    with pytest.raises(ApplicationError) as refused:
        services.signs_credit(user=AnonymousUser(), amount=5, reason=Reason.GRANT, key="g")
    assert refused.value.code == "sign_in_required"
