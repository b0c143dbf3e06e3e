"""What one side may see (RULES.md "Hidden information").

The program that plays for the rival receives exactly ``observe(state, RIVAL)`` and never the
state, so this is the only door through which positions leave the engine for a player. It copies
no key, no seed, no deck order, no opponent hand and no future loot: those are not fields of
:class:`Observation` at all, so no later change to the state can leak them by accident.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .crew import PLAYER, RIVAL, SIDES, other
from .night import Plan, legal_plans_for
from .results import NightResult
from .rules import Ruleset
from .state import Encounter, HeistState


@dataclass(frozen=True, slots=True)
class Observation:
    """One side's view. Per-side mappings are keyed ``"player"`` / ``"rival"``.

    ``hand`` is the observer's own hand as (card id, crew slug); the other side's hand is only
    ``hand_count[other]``. ``discard`` piles are public (slugs, in discard order), as are both
    decklists, Heat, Energy and score. ``loot`` / ``closed`` are for this night only;
    ``history`` is every earlier night's full reveal.
    """

    side: str
    ruleset: Ruleset = field(repr=False, compare=False)
    ruleset_version: str
    night: int
    nights: int
    finished: bool
    vaults: tuple[tuple[str, str], ...]
    loot: Mapping[str, int]
    closed: frozenset[str]
    hand: tuple[tuple[int, str], ...]
    hand_count: Mapping[str, int]
    deck_count: Mapping[str, int]
    discard: Mapping[str, tuple[str, ...]]
    decklists: Mapping[str, tuple[str, ...]]
    heat: Mapping[str, int]
    start_heat: Mapping[str, int]
    energy: Mapping[str, int]
    score: Mapping[str, int]
    last_winners: Mapping[str, str | None]
    encounter: Encounter | None
    history: tuple[NightResult, ...]

    @property
    def opponent(self) -> str:
        return other(self.side)

    def legal_plans(self) -> tuple[Plan, ...]:
        """The observer's legal plans (the same list ``legal_plans`` gives for the state)."""
        if self.finished:
            return ()
        return legal_plans_for(
            self.ruleset,
            self.decklists[self.side],
            tuple(c for c, _ in self.hand),
            self.heat[self.side],
            self.closed,
        )

    def to_dict(self) -> dict[str, Any]:
        def per_side(m: Mapping[str, Any]) -> dict[str, Any]:
            return {s: (list(m[s]) if isinstance(m[s], tuple) else m[s]) for s in SIDES}

        return {
            "side": self.side,
            "ruleset": self.ruleset_version,
            "night": self.night,
            "nights": self.nights,
            "finished": self.finished,
            "vaults": [
                {
                    "slug": slug,
                    "name": name,
                    "loot": self.loot.get(slug, 0),
                    "closed": slug in self.closed,
                }
                for slug, name in self.vaults
            ],
            "loot": dict(self.loot),
            "closed": [slug for slug, _ in self.vaults if slug in self.closed],
            "hand": [{"card": c, "crew": s} for c, s in self.hand],
            "hand_count": per_side(self.hand_count),
            "deck_count": per_side(self.deck_count),
            "discard": per_side(self.discard),
            "decklists": per_side(self.decklists),
            "heat": per_side(self.heat),
            "start_heat": per_side(self.start_heat),
            "energy": per_side(self.energy),
            "score": per_side(self.score),
            "last_winners": dict(self.last_winners),
            "encounter": self.encounter.to_dict() if self.encounter else None,
            "history": [r.to_dict() for r in self.history],
        }


def observe(state: HeistState, side: str) -> Observation:
    """Exactly what ``side`` may see now."""
    me = state.side(side)  # also rejects an unknown side
    rs = state.ruleset
    p, r = state.sides
    energy_table = rs.energy_by_heat
    heat = {PLAYER: p.heat, RIVAL: r.heat}
    return Observation(
        side=side,
        ruleset=rs,
        ruleset_version=rs.version,
        night=state.night,
        nights=rs.nights,
        finished=state.finished,
        vaults=tuple((v.slug, v.name) for v in rs.vaults),
        loot=dict(state.loot),
        closed=state.closed,
        hand=tuple((c, me.decklist[c]) for c in me.hand),
        hand_count={PLAYER: len(p.hand), RIVAL: len(r.hand)},
        deck_count={PLAYER: len(p.deck), RIVAL: len(r.deck)},
        discard={PLAYER: p.discard_slugs(), RIVAL: r.discard_slugs()},
        decklists={PLAYER: p.decklist, RIVAL: r.decklist},
        heat=heat,
        # Heat only changes at resolve, so during a night the start Heat is the current Heat.
        start_heat=dict(heat),
        energy={PLAYER: energy_table[p.heat], RIVAL: energy_table[r.heat]},
        score={PLAYER: p.score, RIVAL: r.score},
        last_winners=dict(state.last_winners),
        encounter=state.encounter,
        history=state.history,
    )
