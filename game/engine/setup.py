"""Starting a heist (RULES.md step 1) and drawing a night's loot (step 2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .crew import PLAYER, RIVAL
from .deck import opening_deck
from .errors import EngineError
from .rng import heist_key, randint_once
from .rules import Ruleset, get_ruleset, validate_deck
from .state import Encounter, HeistState, SideState


def night_loot(
    ruleset: Ruleset, key: bytes, night: int, encounter: Encounter | None
) -> tuple[dict[str, int], frozenset[str]]:
    """This night's loot per vault and the closed vaults.

    Each vault draws from its own stream ``loot/{night}/{vault}`` so nothing played can shift it;
    encounter modifiers then apply on top (a closed vault shows loot 0).
    """
    loot: dict[str, int] = {}
    closed: list[str] = []
    lo, hi = ruleset.loot_min, ruleset.loot_max
    for vault in ruleset.vault_slugs:
        amount = randint_once(key, f"loot/{night}/{vault}", lo, hi)
        if encounter is not None:
            amount, is_closed = encounter.apply(night, vault, amount)
            if is_closed:
                closed.append(vault)
        loot[vault] = amount
    return loot, frozenset(closed)


def new_heist(
    *,
    ruleset: Ruleset | str,
    player_deck: Iterable[str],
    rival_deck: Iterable[str],
    server_seed: str,
    client_seed: str = "",
    encounter: Encounter | Mapping[str, Any] | None = None,
) -> HeistState:
    """Validate both decks, shuffle and deal, apply the encounter, and start night 1."""
    if isinstance(ruleset, str):
        ruleset = get_ruleset(ruleset)
    if not isinstance(server_seed, str) or not isinstance(client_seed, str):
        raise EngineError("invalid_seed", "server_seed and client_seed are strings")
    decks = (validate_deck(ruleset, player_deck), validate_deck(ruleset, rival_deck))
    if encounter is not None and not isinstance(encounter, Encounter):
        encounter = Encounter.from_dict(encounter)
    if encounter is not None:
        encounter.validate(ruleset)
    key = heist_key(server_seed, client_seed)
    # RULES.md step 1: starting Heat is 0 unless an encounter sets it (per side).
    default_heat = min(max(0, ruleset.heat_min), ruleset.heat_max)
    sides = []
    for side, decklist in zip((PLAYER, RIVAL), decks, strict=True):
        order = opening_deck(key, side, len(decklist))
        heat = encounter.heat_for(side, default_heat) if encounter else default_heat
        hs = ruleset.hand_size
        sides.append(SideState(decklist, order[hs:], order[:hs], (), heat, 0, 1))
    loot, closed = night_loot(ruleset, key, 1, encounter)
    return HeistState(
        ruleset=ruleset,
        key=key,
        night=1,
        sides=(sides[0], sides[1]),
        loot=loot,
        closed=closed,
        last_winners={},
        encounter=encounter,
        history=(),
    )
