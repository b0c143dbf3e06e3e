"""A heist started from a stored position (the debrief's "try this night again").

A *position* is a heist between nights, written out as JSON-friendly data::

    {
      "night": 4,                                  # the night about to be planned
      "history": [NightResult.to_dict(), ...],     # every earlier night's reveal, nights 1..N-1
      "sides": {
        "player": {"deck": [ids, top first], "hand": [ids], "discard": [ids],
                   "heat": 2, "score": 5, "shuffles": 1},
        "rival":  {...}
      }
    }

Card ids are indices into the side's decklist, as everywhere in the engine. Everything else a
night needs comes from the heist's seeds exactly as in a heist started at night 1: this night's
loot is drawn from ``loot/{night}/{vault}`` (the loot stream's position is the night), later
reshuffles from ``shuffle/{side}/{k}`` with ``k`` the side's ``shuffles``, and the rival's random
stream from ``rival/{night}`` (``rng.py``). So a position taken from a heist, started again with
the same seeds, continues exactly as that heist did for the same plans.

The history is part of the position because both sides see it (RULES.md "Hidden information":
every earlier night's full reveal), the rival's model of the player reads it, and "a vault the
rival won last night" is read from its last night.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .crew import PLAYER, RIVAL, SIDES
from .errors import EngineError
from .night import Plan, resolve
from .results import NightResult
from .rng import heist_key
from .rules import Ruleset, get_ruleset, validate_deck
from .setup import new_heist, night_loot
from .state import Encounter, HeistState, SideState

__all__ = ["heist_from_position", "history_plans", "position_of", "reach_position"]


def _bad(problem: str) -> EngineError:
    return EngineError("position_invalid", f"the position is not valid: {problem}")


def position_of(state: HeistState) -> dict[str, Any]:
    """``state`` written out as a position (it holds no seed: the seeds stay with the heist)."""
    if state.finished:
        raise EngineError("heist_finished")
    return {
        "night": state.night,
        # The history first, so a verifier names a changed earlier night before its effects.
        "history": [r.to_dict() for r in state.history],
        "sides": {
            side: {
                "deck": list(ss.deck),
                "hand": list(ss.hand),
                "discard": list(ss.discard),
                "heat": ss.heat,
                "score": ss.score,
                "shuffles": ss.shuffles,
            }
            for side, ss in zip(SIDES, state.sides, strict=True)
        },
    }


def _ids(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or any(type(c) is not int for c in value):
        raise _bad(f"{what} must be a list of card ids")
    return tuple(value)


def _int(value: Any, what: str, lo: int, hi: int | None = None) -> int:
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        span = f"{lo}..{hi}" if hi is not None else f"{lo} or more"
        raise _bad(f"{what} must be a whole number {span}")
    return value


def _side(rs: Ruleset, decklist: tuple[str, ...], data: Any, side: str) -> SideState:
    if not isinstance(data, Mapping):
        raise _bad(f"sides.{side} must be an object")
    fields = {"deck", "hand", "discard", "heat", "score", "shuffles"}
    if set(data) != fields:
        raise _bad(f"sides.{side} has the fields {', '.join(sorted(fields))}")
    deck = _ids(data["deck"], f"sides.{side}.deck")
    hand = _ids(data["hand"], f"sides.{side}.hand")
    discard = _ids(data["discard"], f"sides.{side}.discard")
    # Between nights every card is in exactly one pile (sent crew went to the discard pile).
    if sorted(deck + hand + discard) != list(range(len(decklist))):
        raise _bad(f"sides.{side}: deck, hand and discard must hold each card id once")
    if len(hand) > rs.hand_size:
        raise _bad(f"sides.{side}.hand holds more than {rs.hand_size} cards")
    return SideState(
        decklist=decklist,
        deck=deck,
        hand=hand,
        discard=discard,
        heat=_int(data["heat"], f"sides.{side}.heat", rs.heat_min, rs.heat_max),
        score=_int(data["score"], f"sides.{side}.score", 0),
        shuffles=_int(data["shuffles"], f"sides.{side}.shuffles", 1),
    )


def _history(rs: Ruleset, raw: Any, night: int) -> tuple[NightResult, ...]:
    if not isinstance(raw, list) or len(raw) != night - 1:
        raise _bad(f"history must hold the reveal of each of nights 1..{night - 1}")
    out = []
    for i, entry in enumerate(raw, start=1):
        try:
            result = NightResult.from_dict(entry)
        except (KeyError, TypeError, AttributeError):
            raise _bad(f"history[{i - 1}] is not a night's reveal") from None
        if result.night != i or [v.slug for v in result.vaults] != list(rs.vault_slugs):
            raise _bad(f"history[{i - 1}] is not night {i}'s reveal")
        out.append(result)
    return tuple(out)


def heist_from_position(
    *,
    ruleset: Ruleset | str,
    player_deck: Iterable[str],
    rival_deck: Iterable[str],
    server_seed: str,
    client_seed: str = "",
    encounter: Encounter | Mapping[str, Any] | None = None,
    position: Mapping[str, Any],
) -> HeistState:
    """The heist with these seeds, decks and encounter, at the start of ``position``'s night.

    The position's own consistency is checked (piles, Heat, scores against its last reveal,
    a reveal for every earlier night); whether these seeds and plans lead to it is
    :func:`reach_position`'s question, which the replay verifier asks.
    """
    if isinstance(ruleset, str):
        ruleset = get_ruleset(ruleset)
    if not isinstance(server_seed, str) or not isinstance(client_seed, str):
        raise EngineError("invalid_seed", "server_seed and client_seed are strings")
    decks = (validate_deck(ruleset, player_deck), validate_deck(ruleset, rival_deck))
    if encounter is not None and not isinstance(encounter, Encounter):
        encounter = Encounter.from_dict(encounter)
    if encounter is not None:
        encounter.validate(ruleset)
    if not isinstance(position, Mapping) or set(position) != {"night", "sides", "history"}:
        raise _bad("a position is {night, sides, history}")
    night = _int(position["night"], "night", 1, ruleset.nights)
    raw_sides = position["sides"]
    if not isinstance(raw_sides, Mapping) or set(raw_sides) != set(SIDES):
        raise _bad("sides must hold 'player' and 'rival'")
    sides = tuple(
        _side(ruleset, deck, raw_sides[side], side) for side, deck in zip(SIDES, decks, strict=True)
    )
    history = _history(ruleset, position["history"], night)
    scores = dict(history[-1].score) if history else {PLAYER: 0, RIVAL: 0}
    for side, ss in zip(SIDES, sides, strict=True):
        if ss.score != scores[side]:
            raise _bad(f"sides.{side}.score must be the score after the last night")
        if history and ss.heat != history[-1].side(side).heat_end:
            raise _bad(f"sides.{side}.heat must be the Heat the last night ended at")
    key = heist_key(server_seed, client_seed)
    loot, closed = night_loot(ruleset, key, night, encounter)
    return HeistState(
        ruleset=ruleset,
        key=key,
        night=night,
        sides=(sides[0], sides[1]),
        loot=loot,
        closed=closed,
        last_winners=history[-1].winners() if history else {},
        encounter=encounter,
        history=history,
    )


def reach_position(
    *,
    ruleset: Ruleset | str,
    player_deck: Iterable[str],
    rival_deck: Iterable[str],
    server_seed: str,
    client_seed: str = "",
    encounter: Encounter | Mapping[str, Any] | None = None,
    night: int,
    plans: Iterable[Mapping[str, Plan]] = (),
) -> HeistState:
    """The heist with these seeds played from night 1 with ``plans`` (one mapping per night)
    up to the start of ``night``: the position a retry of that night starts from."""
    state = new_heist(
        ruleset=ruleset,
        player_deck=player_deck,
        rival_deck=rival_deck,
        server_seed=server_seed,
        client_seed=client_seed,
        encounter=encounter,
    )
    for night_plans in plans:
        if state.night >= night:
            break
        state, _ = resolve(state, night_plans)
    if state.night != night:
        raise _bad(f"the plans given do not reach night {night}")
    return state


def history_plans(history: Iterable[NightResult]) -> list[dict[str, Plan]]:
    """The plans both sides sealed on each night of ``history`` (a reveal shows every card)."""
    out = []
    for result in history:
        out.append({side: Plan(*result.plan(side)) for side in SIDES})
    return out
