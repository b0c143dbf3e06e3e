"""The engine's own words, in one table (pure: no Django, no engine imports at run time, so the
engine's errors can use it): its conditions, its effects and its errors.

The engine's conditions and errors carry a code and their parameters; this module turns them into
English. Everything the site says around them (the pages, the board, the deck builder, the rules
page, the featured rules) is game.presenters.words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rules import Ruleset

# --- Conditions ---------------------------------------------------------------------------------
# kind -> (as the crew's owner reads it, as said of the rival's own crew). The first is what a
# power breakdown carries ("spark: you Boosted"); the second rewords it when the crew is the
# rival's (the replay page and the board's reveal).
CONDITIONS: Mapping[str, tuple[str, str]] = {
    "always": ("always", "always"),
    "self_boost": ("you Boosted", "it Boosted"),
    "self_quiet": ("you did not Boost", "it did not Boost"),
    "rival_boost": ("the rival Boosted", "you Boosted"),
    "self_heat_start_at_least": (
        "your Heat started at {n} or more",
        "its Heat started at {n} or more",
    ),
    "rival_heat_start_at_least": (
        "the rival's Heat started at {n} or more",
        "your Heat started at {n} or more",
    ),
    "rival_won_vault_last_night": (
        "the rival won this vault last night",
        "you won this vault last night",
    ),
    "another_own_crew_same_vault": (
        "another of your crew is in this vault",
        "another of its crew is in this vault",
    ),
    "self_sent_two_split": (
        "you sent two crew to two different vaults",
        "it sent two crew to two different vaults",
    ),
    "rival_sent_two_both_here": (
        "both rival crew are in this vault",
        "both rival crew are in this vault",
    ),
    # Ruleset 2026.12 (the Night Market set).
    "night_at_least": ("it is night {n} or later", "it is night {n} or later"),
    "vault_loot_at_least": (
        "this vault holds {n} or more Loot tonight",
        "this vault holds {n} or more Loot tonight",
    ),
    "self_won_vault_last_night": (
        "you won this vault last night",
        "it won this vault last night",
    ),
    "self_heat_start_at_most": (
        "your Heat started at {n} or less",
        "its Heat started at {n} or less",
    ),
    "rival_sent_exactly": ("the rival sent {n} crew", "you sent {n} crew"),
    "self_sent_exactly": ("you sent {n} crew", "it sent {n} crew"),
}


def condition(kind: str, param: int | None = None, *, rival_side: bool = False) -> str:
    return CONDITIONS[kind][1 if rival_side else 0].format(n=param)


# --- Errors -------------------------------------------------------------------------------------
# Message key -> template. The key is the error's code unless one code has several messages.
ERRORS: Mapping[str, str] = {
    # Plans (validate_plan, in the order it checks).
    "unknown_vault": "there is no vault {vault!r}",
    "vault_closed": "{vault_name} is closed tonight",
    "card_not_in_hand": "card {card!r} is not in your hand",
    "duplicate_card": "a card can be sent only once",
    "too_many_crew": "send at most {max_crew} crew a night, got {count}",
    "over_energy": "the crew cost {spent} Energy; you have {energy}",
    "boost_without_crew": "you must send at least one crew to Boost",
    "boost_locked": "Boost is locked at Heat {lock} or more",
    "plan_boost_not_bool": "boost must be true or false",
    "plan_not_pairs": "crew is a list of (card id, vault) pairs",
    "plan_not_object": "a plan is {{crew: [{{card, vault}}], boost}}",
    "plan_entry_not_object": "each crew entry is {{card, vault}}",
    "plan_not_a_plan": "expected a Plan",
    "plans_missing": "resolve needs a plan for 'player' and for 'rival'",
    # Decks (validate_deck).
    "deck_not_a_list": "a deck is a list of crew slugs",
    "deck_wrong_size": "a deck has exactly {size} cards, got {count}",
    "deck_unknown_card": "unknown crew {slug!r}",
    "deck_too_many_copies": "at most {max_copies} copies of a type, got {count} of {slug!r}",
    # The heist.
    "heist_finished": "the heist is over",
    "heist_not_finished": "the heist is still being played",
    # Rivals (game.rivals.personas).
    "unknown_rival": "There is no rival called {slug!r}.",
    "unknown_difficulty": "There is no difficulty called {slug!r}.",
}


def error(key: str, params: Mapping[str, Any]) -> str:
    return ERRORS[key].format(**params)


# --- Effects ------------------------------------------------------------------------------------


def rival_side_reasons(ruleset: Ruleset) -> dict[str, str]:
    """Every breakdown reason the ruleset's effects can give, as said of the rival's own crew:
    ``{"spark: you Boosted": "it Boosted", ...}``."""
    out = {}
    for slug, crew in ruleset.crew.items():
        for effect in crew.effects:
            kind, param = effect.condition.kind, effect.condition.param
            out[f"{slug}: {condition(kind, param)}"] = condition(kind, param, rival_side=True)
    return out


def effect_text(slug: str, effect: Any) -> str:
    """One effect in rule terms, from the vocabulary: "+3 power when the rival Boosted"."""
    parts = []
    if effect.power:
        parts.append(f"{effect.power:+d} power")
    if effect.heat:
        parts.append(f"{'cools' if effect.heat < 0 else 'adds'} {abs(effect.heat)} Heat")
    when = condition(effect.condition.kind, effect.condition.param)
    return " and ".join(parts) + ("" if when == "always" else f" when {when}")
