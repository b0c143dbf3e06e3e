"""Reads of challenges (DESIGN.md section 11): a challenge by its slug, a heist's challenge, the
heists that answered one, and who made it.

What each reader may see of the heists is the presenters' question (game.presenters.challenges),
answered from what these return: nothing here decides what is shown.
"""

from __future__ import annotations

from django.db.models import JSONField, OuterRef, Subquery

from accounts.selectors import public_handles
from game.models import Challenge, Heist, HeistNight
from game.owners import Owner
from veyltak_site.exceptions import ApplicationError


def challenge_get(*, slug: str) -> Challenge:
    """The challenge the link names, with its heist; an unknown slug is 404 ``not_found``."""
    found = Challenge.objects.select_related("heist").filter(slug=slug[:32]).first()
    if found is None:
        raise ApplicationError("not_found", "There is no such challenge.", status_code=404)
    return found


def _conflict(code: str, message: str) -> ApplicationError:
    return ApplicationError(code, message, status_code=409)


def challengeable_check(heist: Heist) -> None:
    """What a challenge needs: a heist played to its end from night 1 (not a practice retry,
    not itself an answer to a challenge), and a featured one only once its slot has closed
    (its friend would learn the slot's heist before their ranked try)."""
    if heist.status == Heist.Status.ACTIVE:
        raise _conflict("heist_active", "This heist is still being played: finish it first.")
    if heist.status == Heist.Status.ABANDONED:
        raise _conflict("heist_abandoned", "This heist was abandoned before its end.")
    if heist.is_practice:
        raise _conflict(
            "practice_heist",
            "A practice retry cannot be challenged: challenge a friend from the heist itself.",
        )
    if heist.challenge_id is not None:
        raise _conflict(
            "challenge_heist",
            "This heist answers a challenge: pass on that challenge's own link instead.",
        )
    slot = heist.featured_slot
    if slot is not None and not slot.is_closed:
        raise _conflict(
            "slot_open",
            "This featured heist's slot is still open: it can be challenged once it closes.",
        )


def challenge_of(heist: Heist) -> Challenge | None:
    """The challenge made of ``heist``, or None."""
    return Challenge.objects.filter(heist=heist).first()


def _last_score():
    return Subquery(
        HeistNight.objects.filter(heist=OuterRef("pk"), result__isnull=False)
        .order_by("-night")
        .values("result__score")[:1],
        output_field=JSONField(),
    )


def challenge_answer(*, challenge: Challenge, owner: Owner) -> Heist | None:
    """The owner's heist of ``challenge`` (one at most, but a guest's answer kept apart from
    the account's at sign-in counts too: the first), with ``last_score``; or None."""
    return (
        Heist.objects.filter(owner.heist_filter(), challenge=challenge)
        .annotate(last_score=_last_score())
        .order_by("created_at", "pk")
        .first()
    )


def challenge_answers(*, challenge: Challenge) -> list[Heist]:
    """Every heist that answered ``challenge``, oldest first, each with ``last_score`` and
    ``handle`` (its player's public handle; None for a guest or a deleted account)."""
    heists = list(
        Heist.objects.filter(challenge=challenge)
        .annotate(last_score=_last_score())
        .order_by("created_at", "pk")
    )
    handles = public_handles(user_ids=[h.user_id for h in heists if h.user_id is not None])
    for heist in heists:
        heist.handle = handles.get(heist.user_id)
    return heists


def seed_in_play(*, heist: Heist, owner: Owner) -> bool:
    """Whether ``owner`` is playing a heist dealt from ``heist``'s seed now: a challenge of it,
    or of the heist it answers or retries. Every heist of one seed (the challenged heist, each
    friend's answer, a practice retry of any of them) shows the same hands and loot, so a
    share link of any of them waits until the viewer has finished their own.

    A practice retry in play does not count: its seed is its own finished heist's, which its
    player has seen already."""
    return Heist.objects.filter(
        owner.heist_filter(),
        server_seed=heist.server_seed,
        status=Heist.Status.ACTIVE,
        practice_night__isnull=True,
    ).exists()


def answer_get(*, challenge: Challenge, heist_id) -> Heist | None:
    """The heist ``heist_id`` if it answers ``challenge``, else None."""
    return Heist.objects.filter(challenge=challenge, pk=heist_id).first()


def challenger_handle(challenge: Challenge) -> str | None:
    """The public handle of the challenge's maker; None for a guest or a deleted account."""
    user_id = challenge.heist.user_id
    if user_id is None:
        return None
    return public_handles(user_ids=[user_id]).get(user_id)
