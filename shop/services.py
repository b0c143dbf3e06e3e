"""Writes of the Signs ledger: keyword-only, typed, each under transaction.atomic.

Every movement goes through :func:`_post`, which writes one transaction whose entries sum to
zero, applies the wallet lines to the cached balances under row locks, and refuses a wallet
that would go below zero. The rules it keeps (DESIGN.md section 6):

- **Idempotent by key.** A transaction key is unique. Posting a key that exists already writes
  nothing and answers with the first transaction when it is the same movement, or 409
  ``ledger_key_conflict`` when it is not. The key is checked under the wallets' row locks, so two
  posts of one key for one wallet queue and the second finds the first.
- **Locks in one order.** The wallets a movement touches are locked ``FOR NO KEY UPDATE`` in
  primary-key order, so two movements over the same wallets can never wait on each other in a
  cycle. (NO KEY: the entries' foreign keys take KEY SHARE locks on their accounts at commit,
  which must not queue behind a wallet's lock.)
- **Balance with its entries.** The cached balance changes only here, with ``F()``, in the same
  transaction as the entries, and each wallet entry records the balance after it.
- **No hot row.** System accounts are never locked or updated: their balance is the sum of their
  entries. Only wallets carry a cached balance, so movements on different wallets never wait
  for each other (bench/ledger.py).

The shop does not import the game: :func:`signs_award` is told everything about a finished
heist by its caller (``game.services.heist_finish``), inside the transaction that finishes it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, models, transaction
from django.db.models import F
from django.utils import timezone

from accounts import persons
from accounts import selectors as account_selectors
from shop.catalogue import get_catalogue
from shop.economy import OUTCOMES, EconomyError, get_economy
from shop.models import (
    COSMETIC_KINDS,
    Account,
    Entry,
    Equipped,
    HeistEarning,
    IdempotencyRecord,
    ItemKind,
    Ownership,
    Purchase,
    Reason,
    ShopItem,
    SignsReason,
    Transaction,
)
from veyltak_site.exceptions import ApplicationError

# The system account on the other side of each reason.
SYSTEM_ACCOUNT = {
    Reason.HEIST: "rewards",
    Reason.FEATURED: "rewards",
    Reason.WELCOME: "grants",
    Reason.GRANT: "grants",
    Reason.PURCHASE: "shop",
    Reason.REFUND: "shop",
}
SYSTEM_ACCOUNTS = ("rewards", "grants", "shop")
CREDIT_REASONS = frozenset({Reason.HEIST, Reason.FEATURED, Reason.WELCOME, Reason.GRANT})
DEBIT_REASONS = frozenset({Reason.PURCHASE})

KEY_MAX = Transaction._meta.get_field("key").max_length
MEMO_MAX = Transaction._meta.get_field("memo").max_length
REFERENCE_MAX = Transaction._meta.get_field("reference").max_length
# A staff grant above this is a typo (an extra zero or two), not a gift.
GRANT_MAX = 100_000


@dataclass(frozen=True, slots=True)
class Posted:
    """A movement as posted: ``created`` is False when the key had been posted before (the
    same movement, answered again, nothing written). ``balances``: wallet account id -> its
    balance now."""

    transaction: Transaction
    created: bool
    balances: dict[int, int]


@dataclass(frozen=True, slots=True)
class HeistSigns:
    """What :func:`signs_award` decided: ``amount`` is None when no earning was recorded at
    all (guest, abandoned, incomplete), 0 for a heist past the daily limit."""

    amount: int | None
    reason: SignsReason
    replayed: bool = False


# --- The core --------------------------------------------------------------------------------


def _amount(value: object, *, what: str = "amount") -> int:
    if type(value) is not int or value <= 0:
        message = f"The {what} must be a whole number of Signs above zero."
        raise ApplicationError("invalid_amount", message, fields={what: [message]})
    return value


def _key(key: str) -> str:
    if not isinstance(key, str) or not key or len(key) > KEY_MAX:
        raise ApplicationError("invalid_key", f"A ledger key is 1 to {KEY_MAX} characters.")
    return key


_system_ids: dict[str, int] = {}


def system_account_id(slug: str) -> int:
    """The id of system account ``slug``; cached per process, created if it is missing (the
    migration creates them; a flushed test database loses them: system_accounts_ensure)."""
    if slug not in SYSTEM_ACCOUNTS:
        raise ValueError(f"no system account {slug!r}")
    if slug not in _system_ids:
        account, _ = Account.objects.get_or_create(kind=Account.Kind.SYSTEM, slug=slug)
        _system_ids[slug] = account.pk
    return _system_ids[slug]


def system_accounts_ensure() -> None:
    """Create the system accounts that are missing and forget the cached ids. Run after every
    migrate and flush (post_migrate): a flush empties the tables under a running process."""
    _system_ids.clear()
    for slug in SYSTEM_ACCOUNTS:
        system_account_id(slug)


@dataclass(slots=True)
class _Locked:
    """Accounts locked for one movement: ``accounts`` by id, ``wallets`` player id -> id."""

    accounts: dict[int, Account]
    wallets: dict[int, int]


def _lock(*, user_ids: Iterable[int] = (), account_ids: Iterable[int] = ()) -> _Locked:
    """Lock the wallets of the players ``user_ids`` (created when missing) and the wallets
    ``account_ids``, all in primary-key order, for the caller's transaction."""
    user_ids = sorted(set(user_ids))
    account_ids = sorted(set(account_ids))

    def lock() -> list[Account]:
        return list(
            Account.objects.select_for_update(no_key=True)
            .filter(models.Q(user_id__in=user_ids) | models.Q(pk__in=account_ids))
            .filter(kind=Account.Kind.WALLET)
            .order_by("pk")
        )

    # Missing wallets are created before any row is locked. A transaction that inserts while
    # holding a row lock can close a cycle with one that holds that row's insert and waits for
    # the lock (seen with payouts over several players). Inserts in player order, then locks in
    # pk order: a waiter never holds what another waiter needs.
    have = set(
        Account.objects.filter(kind=Account.Kind.WALLET, user_id__in=user_ids).values_list(
            "user_id", flat=True
        )
    )
    if missing := set(user_ids) - have:
        # ON CONFLICT DO NOTHING: a concurrent first movement of the same player creates the
        # same wallet; this insert waits for it and then leaves it be.
        Account.objects.bulk_create(
            [Account(kind=Account.Kind.WALLET, user_id=u) for u in sorted(missing)],
            ignore_conflicts=True,
        )
    rows = lock()
    return _Locked(
        accounts={a.pk: a for a in rows},
        wallets={a.user_id: a.pk for a in rows if a.is_wallet and a.user_id in user_ids},
    )


def _same_movement(existing: Transaction, reason: str, lines: dict[int, int]) -> bool:
    stored = dict(existing.entries.values_list("account_id", "amount"))
    return existing.reason == reason and stored == lines


def _post(
    *,
    lines: dict[int, int],
    locked: _Locked,
    reason: str,
    key: str,
    reference: str = "",
    memo: str = "",
    actor_id: int | None = None,
    refund_of: Transaction | None = None,
) -> Posted:
    """Write one transaction: ``lines`` is {account id: amount}, summing to zero, over the
    wallets the caller has locked (:func:`_lock`) and system accounts. Caller is atomic.

    System accounts are neither locked nor updated: their balance is the sum of their entries
    (``selectors.system_balances``). Kept on their rows, every award in the site would queue
    for the one ``rewards`` row until the award before it committed (bench/ledger.py
    ``--lock-system`` measures that); as it is, movements on different wallets share nothing
    but inserts into the entry table.
    """
    if sum(lines.values()) != 0 or len(lines) < 2 or 0 in lines.values():
        raise ValueError(f"unbalanced ledger transaction {lines!r}")
    wallets = locked.accounts
    system = set(_system_ids.values())
    if unknown := set(lines) - set(wallets) - system:
        raise ValueError(f"accounts {sorted(unknown)} are neither locked wallets nor system")
    existing = Transaction.objects.filter(key=key).first()
    if existing is not None:
        if not _same_movement(existing, reason, lines):
            raise ApplicationError(
                "ledger_key_conflict",
                "This ledger key was used for a different movement of Signs.",
                status_code=409,
            )
        return Posted(existing, False, {pk: a.balance for pk, a in wallets.items()})
    after: dict[int, int] = {}
    for pk, amount in lines.items():
        if pk not in wallets:
            continue
        after[pk] = wallets[pk].balance + amount
        if after[pk] < 0:
            raise ApplicationError(
                "insufficient_signs",
                f"That needs {-amount} Signs; the wallet holds {wallets[pk].balance}.",
                status_code=409,
            )
    tx = Transaction.objects.create(
        key=key,
        reason=reason,
        reference=reference[:REFERENCE_MAX],
        memo=memo[:MEMO_MAX],
        actor_id=actor_id,
        refund_of=refund_of,
    )
    Entry.objects.bulk_create(
        [
            Entry(transaction=tx, account_id=pk, amount=amount, balance_after=after.get(pk))
            for pk, amount in sorted(lines.items())
        ]
    )
    for pk in sorted(after):
        Account.objects.filter(pk=pk).update(balance=F("balance") + lines[pk])
        wallets[pk].balance = after[pk]
    return Posted(tx, True, {pk: a.balance for pk, a in wallets.items()})


# --- The seam: credits, debits and payouts -----------------------------------------------------


def _user_id(user: AbstractBaseUser | int) -> int:
    pk = user if isinstance(user, int) else user.pk
    if pk is None:
        raise ApplicationError(
            "sign_in_required", "Signs are for signed-in players.", status_code=403
        )
    return pk


@transaction.atomic
def signs_credit(
    *,
    user: AbstractBaseUser | int,
    amount: int,
    reason: str,
    key: str,
    reference: str = "",
    memo: str = "",
    actor: AbstractBaseUser | None = None,
) -> Posted:
    """Pay ``amount`` Signs into a player's wallet from the reason's system account."""
    if reason not in CREDIT_REASONS:
        raise ValueError(f"{reason!r} is not a reason to credit a wallet")
    uid, amount, key = _user_id(user), _amount(amount), _key(key)
    system = system_account_id(SYSTEM_ACCOUNT[reason])
    locked = _lock(user_ids=[uid])
    return _post(
        lines={locked.wallets[uid]: amount, system: -amount},
        locked=locked,
        reason=reason,
        key=key,
        reference=reference,
        memo=memo,
        actor_id=actor.pk if actor is not None else None,
    )


@transaction.atomic
def signs_debit(
    *,
    user: AbstractBaseUser | int,
    amount: int,
    reason: str = Reason.PURCHASE,
    key: str,
    reference: str = "",
    memo: str = "",
) -> Posted:
    """Take ``amount`` Signs from a player's wallet (a purchase): 409 ``insufficient_signs``
    when the wallet holds less, and nothing is written. The shop's purchases call this with a
    key derived from the player and their Idempotency-Key."""
    if reason not in DEBIT_REASONS:
        raise ValueError(f"{reason!r} is not a reason to debit a wallet")
    uid, amount, key = _user_id(user), _amount(amount), _key(key)
    system = system_account_id(SYSTEM_ACCOUNT[reason])
    locked = _lock(user_ids=[uid])
    return _post(
        lines={locked.wallets[uid]: -amount, system: amount},
        locked=locked,
        reason=reason,
        key=key,
        reference=reference,
        memo=memo,
    )


@transaction.atomic
def signs_payout(
    *,
    payouts: Sequence[tuple[AbstractBaseUser | int, int]],
    reason: str,
    key: str,
    reference: str = "",
    memo: str = "",
) -> Posted:
    """Pay several players in one transaction (a featured slot's top three): one key, all or
    nothing. The wallets are locked in primary-key order whatever order ``payouts`` is in."""
    if reason not in CREDIT_REASONS:
        raise ValueError(f"{reason!r} is not a reason to credit a wallet")
    key = _key(key)
    amounts: dict[int, int] = {}
    for user, amount in payouts:
        uid = _user_id(user)
        amounts[uid] = amounts.get(uid, 0) + _amount(amount)
    if not amounts:
        raise ApplicationError("invalid_amount", "A payout needs at least one player.")
    system = system_account_id(SYSTEM_ACCOUNT[reason])
    locked = _lock(user_ids=amounts)
    lines = {locked.wallets[uid]: amount for uid, amount in amounts.items()}
    lines[system] = -sum(amounts.values())
    return _post(lines=lines, locked=locked, reason=reason, key=key, reference=reference, memo=memo)


# --- Heists, welcome, grants, refunds -----------------------------------------------------------


def signs_award(
    *,
    player_id: int | None,
    heist_id: uuid.UUID,
    outcome: str,
    difficulty: str,
    nights_sealed: int,
    nights: int,
    finished_at: dt.datetime,
) -> HeistSigns:
    """The Signs a heist earns when it closes, paid once (DESIGN.md section 6).

    The caller (the game, inside the transaction that finishes the heist) says who played
    (``player_id``, None for a guest), how it ended (``outcome``: win, draw, loss or
    ``abandoned``), at which difficulty, how many of its ``nights`` the player sealed, and
    when it finished. Guests, abandoned heists and heists with a night the player did not
    seal earn nothing and write nothing. Otherwise one :class:`HeistEarning` row per heist:
    the player's first ``daily_heist_limit`` heists of the UTC day of ``finished_at`` earn
    the table's amount, later ones 0 with the reason ``daily_limit``.

    Keyed by the heist: a retry, a second worker or a double request answers with the first
    decision (``replayed``) and writes nothing.
    """
    if outcome == SignsReason.ABANDONED:
        return HeistSigns(None, SignsReason.ABANDONED)
    if outcome not in OUTCOMES:
        raise EconomyError(f"unknown heist outcome {outcome!r}")
    if player_id is None:
        return HeistSigns(None, SignsReason.GUEST)
    if nights <= 0 or nights_sealed < nights:
        return HeistSigns(None, SignsReason.INCOMPLETE)
    if finished_at.tzinfo is None:
        raise ValueError("finished_at must be an aware datetime")
    economy = get_economy()
    amount = economy.heist_signs(outcome=outcome, difficulty=difficulty)
    return _heist_award(
        player_id=player_id,
        heist_id=heist_id,
        outcome=outcome,
        difficulty=difficulty,
        day=finished_at.astimezone(dt.UTC).date(),
        amount=amount,
        economy=economy,
    )


_OUTCOME_TEXT = {"win": "Won", "draw": "Drew", "loss": "Lost"}


@transaction.atomic
def _heist_award(*, player_id, heist_id, outcome, difficulty, day, amount, economy) -> HeistSigns:
    system = system_account_id(SYSTEM_ACCOUNT[Reason.HEIST])
    # The wallet's lock also serialises the daily count: two heists of one player finishing
    # at once cannot both be the 20th.
    locked = _lock(user_ids=[player_id])
    existing = HeistEarning.objects.filter(heist_id=heist_id).first()
    if existing is not None:
        if existing.user_id != player_id:
            raise ApplicationError(
                "ledger_key_conflict",
                "This heist's Signs went to another player.",
                status_code=409,
            )
        return HeistSigns(existing.amount, SignsReason(existing.result), replayed=True)
    earning = HeistEarning(
        heist_id=heist_id,
        user_id=player_id,
        day=day,
        outcome=outcome,
        difficulty=difficulty,
        economy=economy.version,
    )
    if HeistEarning.objects.filter(user_id=player_id, day=day).count() >= economy.daily_heist_limit:
        earning.amount, earning.result = 0, HeistEarning.Result.DAILY_LIMIT
        earning.save()
        return HeistSigns(0, SignsReason.DAILY_LIMIT)
    posted = _post(
        lines={locked.wallets[player_id]: amount, system: -amount},
        locked=locked,
        reason=Reason.HEIST,
        key=f"heist:{heist_id}",
        reference=f"heist:{heist_id}",
        memo=f"{_OUTCOME_TEXT[outcome]} at {difficulty.capitalize()}",
    )
    earning.amount, earning.result, earning.transaction = (
        amount,
        HeistEarning.Result.EARNED,
        posted.transaction,
    )
    earning.save()
    return HeistSigns(amount, SignsReason.EARNED)


@dataclass(frozen=True, slots=True)
class AbandonedHeist:
    heist_id: uuid.UUID
    player_id: int
    difficulty: str
    finished_at: dt.datetime


@transaction.atomic
def heists_abandoned(*, heists: Iterable[AbandonedHeist]) -> int:
    """Signed-in players' heists closed unfinished count toward the day's
    ``daily_heist_limit`` (issue 27, S13): one :class:`HeistEarning` of 0 each, result
    ``abandoned``, outcome ``loss``, on the UTC day it was closed; otherwise leaving a losing
    heist cost nothing and the limit capped good results, not play. Under the players'
    wallet locks, as the award's count. A heist recorded already is left as it is. Returns
    how many were recorded."""
    heists = list(heists)
    if not heists:
        return 0
    _lock(user_ids=[h.player_id for h in heists])
    version = get_economy().version
    rows = HeistEarning.objects.bulk_create(
        [
            HeistEarning(
                heist_id=h.heist_id,
                user_id=h.player_id,
                day=h.finished_at.astimezone(dt.UTC).date(),
                outcome="loss",
                difficulty=h.difficulty,
                economy=version,
                amount=0,
                result=HeistEarning.Result.ABANDONED,
            )
            for h in heists
        ],
        ignore_conflicts=True,
    )
    return len(rows)


def signs_welcome(*, user: AbstractBaseUser) -> Posted | None:
    """The welcome grant, once per player whatever calls it how often (keyed by the player),
    and once per person: None, nothing paid, for an account with an address a deleted account
    of theirs had (accounts.selectors.person_used, issue 27, S4)."""
    if account_selectors.person_used(user_id=user.pk, what=persons.WELCOME):
        return None
    return signs_credit(
        user=user,
        amount=get_economy().welcome,
        reason=Reason.WELCOME,
        key=f"welcome:{user.pk}",
        reference=f"user:{user.pk}",
        memo="Welcome to VEYLTAK",
    )


def signs_grant(
    *,
    user: AbstractBaseUser | int,
    amount: int,
    reason_text: str,
    actor: AbstractBaseUser | None = None,
    key: str | None = None,
) -> Posted:
    """A staff grant of ``amount`` Signs (1 to GRANT_MAX) with a stated reason; ``actor`` is
    recorded. ``key`` makes a retried grant (a form sent twice) pay once; without one, every
    call is a new grant."""
    reason_text = (reason_text or "").strip()
    if not reason_text or len(reason_text) > MEMO_MAX:
        message = f"Say why, in 1 to {MEMO_MAX} characters."
        raise ApplicationError("invalid_reason", message, fields={"reason": [message]})
    if type(amount) is int and amount > GRANT_MAX:
        message = f"A grant is at most {GRANT_MAX} Signs."
        raise ApplicationError("invalid_amount", message, fields={"amount": [message]})
    return signs_credit(
        user=user,
        amount=amount,
        reason=Reason.GRANT,
        key=key or f"grant:{uuid.uuid4().hex}",
        memo=reason_text,
        actor=actor,
    )


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


# --- The shop: catalogue, purchases, equipping (DESIGN.md sections 5-7) -------------------------

IDEMPOTENCY_KEY_MAX = IdempotencyRecord._meta.get_field("key").max_length


@transaction.atomic
def shop_catalogue_load() -> int:
    """Copy the catalogue file into the ShopItem table; safe to run again. An item that left
    the file is kept (purchases and collections name it) and taken off sale. Returns the
    number of items in the file."""
    catalogue = get_catalogue()
    for position, item in enumerate(catalogue.items):
        ShopItem.objects.update_or_create(
            slug=item.slug,
            defaults={
                "kind": item.kind,
                "name": item.name,
                "description": item.description,
                "price": item.price,
                "active": item.active,
                "art": item.art,
                "position": position,
            },
        )
    ShopItem.objects.exclude(slug__in=[i.slug for i in catalogue.items]).update(active=False)
    return len(catalogue.items)


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """A purchase request's answer as sent the first time: ``body`` byte for byte.
    ``replayed`` is True when this request found the answer stored by an earlier one."""

    status_code: int
    body: bytes
    replayed: bool


def idempotency_key_check(key: object) -> str:
    """The ``Idempotency-Key`` header: 1 to 64 visible ASCII characters, else 400."""
    if (
        not isinstance(key, str)
        or not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX
        or not all("!" <= c <= "~" for c in key)
    ):
        raise ApplicationError(
            "idempotency_key_required",
            f"A purchase needs an Idempotency-Key header of 1 to {IDEMPOTENCY_KEY_MAX} "
            "visible ASCII characters, new for each purchase.",
        )
    return key


def purchase_lock_id(user_id: int, key: str) -> int:
    """The advisory lock number of one player's Idempotency-Key (64 bits of a hash)."""
    name = f"shop-purchase:{user_id}:{key}".encode()
    return int.from_bytes(hashlib.blake2b(name, digest_size=8).digest(), "big", signed=True)


def _key_lock(user_id: int, key: str) -> None:
    """Claim the player's key for this transaction, or refuse at once: 409
    ``request_in_progress`` while another request with the same key runs.

    PostgreSQL: a transaction-scoped advisory lock, tried without waiting (a retried request
    should learn its first copy is still running, not queue behind it). It is released after
    the commit is visible, so whoever takes it next finds the stored answer. SQLite runs one
    writing transaction at a time (IMMEDIATE), which serialises the same way.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [purchase_lock_id(user_id, key)])
        (claimed,) = cursor.fetchone()
    if not claimed:
        raise ApplicationError(
            "request_in_progress",
            "A request with this Idempotency-Key is still being processed; ask again shortly.",
            status_code=409,
        )


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


@transaction.atomic
def item_equip(*, user: AbstractBaseUser, kind: object, item: object) -> None:
    """Wear ``item`` (a slug) as the player's ``kind`` of cosmetic, or take that kind off
    (``item`` None).

    Refused: 400 ``wrong_kind`` (``kind`` is not a cosmetic kind, or the item is of another
    kind); 404 ``unknown_item``; 409 ``not_owned``. The ownership row is locked while the
    choice is written, so a refund at the same moment cannot leave an unowned item worn.
    """
    uid = _user_id(user)
    if kind not in COSMETIC_KINDS:
        kinds = ", ".join(k.value for k in COSMETIC_KINDS)
        raise ApplicationError(
            "wrong_kind",
            f"Only cosmetics are worn: the kind is one of {kinds}.",
            fields={"kind": [f"One of {kinds}."]},
        )
    if item is None:
        Equipped.objects.filter(user_id=uid, kind=kind).delete()
        return
    shop_item = ShopItem.objects.filter(slug=item).first() if isinstance(item, str) else None
    if shop_item is None:
        raise ApplicationError(
            "unknown_item", "The shop has nothing by that name.", status_code=404
        )
    if shop_item.kind != kind:
        raise ApplicationError(
            "wrong_kind",
            f"{shop_item.name} is a {ItemKind(shop_item.kind).label.lower()}, "
            f"not a {ItemKind(kind).label.lower()}.",
        )
    owned = Ownership.objects.select_for_update().filter(user_id=uid, item=shop_item)
    if not owned.exists():
        raise ApplicationError(
            "not_owned", f"Buy {shop_item.name} before you wear it.", status_code=409
        )
    # One statement (INSERT ... ON CONFLICT DO UPDATE): two changes at once cannot both insert.
    Equipped.objects.bulk_create(
        [Equipped(user_id=uid, kind=kind, item=shop_item)],
        update_conflicts=True,
        unique_fields=["user", "kind"],
        update_fields=["item", "updated_at"],
    )


def idempotency_records_clear(*, now: dt.datetime | None = None) -> int:
    """Remove stored purchase answers older than IDEMPOTENCY_KEY_HOURS (beat task). Returns
    how many went. The purchases themselves stay; only the key's answer is forgotten."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
