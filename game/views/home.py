"""The home page: the rules in brief, the featured heist in play, the visitor's heist in play."""

from __future__ import annotations

from django.shortcuts import render
from django.urls import reverse

from accounts.guest import existing_guest_id
from game.engine import get_ruleset
from game.owners import Owner
from game.presenters import lesson, pages, words
from game.selectors import catalogue as catalogue_selectors
from game.selectors.heists import heist_in_play, heist_last_level
from game.views.featured import _featured_home
from game.views.jobs import jobs_for


def home(request):
    ruleset = get_ruleset()
    return render(
        request,
        "home.html",
        {
            "crew": catalogue_selectors.crew_types(),
            "ruleset": ruleset,
            "summary": words.summary(ruleset),
            "steps": words.night_steps(ruleset),
            "boost_and_heat": words.boost_and_heat(ruleset),
            "deck_rule": words.deck_rule(ruleset),
            "difficulties": words.either(d.name for d in catalogue_selectors.difficulties()),
            "featured_home": _featured_home(ruleset),
            # The game itself above the fold: the worked night's board (game.presenters.lesson).
            "night": lesson.worked_night(ruleset),
            "in_play": _in_play(request),
            "jobs": jobs_for(request.user),
        },
    )


def _owner_if_any(request) -> Owner | None:
    """The visitor as an owner of heists, or None for one with no session yet (none is started
    for asking)."""
    user_id = request.user.pk if request.user.is_authenticated else None
    guest = existing_guest_id(request) or ""
    if user_id is None and not guest:
        return None
    return Owner(user_id=user_id, guest_id=guest)


def _last_level(request, difficulties) -> str | None:
    """The level of the visitor's last heist (Play's Quick heist), if it is still a level."""
    owner = _owner_if_any(request)
    level = heist_last_level(owner=owner) if owner is not None else None
    return level if any(d.slug == level for d in difficulties) else None


def _in_play(request):
    """The visitor's heist in play, for "Continue your heist" (home and Play), or None. A
    visitor with no session yet has none, and none is started for asking."""
    owner = _owner_if_any(request)
    game = heist_in_play(owner=owner) if owner is not None else None
    if game is None:
        return None
    return pages.in_play_card(
        game,
        rival_name=catalogue_selectors.rival_get(game.rival).name,
        nights=get_ruleset(game.ruleset).nights,
        url=reverse("heist", kwargs={"heist_id": game.pk}),
    )
