"""Staff grants of Signs (the admin and ``manage.py signs_grant``)."""

from __future__ import annotations

import uuid

from django.contrib.auth.base_user import AbstractBaseUser

from shop.models import Reason
from shop.services.ledger import MEMO_MAX, Posted, signs_credit
from veyltak_site.exceptions import ApplicationError

# A staff grant above this is a typo (an extra zero or two), not a gift.
GRANT_MAX = 100_000


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
