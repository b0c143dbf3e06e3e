"""The Signs ledger's core: one movement of Signs, and the credits, debits and payouts built on
it. Keyword-only, typed, each under transaction.atomic.

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

``_lock``, ``_post``, ``_user_id``, ``_amount`` and ``_key`` are this package's seam: the
other modules of ``shop.services`` (earning, refunds, purchases) post through them; nothing
outside the package does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models, transaction
from django.db.models import F

from shop.models import Account, Entry, Reason, Transaction
from veyltak_site import metrics
from veyltak_site.exceptions import ApplicationError

# The system account on the other side of each reason.
SYSTEM_ACCOUNT = {
    Reason.HEIST: "rewards",
    Reason.FEATURED: "rewards",
    Reason.WELCOME: "grants",
    Reason.GRANT: "grants",
    Reason.PURCHASE: "shop",
    Reason.REFUND: "shop",
    Reason.JOB: "rewards",
}
SYSTEM_ACCOUNTS = ("rewards", "grants", "shop")
CREDIT_REASONS = frozenset(
    {Reason.HEIST, Reason.FEATURED, Reason.WELCOME, Reason.GRANT, Reason.JOB}
)
DEBIT_REASONS = frozenset({Reason.PURCHASE})

KEY_MAX = Transaction._meta.get_field("key").max_length
MEMO_MAX = Transaction._meta.get_field("memo").max_length
REFERENCE_MAX = Transaction._meta.get_field("reference").max_length


@dataclass(frozen=True, slots=True)
class Posted:
    """A movement as posted: ``created`` is False when the key had been posted before (the
    same movement, answered again, nothing written). ``balances``: wallet account id -> its
    balance now."""

    transaction: Transaction
    created: bool
    balances: dict[int, int]


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
    if reason in CREDIT_REASONS:
        metrics.signs_awarded(reason=reason, amount=sum(lines[pk] for pk in after))
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
