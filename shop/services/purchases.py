"""Purchases in the shop: an item bought with Signs, once per Idempotency-Key."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from shop.models import IdempotencyRecord, Ownership, Purchase, Reason, ShopItem
from shop.services.idempotency import StoredAnswer, _key_lock, idempotency_key_check
from shop.services.ledger import _lock, _post, _user_id, system_account_id
from veyltak_site import metrics
from veyltak_site.exceptions import ApplicationError


@transaction.atomic
def item_purchase(
    *,
    user: AbstractBaseUser,
    key: str,
    request_hash: str,
    item: object,
    price: object,
    render: Callable[[dict], bytes],
) -> StoredAnswer:
    """Buy ``item`` (a slug) at ``price`` (what the player was shown), once per ``key``.

    One database transaction writes the purchase, its ledger transaction (reason
    ``purchase``), the player's ownership and the stored answer (``render`` turns the answer's
    data into the bytes sent). The key belongs to the player:

    - a key with a stored answer and the same ``request_hash`` answers with it again
      (``replayed``) and writes nothing; with another hash: 422 ``idempotency_key_reused``;
    - a key another request is processing: 409 ``request_in_progress``.

    Refusals (nothing is written and nothing is stored, so the key stays free to retry):
    404 ``unknown_item`` (not in the catalogue or not on sale); 409 ``price_changed`` (``price``
    is not today's), ``already_owned``, ``insufficient_signs``.

    Locks: the key (advisory), then the wallet (``_lock``, the ledger's own). Ownership is
    checked under the wallet's lock, so two purchases of one item with different keys queue
    there and the second finds the first's row; the unique ownership backs it.
    """
    uid = _user_id(user)
    key = idempotency_key_check(key)
    _key_lock(uid, key)
    stored = IdempotencyRecord.objects.filter(user_id=uid, key=key).first()
    if stored is not None:
        if stored.request_hash != request_hash:
            raise ApplicationError(
                "idempotency_key_reused",
                "This Idempotency-Key was used for a different purchase; use a new key.",
                status_code=422,
            )
        return StoredAnswer(stored.status_code, stored.body.encode(), replayed=True)
    shop_item = (
        ShopItem.objects.filter(slug=item, active=True).first() if isinstance(item, str) else None
    )
    if shop_item is None:
        raise ApplicationError(
            "unknown_item", "The shop sells nothing by that name.", status_code=404
        )
    if price != shop_item.price:
        raise ApplicationError(
            "price_changed",
            f"{shop_item.name} costs {shop_item.price} Signs now, not {price}.",
            status_code=409,
            fields={"price": [str(shop_item.price)]},
        )
    locked = _lock(user_ids=[uid])
    if Ownership.objects.filter(user_id=uid, item=shop_item).exists():
        raise ApplicationError(
            "already_owned", f"You own {shop_item.name} already.", status_code=409
        )
    wallet = locked.wallets[uid]
    posted = _post(
        lines={wallet: -shop_item.price, system_account_id("shop"): shop_item.price},
        locked=locked,
        reason=Reason.PURCHASE,
        # The ledger key only has to be unique: the Idempotency-Key (whose records expire)
        # already makes a retried request buy once.
        key=f"purchase:{uuid.uuid4().hex}",
        reference=f"item:{shop_item.slug}",
        memo=f"Bought {shop_item.name}",
    )
    purchase = Purchase.objects.create(
        user_id=uid,
        item=shop_item,
        price=shop_item.price,
        transaction=posted.transaction,
        created_at=posted.transaction.created_at,
    )
    Ownership.objects.create(user_id=uid, item=shop_item, purchase=purchase)
    metrics.purchase_made(kind=shop_item.kind)
    body = render(
        {
            "purchase": {
                "id": purchase.pk,
                "item": shop_item.slug,
                "price": purchase.price,
                "at": purchase.created_at,
            },
            "balance": posted.balances[wallet],
        }
    )
    IdempotencyRecord.objects.create(
        user_id=uid,
        key=key,
        request_hash=request_hash,
        status_code=201,
        body=body.decode(),
        purchase=purchase,
    )
    return StoredAnswer(201, body, replayed=False)
