"""The jobs section the pages show (home, the result page, the profile): the signed-in
player's jobs as game.services.jobs counts them now."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from accounts import selectors as account_selectors
from game.presenters.jobs import jobs_card
from game.services.jobs import jobs_board


def jobs_for(user) -> dict[str, Any] | None:
    """The jobs card of ``user``, or None for a guest."""
    if user is None or not user.is_authenticated:
        return None
    now = timezone.now()
    return jobs_card(
        jobs_board(user_id=user.pk, now=now),
        now,
        zone_unset=not account_selectors.time_zone_chosen(user=user),
    )


def jobs_profile(user) -> dict[str, Any]:
    """The profile's section context (accounts.extensions): ``section.jobs``."""
    return {"jobs": jobs_for(user)}
