"""What the site offers to play, as one loaded object: the ruleset, the encounters and the
ready-made decks (game/data/*.json), validated together when loaded.

Selectors, services, pages and (later) the featured-heist rotation read encounters and decks from
a :class:`Catalogue` instead of each keeping its own module-level cache: :func:`active` is the
catalogue of the ruleset new heists are played under, loaded once per process; :func:`build`
makes one from any data (a test, a rotation that checks a slot against the catalogue).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from game.engine import Encounter, Ruleset, get_ruleset, validate_deck
from game.engine.rules import DEFAULT_VERSION

STARTER = "starter"


@dataclass(frozen=True, slots=True)
class ReadyDeck:
    """A ready-made deck: legal under the catalogue's ruleset."""

    slug: str
    name: str
    description: str
    deck: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Catalogue:
    ruleset: Ruleset
    encounters: Mapping[str, Encounter]  # slug -> encounter, in file order
    decks: Mapping[str, ReadyDeck]  # slug -> deck, in file order; always holds STARTER

    def encounter(self, slug: str) -> Encounter | None:
        return self.encounters.get(slug)

    def deck(self, slug: str) -> ReadyDeck | None:
        return self.decks.get(slug)


def build(
    ruleset: Ruleset,
    encounters: Iterable[Mapping[str, Any]],
    decks: Iterable[Mapping[str, Any]],
) -> Catalogue:
    """Validate the data against ``ruleset``: a bad modifier or an illegal deck fails loudly
    here, at load, never in a player's heist."""
    enc: dict[str, Encounter] = {}
    for raw in encounters:
        encounter = Encounter.from_dict(raw).validate(ruleset)
        if encounter.slug in enc:
            raise ValueError(f"duplicate encounter slug {encounter.slug!r}")
        enc[encounter.slug] = encounter
    ready: dict[str, ReadyDeck] = {}
    for raw in decks:
        deck = ReadyDeck(
            raw["slug"], raw["name"], raw["description"], validate_deck(ruleset, raw["deck"])
        )
        if deck.slug in ready:
            raise ValueError(f"duplicate ready-made deck slug {deck.slug!r}")
        ready[deck.slug] = deck
    if STARTER not in ready:
        raise ValueError(f"the ready-made decks must include {STARTER!r}")
    return Catalogue(ruleset, MappingProxyType(enc), MappingProxyType(ready))


def _data(name: str) -> dict[str, Any]:
    return json.loads(resources.files("game").joinpath("data", name).read_text("utf-8"))


_loaded: dict[str, Catalogue] = {}


def active(version: str = DEFAULT_VERSION) -> Catalogue:
    """The packaged catalogue for ``version`` (the current ruleset by default), loaded once."""
    catalogue = _loaded.get(version)
    if catalogue is None:
        catalogue = build(
            get_ruleset(version),
            _data("encounters.json")["encounters"],
            _data("decks.json")["decks"],
        )
        _loaded[version] = catalogue
    return catalogue


def active_ruleset() -> Ruleset:
    """The ruleset new heists are played under (the rules page shows it)."""
    return active().ruleset
