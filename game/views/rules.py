"""How to play on one screen (/how-to-play/) and the rules page (/rules/), the full reference,
both from the active ruleset."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render

from game import catalogue
from game.presenters import catalogue as present_catalogue
from game.presenters import lesson, pages, words
from game.presenters import rating as present_rating


def how_to_play(request):
    """How to play on one screen: the goal, a night in four steps and one night worked through
    by the engine (game.presenters.lesson); the rules page stays the full reference."""
    ruleset = catalogue.active_ruleset()
    return render(
        request,
        "game/how_to_play.html",
        {
            "ruleset": ruleset,
            "night": lesson.worked_night(ruleset),
            "summary": words.summary(ruleset),
        },
    )


def rules(request):
    """How to play, generated from the active ruleset (its numbers, its crew, the rulings)."""
    ruleset = catalogue.active_ruleset()
    active = catalogue.active()
    context = pages.rules_context(ruleset)
    # Every encounter of the catalogue, as the picker shows them, and the featured rules.
    context["encounters"] = present_catalogue.encounter_choices(active.encounters.values(), ruleset)
    context["debrief_rules"] = words.debrief_rules()
    context["featured_rules"] = words.featured_rules(
        slot_minutes=settings.FEATURED_SLOT_MINUTES,
        ranked_finish=active.prizes.ranked_finish,
        top=active.prizes.top,
    )
    context["rating_rules"] = present_rating.rules_rating()
    return render(request, "game/rules.html", context)
