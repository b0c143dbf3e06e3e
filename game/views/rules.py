"""The rules page (/rules/), generated from the active ruleset."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render

from game import catalogue
from game.presenters import catalogue as present_catalogue
from game.presenters import pages, words


def rules(request):
    """How to play, generated from the active ruleset (its numbers, its crew, the rulings)."""
    ruleset = catalogue.active_ruleset()
    active = catalogue.active()
    context = pages.rules_context(ruleset)
    # Every encounter of the catalogue, as the picker shows them, and the featured rules.
    context["encounters"] = present_catalogue.encounter_choices(active.encounters.values(), ruleset)
    context["featured_rules"] = words.featured_rules(
        slot_minutes=settings.FEATURED_SLOT_MINUTES,
        ranked_finish=active.prizes.ranked_finish,
        top=active.prizes.top,
    )
    return render(request, "game/rules.html", context)
