"""Refunds of purchases (staff, in the admin): the Signs go back and the item leaves the
collection, once."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from shop.models import Account, Equipped, Ownership, Reason, Transaction
from shop.services.ledger import SYSTEM_ACCOUNT, Posted, _amount, _lock, _post, system_account_id
from veyltak_site.exceptions import ApplicationError


@transaction.atomic
def signs_refund(
    *,
    purchase_id: int,
    amount: int | None = None,
    actor: AbstractBaseUser | None = None,
    note: str = "",
) -> Posted:
    """Give back a purchase's Signs, all (``amount`` None) or part, once. A refunded shop
    purchase takes its item back: the player no longer owns it (nor wears it), in the same
    database transaction, so a refund cannot leave an item both paid back and kept.

    Refused: 404 ``not_found``; 409 ``not_refundable`` (not a purchase); 400 ``invalid_amount``
    (more than was paid, or not above zero); 409 ``already_refunded``.
    """
    purchase = Transaction.objects.filter(pk=purchase_id).first()
    if purchase is None:
        raise ApplicationError("not_found", "There is no such transaction.", status_code=404)
    if purchase.reason != Reason.PURCHASE:
        raise ApplicationError("not_refundable", "Only purchases can be refunded.", status_code=409)
    paid_line = purchase.entries.select_related("account").get(account__kind=Account.Kind.WALLET)
    paid = -paid_line.amount
    amount = paid if amount is None else _amount(amount)
    if amount > paid:
        message = f"A refund is at most what was paid ({paid} Signs)."
        raise ApplicationError("invalid_amount", message, fields={"amount": [message]})
    system = system_account_id(SYSTEM_ACCOUNT[Reason.REFUND])
    wallet = paid_line.account
    # By account, not by player: a closed (deleted) player's wallet is still refunded into.
    locked = _lock(account_ids=[wallet.pk])
    if Transaction.objects.filter(refund_of=purchase).exists():
        raise ApplicationError(
            "already_refunded", "This purchase has been refunded already.", status_code=409
        )
    posted = _post(
        lines={wallet.pk: amount, system: -amount},
        locked=locked,
        reason=Reason.REFUND,
        key=f"refund:{purchase.pk}",
        reference=f"transaction:{purchase.pk}",
        memo=(note or "").strip(),
        actor_id=actor.pk if actor is not None else None,
        refund_of=purchase,
    )
    _ownership_revoke(transaction_id=purchase.pk)
    return posted


def _ownership_revoke(*, transaction_id: int) -> int:
    """The item a refunded purchase bought leaves the player's collection and what they wear.
    Caller is atomic (signs_refund). Returns how many items went (0 or 1)."""
    owned = list(
        Ownership.objects.select_for_update()
        .filter(purchase__transaction_id=transaction_id)
        .values_list("pk", "user_id", "item_id")
    )
    for pk, user_id, item_id in owned:
        Ownership.objects.filter(pk=pk).delete()
        Equipped.objects.filter(user_id=user_id, item_id=item_id).delete()
    return len(owned)
