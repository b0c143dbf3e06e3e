"""Challenge a friend on the pages (DESIGN.md section 11): a challenge's page (/challenges/<slug>/,
which a guest may open before the age check and is led through it to play), answering it,
making one from a heist's result or replay page, and the two heists side by side.

Nothing of the challenger's heist reaches a friend before the friend's own heist of it has
finished (game.presenters.challenges decides, these views load what it names).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import adult_required
from accounts.selectors import adult_confirmed, public_handles
from game.engine import get_ruleset
from game.models import Challenge, Heist
from game.owners import owner_from_request
from game.presenters import challenge_pages
from game.presenters import challenges as present_challenges
from game.selectors import challenges as selectors
from game.selectors.heists import heist_nights
from game.services.challenges import challenge_accept, challenge_create
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError, try_again


def _challenge_or_404(slug: str) -> Challenge:
    try:
        return selectors.challenge_get(slug=slug)
    except ApplicationError as exc:
        raise Http404(exc.message) from None


def _link(request, slug: str) -> str:
    return request.build_absolute_uri(reverse("challenge", kwargs={"slug": slug}))


@require_GET
def challenge(request, slug):
    """What the link promises (rival, difficulty, encounter, deck, who sent it) and Play; then
    the friend's heist of it, and once it has finished the way to both side by side. Its
    challenger sees who answered. A visitor who has not passed the age check sees the
    challenge and is led through the check to play it."""
    found = _challenge_or_404(slug)
    checked = adult_confirmed(request)
    if checked:
        owner = owner_from_request(request)
        parts = present_challenges.challenge_parts(found, owner)
        challenger = owner.owns(found.heist)
    else:
        parts = {"handle": selectors.challenger_handle(found), "answer": None, "answers": []}
        parts["nights"], challenger = {}, False
    page = challenge_pages.challenge_page(
        found,
        challenger=challenger,
        handle=parts["handle"],
        answer=parts["answer"],
        answers=parts["answers"],
        nights=parts["nights"],
    )
    age_check = f"{reverse('age_check')}?{urlencode({'next': request.get_full_path()})}"
    return render(
        request,
        "game/challenge.html",
        {"challenge": page, "checked": checked, "age_check_url": age_check,
         "link": _link(request, found.slug)},
    )  # fmt: skip


@adult_required
@require_POST
def challenge_play(request, slug):
    """Play the challenge (its page's button): the friend's heist, then its board; a refusal
    goes back to the challenge's page and says why."""
    wait = throttling.hit("heist_start", request)
    if wait is not None:
        messages.error(
            request, f"You have started a lot of heists in a short time: {try_again(wait)}."
        )
        return redirect("challenge", slug=slug)
    try:
        snapshot = challenge_accept(slug=slug, owner=owner_from_request(request))
    except ApplicationError as exc:
        if exc.status_code == 404:
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
        return redirect("challenge", slug=slug)
    return redirect("heist", heist_id=snapshot.heist.pk)


@adult_required
@require_POST
def challenge_make(request, heist_id):
    """Challenge a friend (the result and replay pages' button): the challenge's link shows in
    the result page's challenge section."""
    try:
        challenge_create(heist_id=heist_id, owner=owner_from_request(request))
    except ApplicationError as exc:
        if exc.status_code == 404:
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
    return redirect(f"{reverse('heist-result', kwargs={'heist_id': heist_id})}#challenge")


@adult_required
@require_GET
def challenge_compare(request, slug, heist_id):
    """The challenger's heist and one friend's, night by night, side by side: for the two of
    them only, once the friend's has finished (before, the friend is sent to their own heist
    and the challenger to the challenge's page)."""
    found = _challenge_or_404(slug)
    answer = selectors.answer_get(challenge=found, heist_id=heist_id)
    owner = owner_from_request(request)
    friend = answer is not None and owner.owns(answer)
    if answer is None or not (friend or owner.owns(found.heist)):
        raise Http404("There is no such heist of this challenge.")
    if not present_challenges.answer_revealed(answer):
        if friend:
            return redirect("heist", heist_id=answer.pk)
        messages.info(request, "That friend has not finished their heist of it yet.")
        return redirect("challenge", slug=slug)
    original = found.heist
    if friend:
        mine, theirs, handle = answer, original, selectors.challenger_handle(found)
    else:
        handle = public_handles(user_ids=[answer.user_id]).get(answer.user_id)
        mine, theirs = original, answer
    page = challenge_pages.compare_page(
        mine=(mine, heist_nights(mine)),
        theirs=(theirs, heist_nights(theirs)),
        their_handle=handle,
        ruleset=get_ruleset(original.ruleset),
    )
    return render(
        request,
        "game/challenge_compare.html",
        {"compare": page, "slug": found.slug, "mine": mine, "friend": friend},
    )


def challenge_context(request, game: Heist) -> dict[str, Any]:
    """``challenge_section`` for a heist's result and replay pages, its owner's (None: nothing
    to show, as for a practice retry or an abandoned heist)."""
    answered = game.challenge if game.challenge_id is not None else None
    if answered is not None:
        section = challenge_pages.result_section(
            game,
            challenge=None,
            answered=answered,
            refusal=None,
            url=_link(request, answered.slug),
            answers=[],
            handle=selectors.challenger_handle(answered),
        )
        return {"challenge_section": section}
    try:
        selectors.challengeable_check(game)
    except ApplicationError as exc:
        refusal = exc.code
    else:
        refusal = None
    made = selectors.challenge_of(game) if refusal is None else None
    section = challenge_pages.result_section(
        game,
        challenge=made,
        answered=None,
        refusal=refusal,
        url=_link(request, made.slug) if made else None,
        answers=selectors.challenge_answers(challenge=made) if made else [],
        handle=None,
    )
    return {"challenge_section": section}


def challenge_board_note(game: Heist) -> str | None:
    """Who sent the challenge a heist answers (its board says so), or None."""
    if game.challenge_id is None:
        return None
    return present_challenges.handle_or_neutral(selectors.challenger_handle(game.challenge))
