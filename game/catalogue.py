"""What the site offers to play, as one loaded object: the ruleset, the encounters, the
ready-made decks and the featured-heist rotation with its prizes (game/data/*.json), validated
together when loaded.

Selectors, services and pages read encounters, decks and the rotation from a :class:`Catalogue`
instead of each keeping its own module-level cache: :func:`active` is the catalogue of the
ruleset new heists are played under, loaded once per process; :func:`build` makes one from any
data (a test, a rotation that checks a slot against the catalogue).
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
from game.rivals.personas import UnknownRival, get_difficulty, get_persona
from shop.models import COSMETIC_KINDS

STARTER = "starter"
# Crew sets (a ruleset's crew rows carry one): the base set is free to everyone; Night Market
# crew are sold in the shop. Code asks a crew's set, never lists slugs.
BASE_SET = "base"
NIGHT_MARKET = "night-market"


@dataclass(frozen=True, slots=True)
class ReadyDeck:
    """A ready-made deck: legal under the catalogue's ruleset."""

    slug: str
    name: str
    description: str
    deck: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Featured:
    """One entry of the featured rotation: what a slot plays (RULES.md "Featured heists")."""

    name: str
    encounter: Encounter
    rival: str  # persona slug
    difficulty: str
    deck: tuple[str, ...]  # the player's fixed 12 cards


@dataclass(frozen=True, slots=True)
class FeaturedPrizes:
    """Signs for featured heists (DESIGN.md section 6): a ranked finish, and a closed slot's
    top places in order."""

    ranked_finish: int
    top: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Catalogue:
    ruleset: Ruleset
    encounters: Mapping[str, Encounter]  # slug -> encounter, in file order
    decks: Mapping[str, ReadyDeck]  # slug -> deck, in file order; always holds STARTER
    rotation: tuple[Featured, ...] = ()  # in order; no entry repeats the one before (cyclic)
    prizes: FeaturedPrizes = FeaturedPrizes(0, ())

    def encounter(self, slug: str) -> Encounter | None:
        return self.encounters.get(slug)

    def deck(self, slug: str) -> ReadyDeck | None:
        return self.decks.get(slug)

    def crew_set(self, slug: str) -> str | None:
        """The set of crew ``slug`` (``base``, ``night-market``), None if no such crew."""
        return self.ruleset.crew_set.get(slug)

    def crew_in_set(self, name: str) -> tuple[str, ...]:
        """The crew slugs of set ``name``, in table order."""
        return self.ruleset.crew_in_set(name)

    def night_market_crew(self) -> tuple[str, ...]:
        """The crew sold in the shop (set ``night-market``), in table order."""
        return self.ruleset.crew_in_set(NIGHT_MARKET)


def _featured(raw: Mapping[str, Any], ruleset: Ruleset, enc, ready) -> Featured:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"featured rotation entry {raw!r}: a name is needed")
    encounter = enc.get(raw.get("encounter"))
    if encounter is None:
        raise ValueError(f"featured {name!r}: unknown encounter {raw.get('encounter')!r}")
    try:
        rival = get_persona(raw.get("rival")).slug
        difficulty = get_difficulty(raw.get("difficulty")).slug
    except UnknownRival as exc:
        raise ValueError(f"featured {name!r}: {exc.message}") from None
    deck = raw.get("deck")
    if isinstance(deck, str):
        if deck not in ready:
            raise ValueError(f"featured {name!r}: unknown ready-made deck {deck!r}")
        cards = ready[deck].deck
    else:
        cards = validate_deck(ruleset, deck)
    return Featured(name.strip(), encounter, rival, difficulty, tuple(cards))


def _rotation(data: Mapping[str, Any], ruleset: Ruleset, enc, ready):
    rotation = tuple(_featured(raw, ruleset, enc, ready) for raw in data.get("rotation", []))
    # The rotation is a cycle: entry i is followed by i + 1, and the last by the first. No slot
    # may repeat the one before it (DESIGN.md section 8), so neighbours differ in encounter and
    # in rival.
    if len(rotation) == 1:
        raise ValueError("the featured rotation needs at least two entries (or none)")
    for before, after in zip(rotation, rotation[1:] + rotation[:1], strict=True):
        if before.encounter.slug == after.encounter.slug or before.rival == after.rival:
            raise ValueError(
                f"featured {after.name!r} repeats the encounter or rival of {before.name!r} "
                "before it"
            )
    prizes = data.get("prizes", {"ranked_finish": 0, "top": []})
    bonus, top = prizes.get("ranked_finish"), prizes.get("top")
    if type(bonus) is not int or bonus < 0:
        raise ValueError(f"featured prizes: ranked_finish must be a whole number, got {bonus!r}")
    if not isinstance(top, list) or any(type(n) is not int or n <= 0 for n in top):
        raise ValueError(f"featured prizes: top must be a list of positive numbers, got {top!r}")
    return rotation, FeaturedPrizes(bonus, tuple(top))


def build(
    ruleset: Ruleset,
    encounters: Iterable[Mapping[str, Any]],
    decks: Iterable[Mapping[str, Any]],
    featured: Mapping[str, Any] | None = None,
) -> Catalogue:
    """Validate the data against ``ruleset``: a bad modifier, an illegal deck or a rotation
    entry naming something that is not there fails loudly here, at load, never in a player's
    heist."""
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
    rotation, prizes = _rotation(featured or {}, ruleset, enc, ready)
    return Catalogue(ruleset, MappingProxyType(enc), MappingProxyType(ready), rotation, prizes)


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
            _data("featured.json"),
        )
        _loaded[version] = catalogue
    return catalogue


def active_ruleset() -> Ruleset:
    """The ruleset new heists are played under (the rules page shows it)."""
    return active().ruleset


def crew_set(slug: str, version: str = DEFAULT_VERSION) -> str | None:
    """The set of crew ``slug`` under ruleset ``version`` (the current one by default): ``base``
    or ``night-market``; None if the ruleset has no such crew."""
    return get_ruleset(version).crew_set.get(slug)


def night_market_crew(version: str = DEFAULT_VERSION) -> tuple[str, ...]:
    """The Night Market crew of ruleset ``version`` (the current one by default), table order."""
    return get_ruleset(version).crew_in_set(NIGHT_MARKET)


_RIVAL_LOOKS: dict[str, dict[str, str | None]] | None = None
# The cosmetic kinds (shop.models.COSMETIC_KINDS), by their values.
RIVAL_LOOK_KINDS = tuple(kind.value for kind in COSMETIC_KINDS)


def rival_cosmetics(slug: str) -> dict[str, str | None]:
    """What rival ``slug`` wears (game/data/rival_looks.json), every kind present, None where it
    wears nothing of that kind; a persona the file does not name wears nothing."""
    global _RIVAL_LOOKS
    if _RIVAL_LOOKS is None:
        looks = {}
        for rival, worn in _data("rival_looks.json")["rivals"].items():
            get_persona(rival)  # a rival that does not exist fails here, at load
            unknown = set(worn) - set(RIVAL_LOOK_KINDS)
            if unknown:
                raise ValueError(f"rival_looks.json: {rival!r} wears unknown kinds {unknown}")
            looks[rival] = {kind: worn.get(kind) for kind in RIVAL_LOOK_KINDS}
        _RIVAL_LOOKS = looks
    return dict(_RIVAL_LOOKS.get(slug) or dict.fromkeys(RIVAL_LOOK_KINDS))
