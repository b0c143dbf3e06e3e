"""Writes of the catalogue: the crew table copied from a ruleset."""

from __future__ import annotations

from django.db import transaction

from game.engine import get_ruleset
from game.engine.rules import DEFAULT_VERSION
from game.models import CrewType


@transaction.atomic
def catalogue_load(*, ruleset: str = DEFAULT_VERSION) -> int:
    """Copy a ruleset's crew types into the catalogue table; idempotent. Returns the count."""
    rules = get_ruleset(ruleset)
    for position, crew in enumerate(rules.crew.values()):
        CrewType.objects.update_or_create(
            ruleset=rules.version,
            slug=crew.slug,
            defaults={
                "name": crew.name,
                "cost": crew.cost,
                "power": crew.power,
                "text": crew.text,
                "set": crew.set,
                "position": position,
            },
        )
    return len(rules.crew)
