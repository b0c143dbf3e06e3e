"""Players and heist finishes for the Signs ledger, and ledger sums read straight from the
tables (never through the code under test)."""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Sum

from shop import services
from shop.models import Account, Entry

NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
_emails = itertools.count(1)


def new_user(email: str | None = None) -> Any:
    email = email or f"ledger{next(_emails)}-{uuid.uuid4().hex[:6]}@example.com"
    # No password: nothing here signs in with one, and hashing one costs a third of a second.
    return get_user_model().objects.create_user(username=email, email=email, password=None)


def award(user_id: int | None, *, outcome="win", difficulty="rookie", heist_id=None, at=NOON,
          nights_sealed=6, nights=6):  # fmt: skip
    return services.signs_award(
        player_id=user_id,
        heist_id=heist_id or uuid.uuid4(),
        outcome=outcome,
        difficulty=difficulty,
        nights_sealed=nights_sealed,
        nights=nights,
        finished_at=at,
    )


def wallet(user) -> Account | None:
    return Account.objects.filter(kind=Account.Kind.WALLET, user=user).first()


def balance(user) -> int:
    account = wallet(user)
    return account.balance if account else 0


def entries_sum(account_id: int) -> int:
    return Entry.objects.filter(account_id=account_id).aggregate(s=Sum("amount"))["s"] or 0
