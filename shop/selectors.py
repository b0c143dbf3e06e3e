"""Reads of the Signs ledger: wallets, their entries, system balances and the ledger's check."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum, Window
from django.db.models.functions import Coalesce

from shop.models import Account, Entry, Reason, Transaction


def wallet_get(*, user: AbstractBaseUser) -> Account | None:
    """The player's wallet, or None before their first movement (a balance of 0)."""
    if user is None or not user.is_authenticated:
        return None
    return Account.objects.filter(kind=Account.Kind.WALLET, user_id=user.pk).first()


def wallet_balance(*, user: AbstractBaseUser | None) -> int | None:
    """A signed-in player's balance (0 before any movement); None for a guest."""
    if user is None or not user.is_authenticated:
        return None
    balance = (
        Account.objects.filter(kind=Account.Kind.WALLET, user_id=user.pk)
        .values_list("balance", flat=True)
        .first()
    )
    return balance or 0


def wallet_entries(*, account: Account | None) -> QuerySet[Entry]:
    """The wallet's entries, newest first, each with its transaction (reason, reference)."""
    if account is None:
        return Entry.objects.none()
    return Entry.objects.filter(account=account).select_related("transaction").order_by("-id")


def entry_row(entry: Entry) -> dict:
    """One wallet entry as the profile page lists it."""
    tx = entry.transaction
    return {
        "id": entry.pk,
        "at": tx.created_at,
        "amount": entry.amount,
        "balance_after": entry.balance_after,
        "reason": tx.reason,
        "label": Reason(tx.reason).label,
        "memo": tx.memo,
        "ref": tx.reference,
    }


def wallet_export(*, user: AbstractBaseUser) -> dict:
    """The player's wallet as plain data, for the account export: balance and every entry."""
    account = wallet_get(user=user)
    return {
        "balance": account.balance if account else 0,
        "entries": [
            {
                "id": e.pk,
                "at": e.transaction.created_at.isoformat(),
                "amount": e.amount,
                "balance_after": e.balance_after,
                "reason": e.transaction.reason,
                "ref": e.transaction.reference,
                "memo": e.transaction.memo,
            }
            for e in wallet_entries(account=account)
        ],
    }


def system_balances() -> dict[str, int]:
    """Each system account's balance, derived from its entries (no row keeps it)."""
    rows = (
        Account.objects.filter(kind=Account.Kind.SYSTEM)
        .annotate(total=Coalesce(Sum("entries__amount"), 0))
        .values_list("slug", "total")
    )
    return dict(rows)


@dataclass(frozen=True, slots=True)
class LedgerProblem:
    account_id: int | None
    text: str


def _account_name(account: Account) -> str:
    if account.kind == Account.Kind.SYSTEM:
        return f"system account {account.slug} (id {account.pk})"
    owner = account.user.email or account.user.get_username() if account.user else "closed"
    return f"wallet {account.pk} ({owner})"


def ledger_problems() -> list[LedgerProblem]:
    """Everything that is not as the ledger's rules say, each naming the account or the
    transaction (``manage.py check_signs_ledger``). Empty when the ledger is sound.

    Read straight from the tables, so it finds what a hand-edited row (or a bug) left behind,
    on PostgreSQL (where triggers should make that impossible) and on SQLite alike.
    """
    problems: list[LedgerProblem] = []
    accounts = Account.objects.select_related("user")
    # Every wallet against its entries.
    for account in (
        accounts.filter(kind=Account.Kind.WALLET)
        .annotate(total=Coalesce(Sum("entries__amount"), 0))
        .exclude(balance=F("total"))
    ):
        problems.append(
            LedgerProblem(
                account.pk,
                f"{_account_name(account)}: balance {account.balance}, "
                f"but its entries sum to {account.total}",
            )
        )
    for account in accounts.filter(kind=Account.Kind.WALLET, balance__lt=0):
        problems.append(LedgerProblem(account.pk, f"{_account_name(account)}: negative balance"))
    # Each wallet entry's balance_after continues the running sum of the wallet's entries.
    chain = (
        Entry.objects.filter(account__kind=Account.Kind.WALLET)
        .annotate(
            running=Window(Sum("amount"), partition_by=[F("account_id")], order_by=F("id").asc())
        )
        .order_by("account_id", "id")
        .values_list("id", "account_id", "balance_after", "running")
    )
    broken: dict[int, tuple[int, int | None, int]] = {}
    for entry_id, account_id, balance_after, running in chain:
        if balance_after != running and account_id not in broken:
            broken[account_id] = (entry_id, balance_after, running)
    if broken:
        names = {a.pk: _account_name(a) for a in accounts.filter(pk__in=broken)}
        for account_id, (entry_id, balance_after, running) in sorted(broken.items()):
            problems.append(
                LedgerProblem(
                    account_id,
                    f"{names[account_id]}: entry {entry_id} says balance_after "
                    f"{balance_after}, but the entries up to it sum to {running}",
                )
            )
    # System accounts keep no balance on their row.
    for account in accounts.filter(kind=Account.Kind.SYSTEM).exclude(balance=0):
        problems.append(
            LedgerProblem(
                account.pk,
                f"{_account_name(account)}: a balance of {account.balance} on its row "
                "(a system account's balance is the sum of its entries; the row keeps 0)",
            )
        )
    # Each transaction balances, with at least two entries.
    for tx in (
        Transaction.objects.annotate(
            total=Coalesce(Sum("entries__amount"), 0), lines=Count("entries")
        )
        .filter(~Q(total=0) | Q(lines__lt=2))
        .order_by("pk")
    ):
        problems.append(
            LedgerProblem(
                None,
                f"transaction {tx.pk} ({tx.key}): {tx.lines} entries summing to {tx.total}",
            )
        )
    total = Entry.objects.aggregate(total=Coalesce(Sum("amount"), 0))["total"]
    if total != 0:
        problems.append(LedgerProblem(None, f"all entries sum to {total}, not 0"))
    return problems
