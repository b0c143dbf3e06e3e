"""Writes of the shop, one module per job: keyword-only, typed, each under transaction.atomic.

- ``ledger``: one movement of Signs (``_post``, under the wallets' row locks) and the credits,
  debits and payouts built on it; the system accounts.
- ``earning``: what a finished heist earns, once; the welcome grant.
- ``grants``: staff grants.
- ``refunds``: a purchase given back, with its item.
- ``catalogue``: the catalogue file copied into the shop's table.
- ``idempotency``: a purchase's Idempotency-Key, its stored answer and their expiry.
- ``purchases``: an item bought with Signs.
- ``cosmetics``: what a player wears.

Callers use the names below (``from shop import services``; ``services.signs_grant(...)``);
which module holds a function is this package's business.
"""

from shop.services.catalogue import shop_catalogue_load
from shop.services.cosmetics import item_equip
from shop.services.earning import (
    AbandonedHeist,
    HeistSigns,
    heists_abandoned,
    signs_award,
    signs_welcome,
)
from shop.services.grants import GRANT_MAX, signs_grant
from shop.services.idempotency import (
    IDEMPOTENCY_KEY_MAX,
    StoredAnswer,
    idempotency_key_check,
    idempotency_records_clear,
    purchase_lock_id,
    purchase_request_hash,
)
from shop.services.ledger import (
    CREDIT_REASONS,
    DEBIT_REASONS,
    SYSTEM_ACCOUNT,
    SYSTEM_ACCOUNTS,
    Posted,
    signs_credit,
    signs_debit,
    signs_payout,
    system_account_id,
    system_accounts_ensure,
)
from shop.services.purchases import item_purchase
from shop.services.refunds import signs_refund

__all__ = [
    "CREDIT_REASONS",
    "DEBIT_REASONS",
    "GRANT_MAX",
    "IDEMPOTENCY_KEY_MAX",
    "SYSTEM_ACCOUNT",
    "SYSTEM_ACCOUNTS",
    "AbandonedHeist",
    "HeistSigns",
    "Posted",
    "StoredAnswer",
    "heists_abandoned",
    "idempotency_key_check",
    "idempotency_records_clear",
    "item_equip",
    "item_purchase",
    "purchase_lock_id",
    "purchase_request_hash",
    "shop_catalogue_load",
    "signs_award",
    "signs_credit",
    "signs_debit",
    "signs_grant",
    "signs_payout",
    "signs_refund",
    "signs_welcome",
    "system_account_id",
    "system_accounts_ensure",
]
