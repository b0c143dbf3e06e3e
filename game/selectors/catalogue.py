"""Reads of what there is to play: crew types, rivals and difficulties, encounters and
ready-made decks (from game.catalogue, validated against the ruleset when loaded)."""

from __future__ import annotations

from game import catalogue
from game.catalogue import ReadyDeck
from game.engine import Encounter
from game.engine.rules import DEFAULT_VERSION
from game.models import CrewType
from game.rivals.personas import (
    Difficulty,
    Persona,
    get_persona,
    list_difficulties,
    list_personas,
)
from veyltak_site.exceptions import ApplicationError


def crew_types(*, ruleset: str = DEFAULT_VERSION) -> list[CrewType]:
    return list(CrewType.objects.filter(ruleset=ruleset).order_by("position"))


def rivals() -> tuple[Persona, ...]:
    return list_personas()


def difficulties() -> tuple[Difficulty, ...]:
    return list_difficulties()


def encounters() -> list[Encounter]:
    return list(catalogue.active().encounters.values())


def encounter_get(slug: str) -> Encounter:
    encounter = catalogue.active().encounter(slug)
    if encounter is None:
        raise ApplicationError("unknown_encounter", f"There is no encounter called {slug!r}.")
    return encounter


def ready_decks() -> list[ReadyDeck]:
    return list(catalogue.active().decks.values())


def ready_deck_get(slug: str) -> ReadyDeck:
    deck = catalogue.active().deck(slug)
    if deck is None:
        raise ApplicationError("unknown_deck", f"There is no ready-made deck called {slug!r}.")
    return deck


def rival_get(slug: str) -> Persona:
    return get_persona(slug)


def rival_cosmetics(slug: str) -> dict[str, str | None]:
    """What rival ``slug`` wears on the board: ``{card_back, board_theme, title}``."""
    return catalogue.rival_cosmetics(slug)
