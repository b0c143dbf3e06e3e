"""What players earn: a finished heist's Signs, once (DESIGN.md section 6), and the welcome
grant; abandoned heists, which count toward the day (issue 27, S13).

The shop does not import the game: :func:`signs_award` is told everything about a finished
heist by its caller (``game.services.finish.heist_finish``), inside the transaction that
finishes it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from accounts import persons
from accounts import selectors as account_selectors
from shop.economy import OUTCOMES, EconomyError, get_economy
from shop.models import HeistEarning, Reason, SignsReason
from shop.services.ledger import (
    SYSTEM_ACCOUNT,
    Posted,
    _lock,
    _post,
    signs_credit,
    system_account_id,
)
from veyltak_site.exceptions import ApplicationError


@dataclass(frozen=True, slots=True)
class HeistSigns:
    """What :func:`signs_award` decided: ``amount`` is None when no earning was recorded at
    all (guest, abandoned, incomplete), 0 for a heist past the daily limit."""

    amount: int | None
    reason: SignsReason
    replayed: bool = False


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
