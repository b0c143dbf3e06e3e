"""One night: legal plans, plan validation, and resolution (RULES.md steps 3 to 8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from .crew import PLAYER, RIVAL, NightContext
from .deck import draw_piles
from .errors import EngineError, PlanError
from .results import CrewResult, NightResult, PowerPart, SideResult, VaultResult
from .rng import canonical_plan
from .rules import Ruleset
from .setup import night_loot
from .state import HeistState, SideState

__all__ = [
    "NightResult",
    "Plan",
    "energy",
    "legal_plans",
    "legal_plans_for",
    "outcome",
    "plan_canonical",
    "plan_slugs",
    "resolve",
    "validate_plan",
]

_INVALID = "invalid_plan"


@dataclass(frozen=True, slots=True)
class Plan:
    """A sealed plan: (card id, vault slug) pairs, kept sorted so equal plans compare equal.

    A malformed shape (not pairs, a non-bool ``boost``) raises :class:`PlanError` with code
    ``invalid_plan``; whether the plan is *legal* is :func:`validate_plan`'s job.
    """

    crew: tuple[tuple[int, str], ...] = ()
    boost: bool = False

    def __post_init__(self) -> None:
        if type(self.boost) is not bool:
            raise PlanError(_INVALID, key="plan_boost_not_bool")
        crew = self.crew
        try:
            norm = tuple(sorted((card, vault) for card, vault in crew))
        except (TypeError, ValueError):
            raise PlanError(_INVALID, key="plan_not_pairs") from None
        if norm != crew:
            object.__setattr__(self, "crew", norm)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        """From ``{"crew": [{"card": id, "vault": slug}, ...], "boost": bool}``."""
        if not isinstance(data, Mapping) or not isinstance(data.get("crew", []), list):
            raise PlanError(_INVALID, key="plan_not_object")
        pairs = []
        for entry in data.get("crew", []):
            if not isinstance(entry, Mapping) or set(entry) != {"card", "vault"}:
                raise PlanError(_INVALID, key="plan_entry_not_object")
            pairs.append((entry["card"], entry["vault"]))
        return cls(tuple(pairs), data.get("boost", False))

    def to_dict(self) -> dict[str, Any]:
        return {"crew": [{"card": c, "vault": v} for c, v in self.crew], "boost": self.boost}

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(c for c, _ in self.crew)


_EMPTY_PLANS = (Plan((), False),)


@lru_cache(maxsize=8192)
def _combo_plans(
    cards: tuple[int, ...], open_vaults: tuple[str, ...]
) -> tuple[tuple[Plan, ...], tuple[Plan, ...]]:
    """Every placement of the (sorted, distinct) ``cards`` over ``open_vaults``: without and with
    Boost. Interned, so legal_plans only filters by cost and never builds a Plan on the hot path;
    the key space is small (card-id combinations x sets of open vaults)."""
    quiet = []
    loud = []
    for vaults in product(open_vaults, repeat=len(cards)):
        crew = tuple(zip(cards, vaults, strict=True))
        quiet.append(Plan(crew, False))
        loud.append(Plan(crew, True))
    return tuple(quiet), tuple(loud)


def energy(state: HeistState, side: str) -> int:
    """This night's Energy: the table entry for the side's start Heat (RULES.md step 2)."""
    return state.ruleset.energy_by_heat[state.side(side).heat]


def legal_plans_for(
    ruleset: Ruleset,
    decklist: Sequence[str],
    hand: Sequence[int],
    heat: int,
    closed: frozenset[str] | set[str] = frozenset(),
) -> tuple[Plan, ...]:
    """All legal plans for a hand (used by :func:`legal_plans` and by observers, who know their
    own hand, Heat and the closed vaults).

    Every distinct plan is listed, including ones that differ only in which copy of a duplicated
    crew type is sent (they are distinct cards with distinct ids). Order: by number of crew, then
    card ids, then vaults in ruleset order, quiet before Boost.
    """
    vaults = ruleset.vault_slugs
    open_vaults = tuple(v for v in vaults if v not in closed) if closed else vaults
    if not open_vaults:
        return _EMPTY_PLANS
    budget = ruleset.energy_by_heat[heat]
    # RULES.md step 3: Boost only with at least one crew and start Heat below the lock.
    boost_ok = heat < ruleset.boost_lock_heat
    cost = ruleset.cost
    cards = sorted(hand)
    costs = [cost[decklist[c]] for c in cards]
    out: list[Plan] = list(_EMPTY_PLANS)
    for k in range(1, min(ruleset.max_crew, len(cards)) + 1):
        for idx in combinations(range(len(cards)), k):
            if sum(map(costs.__getitem__, idx)) > budget:
                continue
            quiet, loud = _combo_plans(tuple(map(cards.__getitem__, idx)), open_vaults)
            out += quiet
            if boost_ok:
                out += loud
    return tuple(out)


def legal_plans(state: HeistState, side: str) -> tuple[Plan, ...]:
    """All legal distinct plans for ``side`` this night (empty once the heist is finished)."""
    if state.finished:
        return ()
    ss = state.side(side)
    return legal_plans_for(state.ruleset, ss.decklist, ss.hand, ss.heat, state.closed)


def validate_plan(state: HeistState, side: str, plan: Plan) -> None:
    """Raise :class:`PlanError` if ``plan`` is illegal for ``side`` now.

    Checks run in this order, each over the whole plan, so a plan with several faults always
    reports the same code: unknown_vault, vault_closed, card_not_in_hand, duplicate_card,
    too_many_crew, over_energy, boost_without_crew, boost_locked.
    """
    if state.finished:
        raise EngineError("heist_finished")
    if not isinstance(plan, Plan):
        raise PlanError(_INVALID, key="plan_not_a_plan")
    rs = state.ruleset
    ss = state.side(side)
    crew = plan.crew
    vault_set = rs.vault_set
    for _, vault in crew:
        if type(vault) is not str or vault not in vault_set:
            raise PlanError("unknown_vault", vault=vault)
    if state.closed:
        for _, vault in crew:
            if vault in state.closed:
                raise PlanError("vault_closed", vault=vault, vault_name=rs.vault_name(vault))
    hand = ss.hand
    for card, _ in crew:
        if type(card) is not int or card not in hand:
            raise PlanError("card_not_in_hand", card=card)
    if len(crew) > 1 and len({card for card, _ in crew}) != len(crew):
        raise PlanError("duplicate_card")
    if len(crew) > rs.max_crew:
        raise PlanError("too_many_crew", max_crew=rs.max_crew, count=len(crew))
    budget = rs.energy_by_heat[ss.heat]
    spent = sum(rs.cost[ss.decklist[card]] for card, _ in crew)
    if spent > budget:
        raise PlanError("over_energy", spent=spent, energy=budget)
    if plan.boost:
        if not crew:
            raise PlanError("boost_without_crew")
        if ss.heat >= rs.boost_lock_heat:
            raise PlanError("boost_locked", lock=rs.boost_lock_heat)


# PowerPart values that do not depend on the position, interned per amount.
@lru_cache(maxsize=256)
def _part(kind: str, amount: int) -> PowerPart:
    return PowerPart(kind, amount)


def resolve(state: HeistState, plans: Mapping[str, Plan]) -> tuple[HeistState, NightResult]:
    """Reveal both sealed plans and play the night out (RULES.md steps 5 to 8).

    Returns the state at the start of the next night (or finished) and the night's result.
    """
    if state.finished:
        raise EngineError("heist_finished")
    try:
        plan_p = plans[PLAYER]
        plan_r = plans[RIVAL]
    except (KeyError, TypeError):
        raise PlanError(_INVALID, key="plans_missing") from None
    validate_plan(state, PLAYER, plan_p)
    validate_plan(state, RIVAL, plan_r)
    side_p, side_r, tally_p, tally_r = _reveal(state, plan_p, plan_r)
    vaults, winners, score_p, score_r = _take_loot(state, tally_p, tally_r)
    closed = state.closed
    result = NightResult(
        night=state.night,
        loot=dict(state.loot),
        closed=tuple(v for v in state.ruleset.vault_slugs if v in closed) if closed else (),
        player=side_p,
        rival=side_r,
        vaults=vaults,
        score={PLAYER: score_p, RIVAL: score_r},
    )
    sides = (
        _after(state, PLAYER, state.sides[0], plan_p, side_p.heat_end, score_p),
        _after(state, RIVAL, state.sides[1], plan_r, side_r.heat_end, score_r),
    )
    return _next_night(state, sides, result, winners), result


def _reveal(
    state: HeistState, plan_p: Plan, plan_r: Plan
) -> tuple[SideResult, SideResult, dict[str, int], dict[str, int]]:
    """Steps 5 and 7: each crew's power with its breakdown, each side's power per vault, and
    each side's Heat after the night."""
    rs = state.ruleset
    ss_p, ss_r = state.sides
    # RULES.md step 5: conditions read only the two sealed plans, both start Heats and last
    # night's winners, and (the 2026.12 ruling) the night number and this night's loot, both
    # public before anyone plans; nothing else is put in the context.
    ctx = NightContext(
        boost={PLAYER: plan_p.boost, RIVAL: plan_r.boost},
        vaults={PLAYER: tuple(v for _, v in plan_p.crew), RIVAL: tuple(v for _, v in plan_r.crew)},
        heat_start={PLAYER: ss_p.heat, RIVAL: ss_r.heat},
        last_winners=state.last_winners,
        night=state.night,
        loot=state.loot,
    )
    base_power = rs.base_power
    compiled = rs.compiled
    boost_power = rs.boost_power
    sides: list[SideResult] = []
    tallies: list[dict[str, int]] = []
    for side, ss, plan in ((PLAYER, ss_p, plan_p), (RIVAL, ss_r, plan_r)):
        boost = plan.boost
        tally: dict[str, int] = {}
        if boost:
            heat_delta = rs.boost_heat
            heat_parts = [_part("boost", rs.boost_heat)] if rs.boost_heat else []
        else:
            heat_delta = -rs.quiet_cooling
            heat_parts = [_part("quiet", -rs.quiet_cooling)] if rs.quiet_cooling else []
        crew_results = []
        for card, vault in plan.crew:
            slug = ss.decklist[card]
            power = base_power[slug]
            parts = [_part("base", power)]
            if boost:
                power += boost_power
                parts.append(_part("boost", boost_power))
            for eff in compiled[slug]:
                if eff.check(ctx, side, vault, eff.param):
                    if eff.power:
                        power += eff.power
                        parts.append(eff.power_part)
                    if eff.heat:
                        heat_delta += eff.heat
                        heat_parts.append(eff.heat_part)
            tally[vault] = tally.get(vault, 0) + power
            crew_results.append(CrewResult(card, slug, vault, power, tuple(parts)))
        # Ruling (RULES.md step 7): every Heat change of the night is summed first and the sum
        # is clamped once, so e.g. Heat 5 + Boost (+2) + Coolant (-1) ends at 6, not 5.
        heat_end = min(max(ss.heat + heat_delta, rs.heat_min), rs.heat_max)
        sides.append(SideResult(ss.heat, heat_end, boost, tuple(crew_results), tuple(heat_parts)))
        tallies.append(tally)
    return sides[0], sides[1], tallies[0], tallies[1]


def _take_loot(
    state: HeistState, tally_p: Mapping[str, int], tally_r: Mapping[str, int]
) -> tuple[tuple[VaultResult, ...], dict[str, str | None], int, int]:
    """Step 6: the higher sum takes each vault's loot; equal sums (0-0 included) pay nobody."""
    loot = state.loot
    closed = state.closed
    score_p, score_r = state.sides[0].score, state.sides[1].score
    vault_results = []
    winners: dict[str, str | None] = {}
    for vault in state.ruleset.vault_slugs:
        amount = loot[vault]
        if vault in closed:
            vault_results.append(VaultResult(vault, 0, 0, None, 0, True))
            winners[vault] = None
            continue
        pp = tally_p.get(vault, 0)
        rp = tally_r.get(vault, 0)
        if pp > rp:
            winner: str | None = PLAYER
            score_p += amount
        elif rp > pp:
            winner = RIVAL
            score_r += amount
        else:
            winner = None
        winners[vault] = winner
        vault_results.append(VaultResult(vault, pp, rp, winner, amount))
    return tuple(vault_results), winners, score_p, score_r


def _after(
    state: HeistState, side: str, ss: SideState, plan: Plan, heat: int, score: int
) -> SideState:
    """Step 8 for one side: sent crew go to the discard pile, then it draws back up (nothing
    after the last night: no later night could use it)."""
    deck, shuffles = ss.deck, ss.shuffles
    if plan.crew:
        sent = [c for c, _ in plan.crew]
        hand = tuple(c for c in ss.hand if c not in sent)
        discard = ss.discard + tuple(sent)
    else:
        hand, discard = ss.hand, ss.discard
    rs = state.ruleset
    if state.night < rs.nights:
        deck, hand, discard, shuffles = draw_piles(
            deck, hand, discard, shuffles, state.key, side, rs.hand_size
        )
    return SideState(ss.decklist, deck, hand, discard, heat, score, shuffles)


def _next_night(
    state: HeistState,
    sides: tuple[SideState, SideState],
    result: NightResult,
    winners: dict[str, str | None],
) -> HeistState:
    """The state at the start of the next night, with its loot drawn (none after the last)."""
    rs = state.ruleset
    if state.night >= rs.nights:
        next_loot: dict[str, int] = {}
        next_closed: frozenset[str] = frozenset()
    else:
        next_loot, next_closed = night_loot(rs, state.key, state.night + 1, state.encounter)
    return HeistState(
        ruleset=rs,
        key=state.key,
        night=state.night + 1,
        sides=sides,
        loot=next_loot,
        closed=next_closed,
        last_winners=winners,
        encounter=state.encounter,
        history=(*state.history, result),
    )


def outcome(state: HeistState) -> str | None:
    """The winner of a finished heist, or None for a draw (RULES.md step 9: equal loot)."""
    if not state.finished:
        raise EngineError("heist_not_finished")
    p, r = state.sides[0].score, state.sides[1].score
    if p > r:
        return PLAYER
    if r > p:
        return RIVAL
    return None


def plan_slugs(decklist: Sequence[str], plan: Plan) -> tuple[tuple[str, str], ...]:
    """The plan as (crew slug, vault) pairs, the form a commitment binds."""
    return tuple((decklist[c], v) for c, v in plan.crew)


def plan_canonical(decklist: Sequence[str], plan: Plan) -> str:
    """The canonical text to commit to (DESIGN.md section 5), for ``commit_plan``."""
    return canonical_plan(plan_slugs(decklist, plan), plan.boost)
