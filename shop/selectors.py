"""Reads of the shop: the Signs ledger (wallets, their entries, system balances and the
ledger's check), and the catalogue, collections and what players wear (DESIGN.md 5-7). They
return models, querysets and plain values; shop.presenters turns them into answers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum, Window
from django.db.models.functions import Coalesce

from shop.catalogue import night_market_crew
from shop.models import (
    COSMETIC_KINDS,
    Account,
    Entry,
    Equipped,
    ItemKind,
    Ownership,
    Purchase,
    ShopItem,
    Transaction,
)


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


def wallet_entries_about(
    *, user: AbstractBaseUser | None, references: Sequence[str]
) -> QuerySet[Entry]:
    """The player's wallet entries whose transaction is about one of ``references`` (a heist's
    award and featured bonus are ``heist:<id>``, a featured slot's prizes ``featured:<slug>``),
    oldest first, each with its transaction: the ledger's own lines for the result page."""
    if user is None or not user.is_authenticated or not references:
        return Entry.objects.none()
    return (
        Entry.objects.filter(
            account__kind=Account.Kind.WALLET,
            account__user_id=user.pk,
            transaction__reference__in=list(references),
        )
        .select_related("transaction")
        .order_by("id")
    )


def ledger_keys_posted(keys: Iterable[str]) -> set[str]:
    """Which of ``keys`` the ledger holds a transaction for (a job's payout: paid or not)."""
    keys = list(keys)
    if not keys:
        return set()
    return set(Transaction.objects.filter(key__in=keys).values_list("key", flat=True))


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


# --- The shop: catalogue, collections, what players wear ---------------------------------------


def _user_pk(user: AbstractBaseUser | int | None) -> int | None:
    """A player's id; None for a guest (None, an anonymous user or an unsaved one)."""
    if user is None:
        return None
    if isinstance(user, int):
        return user
    if not user.is_authenticated:
        return None
    return user.pk


def owned_slugs(user: AbstractBaseUser | int | None) -> set[str]:
    """The slugs of every item the player owns (empty for a guest)."""
    uid = _user_pk(user)
    if uid is None:
        return set()
    return set(Ownership.objects.filter(user_id=uid).values_list("item__slug", flat=True))


def unowned_crew(user: AbstractBaseUser | int | None, slugs: Iterable[str]) -> list[str]:
    """Those of ``slugs`` that are Night Market crew the player does not own, once each, in the
    order given (a guest owns none). Base-set crew and unknown slugs are not this question's:
    the engine's deck check answers for those.

    Night Market means either the rulesets put the type in the set ``night-market`` or the
    shop sells it as crew, so a type on sale can never be used without buying it.
    """
    slugs = [s for s in dict.fromkeys(slugs) if isinstance(s, str)]
    if not slugs:
        return []
    locked = night_market_crew() | set(
        ShopItem.objects.filter(kind=ItemKind.CREW, slug__in=slugs).values_list("slug", flat=True)
    )
    wanted = [s for s in slugs if s in locked]
    if not wanted:
        return []
    uid = _user_pk(user)
    owned = (
        set(
            Ownership.objects.filter(user_id=uid, item__slug__in=wanted).values_list(
                "item__slug", flat=True
            )
        )
        if uid is not None
        else set()
    )
    return [s for s in wanted if s not in owned]


def equipped(user: AbstractBaseUser | int | None) -> dict[str, str | None]:
    """``{"card_back": slug|None, "board_theme": slug|None, "title": slug|None}``."""
    worn: dict[str, str | None] = {kind.value: None for kind in COSMETIC_KINDS}
    uid = _user_pk(user)
    if uid is not None:
        worn.update(Equipped.objects.filter(user_id=uid).values_list("kind", "item__slug"))
    return worn


def owned_items(user: AbstractBaseUser | int | None) -> list[tuple[str, str]]:
    """``(slug, kind)`` of every item the player owns, in catalogue order (empty for a guest)."""
    uid = _user_pk(user)
    if uid is None:
        return []
    return list(
        ShopItem.objects.filter(owners__user_id=uid)
        .order_by("position", "pk")
        .values_list("slug", "kind")
    )


def shelf(*, owned: Iterable[str]) -> QuerySet[ShopItem]:
    """The items the shelf lists: every item on sale, and those of ``owned`` that are off sale,
    in catalogue order."""
    return ShopItem.objects.filter(Q(active=True) | Q(slug__in=owned))


def purchases(*, user: AbstractBaseUser) -> QuerySet[Purchase]:
    """Every purchase of the player, oldest first, each with its item."""
    return (
        Purchase.objects.filter(user_id=user.pk).select_related("item").order_by("created_at", "pk")
    )


def titles_for(user_ids: Sequence[int]) -> dict[int, str | None]:
    """Each player's worn title's name, or None (leaderboards, profiles): one query."""
    titles: dict[int, str | None] = {uid: None for uid in user_ids}
    titles.update(
        Equipped.objects.filter(user_id__in=list(titles), kind=ItemKind.TITLE).values_list(
            "user_id", "item__name"
        )
    )
    return titles
