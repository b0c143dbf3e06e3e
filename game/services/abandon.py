"""Heists closed unfinished: by a new start over HEIST_ACTIVE_MAX (``heists_make_room``, inside
the start's transaction), by the periodic task when no seal came for a while, and by staff. An
abandoned heist earns nothing, counts toward its player's day (the shop's daily limit, issue 27,
S13) and is a loss for the rating (DESIGN.md section 11); a practice retry or a challenge counts
for neither.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Case, When
from django.utils import timezone

from game.models import Heist
from game.owners import Owner
from game.services.rating import ratings_heists_abandoned
from shop import services as shop_services
from shop.models import SignsReason
from veyltak_site import metrics
from veyltak_site.locks import advisory_xact_lock


def owner_lock(owner: Owner) -> None:
    """Serialise heist starts of one owner (to the end of the transaction).

    PostgreSQL: an advisory lock keyed by the owner, because a guest has no row to lock and
    counting rows under FOR UPDATE would not see a heist another start is inserting. SQLite
    runs one writing transaction at a time anyway (IMMEDIATE), so it needs nothing more.
    """
    advisory_xact_lock(f"heist-start:{owner.user_id or ''}:{owner.guest_id}")


def heists_make_room(*, owner: Owner) -> int:
    """Before a start: close the owner's oldest heists in play beyond HEIST_ACTIVE_MAX - 1 as
    abandoned (no award), so the new one makes at most HEIST_ACTIVE_MAX. Returns how many.

    A ranked featured heist whose slot is still open is closed last: its attempt would stay
    used (RULES.md), so a practice start must not throw it away while an older practice heist
    can go instead.

    One owner's starts queue on ``owner_lock``, so two at once cannot both keep the oldest.
    The UPDATE waits for a seal in flight (its row lock) and re-checks the status, so a heist
    is never closed half-way through a night (as in ``heists_abandon_stale``).
    """
    owner_lock(owner)
    keep = settings.HEIST_ACTIVE_MAX - 1
    now = timezone.now()
    counts = Case(When(ranked=True, featured_slot__ends_at__gt=now, then=0), default=1)
    surplus = list(
        Heist.objects.filter(owner.heist_filter(), status=Heist.Status.ACTIVE)
        .order_by(counts, "-created_at", "-pk")
        .values_list("pk", flat=True)[keep:]
    )
    if not surplus:
        return 0
    closed = Heist.objects.filter(pk__in=surplus, status=Heist.Status.ACTIVE).update(
        status=Heist.Status.ABANDONED, finished_at=now
    )
    _abandoned_count(Heist.objects.filter(pk__in=surplus), now)
    metrics.heists_abandoned(how="crowded", count=closed)
    return closed


def _abandoned_count(heists, now) -> None:
    """The heists of ``heists`` just closed unfinished at ``now`` count toward their players'
    day (the shop's daily limit, issue 27, S13); ``finished_at == now`` picks those this
    UPDATE closed. A practice retry or a challenge never earns: leaving one counts for nothing."""
    left = heists.filter(
        status=Heist.Status.ABANDONED, finished_at=now, practice_night=None, challenge=None
    )
    closed = left.filter(user_id__isnull=False).values_list("pk", "user_id", "difficulty")
    shop_services.heists_abandoned(
        heists=[
            shop_services.AbandonedHeist(
                heist_id=pk, player_id=user_id, difficulty=d, finished_at=now
            )
            for pk, user_id, d in closed
        ]
    )
    ratings_heists_abandoned(heist_ids=[pk for pk, _, _ in closed])  # (the query's cached rows)


@transaction.atomic
def heists_abandon_stale(*, older_than: timedelta) -> int:
    """Close active heists with no seal for ``older_than``, without an award. Returns the count.

    One UPDATE: a seal in flight holds the row lock, and PostgreSQL re-checks the WHERE clause
    on the row once the lock is released, so a heist sealed meanwhile (fresh last_activity_at)
    is left alone, and a heist is never closed half-way through a night.
    """
    now = timezone.now()
    closed = Heist.objects.filter(
        status=Heist.Status.ACTIVE, last_activity_at__lt=now - older_than
    ).update(status=Heist.Status.ABANDONED, finished_at=now, signs_reason=SignsReason.ABANDONED)
    if closed:
        _abandoned_count(Heist.objects.all(), now)
    metrics.heists_abandoned(how="stale", count=closed)
    return closed


@transaction.atomic
def heist_abandon(*, heist_id: uuid.UUID | str) -> int:
    """Close one active heist as abandoned (staff, from the admin). Returns 1, or 0 if it was
    not active. Same rule as the periodic task: under the row lock, never mid-night."""
    now = timezone.now()
    closed = Heist.objects.filter(pk=heist_id, status=Heist.Status.ACTIVE).update(
        status=Heist.Status.ABANDONED,
        finished_at=now,
        signs_reason=SignsReason.ABANDONED,
    )
    _abandoned_count(Heist.objects.filter(pk=heist_id), now)
    metrics.heists_abandoned(how="staff", count=closed)
    return closed
