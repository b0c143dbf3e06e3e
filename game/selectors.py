"""Reads for the game app: pages and the API call these, never the models directly."""

from game.engine.rules import DEFAULT_VERSION
from game.models import CrewType


def crew_catalogue(*, ruleset: str = DEFAULT_VERSION) -> list[CrewType]:
    return list(CrewType.objects.filter(ruleset=ruleset).order_by("position"))
