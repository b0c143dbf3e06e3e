"""The crew effect vocabulary.

RULES.md: "Effects are built from a small vocabulary (a condition, and a power bonus or a Heat
change), so a new crew type is data, not code." A crew type is therefore plain data: a list of
:class:`Effect`, each a :class:`Condition` plus a power bonus and/or a Heat change. Adding a
condition *kind* is the only thing that needs code; the ruleset loader refuses unknown kinds, so a
ruleset can never silently name a condition this engine does not understand.

Conditions read only what RULES.md step 5 allows: this night's two sealed plans, both start Heats
and which side won each vault last night, and (ruleset 2026.12's widened ruling) the night number
and this night's loot at each vault, both public before anyone plans (a :class:`NightContext`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from . import text

PLAYER = "player"
RIVAL = "rival"
SIDES = (PLAYER, RIVAL)
_OTHER = {PLAYER: RIVAL, RIVAL: PLAYER}


def other(side: str) -> str:
    """The opposing side's name."""
    return _OTHER[side]


@dataclass(frozen=True, slots=True)
class NightContext:
    """Everything a condition may read (RULES.md step 5 and the 2026.12 ruling), for one night.

    ``vaults[side]`` lists the vault of each crew that side sent, one entry per crew, so its
    length is the number of crew sent. ``last_winners`` maps vault -> side or None (tie, closed,
    or night 1, when it is empty). ``night`` is this night's number (1-based) and ``loot`` this
    night's loot per vault (as shown to both sides; a closed vault shows 0).
    """

    boost: Mapping[str, bool]
    vaults: Mapping[str, tuple[str, ...]]
    heat_start: Mapping[str, int]
    last_winners: Mapping[str, str | None]
    night: int
    loot: Mapping[str, int]


Check = Callable[[NightContext, str, str, "int | None"], bool]


def _always(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return True


def _self_boost(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.boost[side]


def _self_quiet(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return not ctx.boost[side]


def _rival_boost(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.boost[_OTHER[side]]


def _self_heat_start_at_least(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.heat_start[side] >= param  # type: ignore[operator]  # param checked at load


def _rival_heat_start_at_least(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.heat_start[_OTHER[side]] >= param  # type: ignore[operator]


def _rival_won_vault_last_night(
    ctx: NightContext, side: str, vault: str, param: int | None
) -> bool:
    # Ruling (Rooftop Runner): never on night 1 (last_winners is empty then) and a tied vault was
    # won by nobody (stored as None), so only a real rival win counts.
    return ctx.last_winners.get(vault) == _OTHER[side]


def _another_own_crew_same_vault(
    ctx: NightContext, side: str, vault: str, param: int | None
) -> bool:
    # Ruling (Borrowed Face): "another crew" means another crew *of yours*; the crew itself is one
    # of the entries, so two of yours in the vault is enough, and each of a pair gets the bonus.
    return ctx.vaults[side].count(vault) >= 2


def _self_sent_two_split(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    mine = ctx.vaults[side]
    return len(mine) == 2 and mine[0] != mine[1]


def _rival_sent_two_both_here(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    theirs = ctx.vaults[_OTHER[side]]
    return len(theirs) == 2 and theirs[0] == vault and theirs[1] == vault


# --- Ruleset 2026.12 (the Night Market set) ---------------------------------------------------


def _night_at_least(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.night >= param  # type: ignore[operator]


def _vault_loot_at_least(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.loot.get(vault, 0) >= param  # type: ignore[operator]


def _self_won_vault_last_night(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    # Ruling (Insider), as Rooftop Runner's: never on night 1 (last_winners is empty then) and a
    # tied vault was won by nobody (None), so only a real win of this side counts.
    return ctx.last_winners.get(vault) == side


def _self_heat_start_at_most(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    return ctx.heat_start[side] <= param  # type: ignore[operator]


def _rival_sent_exactly(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    # Anywhere: only how many crew the rival sent counts, not where they went.
    return len(ctx.vaults[_OTHER[side]]) == param


def _self_sent_exactly(ctx: NightContext, side: str, vault: str, param: int | None) -> bool:
    # The crew itself is one of the entries: exactly 1 means it is the only crew its side sent.
    return len(ctx.vaults[side]) == param


# A param's lower bound: a number, or the name of a ruleset number (None: no bound). There are no
# upper bounds: a param past the ruleset's numbers (night 9 of 6) simply never holds, and a
# variant ruleset with fewer nights or crew still loads the same crew.
Bound = int | str | None


@dataclass(frozen=True, slots=True)
class ConditionKind:
    """One word of the vocabulary: how to check it (its words are ``text.CONDITIONS[kind]``).

    ``reads`` names the :class:`NightContext` fields the check reads (a test holds every kind to
    it). Code that evaluates many nights at once relies on it: a check that reads neither plan
    (``boost``, ``vaults``) is the same for every pair of plans in one night.
    """

    kind: str
    needs_param: bool
    check: Check
    reads: frozenset[str]
    # The least param the loader accepts: an int or a ruleset field's name (see Bound).
    param_min: Bound = None

    def describe(self, param: int | None) -> str:
        return text.condition(self.kind, param)


CONDITION_KINDS: Mapping[str, ConditionKind] = {
    k.kind: k
    for k in (
        ConditionKind("always", False, _always, frozenset()),
        ConditionKind("self_boost", False, _self_boost, frozenset({"boost"})),
        ConditionKind("self_quiet", False, _self_quiet, frozenset({"boost"})),
        ConditionKind("rival_boost", False, _rival_boost, frozenset({"boost"})),
        ConditionKind(
            "self_heat_start_at_least",
            True,
            _self_heat_start_at_least,
            frozenset({"heat_start"}),
            "heat_min",
        ),
        ConditionKind(
            "rival_heat_start_at_least",
            True,
            _rival_heat_start_at_least,
            frozenset({"heat_start"}),
            "heat_min",
        ),
        ConditionKind(
            "rival_won_vault_last_night",
            False,
            _rival_won_vault_last_night,
            frozenset({"last_winners"}),
        ),
        ConditionKind(
            "another_own_crew_same_vault",
            False,
            _another_own_crew_same_vault,
            frozenset({"vaults"}),
        ),
        ConditionKind(
            "self_sent_two_split",
            False,
            _self_sent_two_split,
            frozenset({"vaults"}),
        ),
        ConditionKind(
            "rival_sent_two_both_here",
            False,
            _rival_sent_two_both_here,
            frozenset({"vaults"}),
        ),
        # Ruleset 2026.12 (the Night Market set).
        ConditionKind("night_at_least", True, _night_at_least, frozenset({"night"}), 1),
        ConditionKind("vault_loot_at_least", True, _vault_loot_at_least, frozenset({"loot"}), 0),
        ConditionKind(
            "self_won_vault_last_night",
            False,
            _self_won_vault_last_night,
            frozenset({"last_winners"}),
        ),
        ConditionKind(
            "self_heat_start_at_most",
            True,
            _self_heat_start_at_most,
            frozenset({"heat_start"}),
            "heat_min",
        ),
        ConditionKind(
            "rival_sent_exactly",
            True,
            _rival_sent_exactly,
            frozenset({"vaults"}),
            0,
        ),
        ConditionKind(
            "self_sent_exactly",
            True,
            _self_sent_exactly,
            frozenset({"vaults"}),
            1,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition kind from :data:`CONDITION_KINDS` and, for kinds that need one, an integer."""

    kind: str
    param: int | None = None

    def holds(self, ctx: NightContext, side: str, vault: str) -> bool:
        """Whether this condition holds for a crew of ``side`` sent to ``vault``."""
        return CONDITION_KINDS[self.kind].check(ctx, side, vault, self.param)

    def describe(self) -> str:
        return CONDITION_KINDS[self.kind].describe(self.param)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind}
        if self.param is not None:
            out["param"] = self.param
        return out


@dataclass(frozen=True, slots=True)
class Effect:
    """When ``condition`` holds: ``power`` is added to this crew; ``heat`` to its side's Heat.

    Negative ``heat`` is cooling. Heat changes are summed with Boost/quiet and clamped once
    (RULES.md step 7 ruling), never one by one.
    """

    condition: Condition
    power: int = 0
    heat: int = 0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"condition": self.condition.to_dict()}
        if self.power:
            out["power"] = self.power
        if self.heat:
            out["heat"] = self.heat
        return out


@dataclass(frozen=True, slots=True)
class CrewType:
    """A crew card type. ``text`` is the player-facing line from the rules page."""

    slug: str
    name: str
    cost: int
    power: int
    text: str
    set: str
    effects: tuple[Effect, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "slug": self.slug,
            "name": self.name,
            "cost": self.cost,
            "power": self.power,
            "text": self.text,
            "set": self.set,
            "effects": [e.to_dict() for e in self.effects],
        }
