"""Finishing a heist (DESIGN.md section 3.4): its outcome, its one Signs award, its rating and
the jobs it completed, in the transaction of the seal that played its last night
(game.services.heists.plan_seal); then its debrief is sent."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from game.engine import PLAYER, RIVAL, HeistState, get_ruleset, outcome
from game.models import Heist, HeistNight
from game.services.debriefs import debrief_schedule
from game.services.jobs import jobs_heist_finished
from game.services.ranked import featured_heist_finished
from game.services.rating import rating_heist_finished
from shop import services as shop_services
from shop.models import SignsReason
from shop.services import HeistSigns
from veyltak_site import metrics
from veyltak_site.exceptions import ApplicationError

_OUTCOMES = {PLAYER: Heist.Outcome.WIN, RIVAL: Heist.Outcome.LOSS, None: Heist.Outcome.DRAW}


def heist_signs_award(*, heist: Heist, nights_sealed: int | None = None) -> HeistSigns:
    """The Signs a finished heist earns, decided and paid by the shop (DESIGN.md section 6).

    Runs inside the transaction that finishes the heist (``heist_finish``), which holds the
    heist's row lock. The shop is told what it needs and decides: guests earn nothing, nor a
    heist with a night the player did not seal, and past the daily limit an earning of 0 is
    recorded. Keyed by the heist in the ledger, so a retry, a second worker or a double request
    pays once whatever happens here. ``nights_sealed``: the nights the player sealed, when the
    caller knows them from the nights it read under the lock (else they are counted here).
    """
    sealed = nights_sealed
    if sealed is None:
        sealed = HeistNight.objects.filter(heist=heist, player_plan__isnull=False).count()
    return shop_services.signs_award(
        player_id=heist.user_id,
        heist_id=heist.pk,
        outcome=heist.outcome,
        difficulty=heist.difficulty,
        nights_sealed=sealed,
        nights=get_ruleset(heist.ruleset).nights,
        finished_at=heist.finished_at,
    )


# No savepoint inside the seal's transaction (two round trips saved): a failure here fails the
# whole seal, which rolls back as one.
@transaction.atomic(savepoint=False)
def heist_finish(*, heist: Heist, state: HeistState, nights_sealed: int | None = None) -> Heist:
    """Close a heist whose last night was played: outcome and the (one) Signs award.

    Called by ``plan_seal`` with the heist row locked, so it runs once per heist;
    ``nights_sealed`` as for ``heist_signs_award``.
    """
    if not state.finished:
        raise ApplicationError(
            "heist_not_finished", "The heist is still being played.", status_code=409
        )
    heist.status = Heist.Status.FINISHED
    heist.outcome = _OUTCOMES[outcome(state)]
    heist.finished_at = timezone.now()
    heist.night = state.night
    if heist.is_practice or heist.challenge_id is not None:
        # A practice retry of a night never earns (DESIGN.md section 10), nor a challenge (11).
        reason = SignsReason.PRACTICE if heist.is_practice else SignsReason.CHALLENGE
        heist.signs_awarded, heist.signs_reason = None, reason
    else:
        signs = heist_signs_award(heist=heist, nights_sealed=nights_sealed)
        heist.signs_awarded, heist.signs_reason = signs.amount, signs.reason
    # A ranked featured heist: its leaderboard entry and the bonus on top (same transaction).
    heist.featured_bonus = featured_heist_finished(heist=heist, state=state)
    metrics.heist_finished(difficulty=heist.difficulty, outcome=heist.outcome)
    heist.save(
        update_fields=[
            "status",
            "outcome",
            "finished_at",
            "night",
            "last_activity_at",
            "signs_awarded",
            "signs_reason",
            "featured_bonus",
        ]
    )
    rating_heist_finished(heist=heist)
    jobs_heist_finished(heist=heist)  # the jobs it completed, paid once (same transaction)
    debrief_schedule(heist.pk)
    return heist
