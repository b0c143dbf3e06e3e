"""A plan's preview for its player, before sealing: the power each vault would get as it stands,
the bonuses that would hold, and which of them depend on the rival's hidden plan.

Built from an :class:`Observation` only (what the player may see), never from the state, so a
preview can say nothing of the rival's hand or sealed plan. A bonus whose condition reads the
rival's plan is evaluated against every plan the rival could have sealed (its Boost, where its
crew went, as far as its public Heat and hand size allow): when the answer is the same for all of
them it is counted, otherwise it is listed as conditional, with its condition's words.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from .crew import NightContext, other
from .errors import EngineError, PlanError
from .night import Plan
from .view import Observation

SURE = "sure"
MAYBE = "conditional"
NEVER = "no"


def _rival_plans(obs: Observation) -> list[tuple[bool, tuple[str, ...]]]:
    """(boost, vaults of its crew) for every plan the rival could have sealed, as far as the
    public facts tell: its Heat (Boost locked?), its hand size, the open vaults."""
    rs = obs.ruleset
    rival = obs.opponent
    open_vaults = [v for v in rs.vault_slugs if v not in obs.closed]
    most = min(rs.max_crew, obs.hand_count[rival]) if open_vaults else 0
    placements: list[tuple[str, ...]] = [()]
    for k in range(1, most + 1):
        placements += list(product(open_vaults, repeat=k))
    boost_ok = obs.heat[rival] < rs.boost_lock_heat
    out = [(False, p) for p in placements]
    if boost_ok:
        out += [(True, p) for p in placements if p]
    return out


def _check_plan(obs: Observation, plan: Plan) -> None:
    """The engine's refusals for the observer's own plan, in validate_plan's order."""
    if obs.finished:
        raise EngineError("heist_finished")
    rs = obs.ruleset
    for _, vault in plan.crew:
        if type(vault) is not str or vault not in rs.vault_set:
            raise PlanError("unknown_vault", vault=vault)
    for _, vault in plan.crew:
        if vault in obs.closed:
            raise PlanError("vault_closed", vault=vault, vault_name=rs.vault_name(vault))
    hand = dict(obs.hand)
    for card, _ in plan.crew:
        if type(card) is not int or card not in hand:
            raise PlanError("card_not_in_hand", card=card)
    if len({card for card, _ in plan.crew}) != len(plan.crew):
        raise PlanError("duplicate_card")
    if len(plan.crew) > rs.max_crew:
        raise PlanError("too_many_crew", max_crew=rs.max_crew, count=len(plan.crew))
    budget = obs.energy[obs.side]
    spent = sum(rs.cost[hand[card]] for card, _ in plan.crew)
    if spent > budget:
        raise PlanError("over_energy", spent=spent, energy=budget)
    if plan.boost:
        if not plan.crew:
            raise PlanError("boost_without_crew")
        if obs.heat[obs.side] >= rs.boost_lock_heat:
            raise PlanError("boost_locked", lock=rs.boost_lock_heat)


def _heat_after(obs: Observation, plan: Plan, rivals: list[tuple[bool, tuple[str, ...]]]) -> dict:
    """The Heat this plan leaves for tomorrow: the sure part, and any conditional change."""
    rs = obs.ruleset
    me = obs.side
    hand = dict(obs.hand)
    delta = rs.boost_heat if plan.boost else -rs.quiet_cooling
    maybe = []
    for card, vault in plan.crew:
        for eff in rs.compiled[hand[card]]:
            if not eff.heat:
                continue
            status = _status(obs, plan, eff, vault, rivals)
            if status == SURE:
                delta += eff.heat
            elif status == MAYBE:
                maybe.append({"amount": eff.heat, "reason": eff.reason.split(": ", 1)[-1]})
    heat = min(max(obs.heat[me] + delta, rs.heat_min), rs.heat_max)
    last = obs.night >= obs.nights
    return {
        "heat": heat,
        "energy": None if last else rs.energy_by_heat[heat],
        "conditional": maybe,
    }


def _status(obs: Observation, plan: Plan, eff: Any, vault: str, rivals: list) -> str:
    me = obs.side
    rival = other(me)
    mine = tuple(v for _, v in plan.crew)
    seen = set()
    for boost, vaults in rivals:
        ctx = NightContext(
            boost={me: plan.boost, rival: boost},
            vaults={me: mine, rival: vaults},
            heat_start=dict(obs.start_heat),
            last_winners=obs.last_winners,
            night=obs.night,
            loot=obs.loot,
        )
        seen.add(bool(eff.check(ctx, me, vault, eff.param)))
        if len(seen) == 2:
            return MAYBE
    if not seen:
        return NEVER
    return SURE if seen == {True} else NEVER


def preview(obs: Observation, plan: Plan) -> dict[str, Any]:
    """What ``plan`` would do tonight, as far as its player can know before the reveal.

    ``vaults``: per vault (ruleset order) the sure power, the crew with their breakdowns, and the
    conditional bonuses (``{"crew", "amount", "reason"}``). ``tomorrow``: Heat and Energy this
    plan leaves (``energy`` None on the last night), and the same with Boost turned the other way
    when that plan would be legal (``other_boost``), so the board can say what Boost costs.
    """
    _check_plan(obs, plan)
    rs = obs.ruleset
    hand = dict(obs.hand)
    rivals = _rival_plans(obs)
    vaults: dict[str, dict[str, Any]] = {
        v: {"slug": v, "power": 0, "crew": [], "conditional": [], "closed": v in obs.closed}
        for v in rs.vault_slugs
    }
    for card, vault in plan.crew:
        slug = hand[card]
        power = rs.base_power[slug]
        parts = [{"kind": "base", "amount": power, "reason": ""}]
        if plan.boost:
            power += rs.boost_power
            parts.append({"kind": "boost", "amount": rs.boost_power, "reason": ""})
        for eff in rs.compiled[slug]:
            if not eff.power:
                continue
            status = _status(obs, plan, eff, vault, rivals)
            reason = eff.reason.split(": ", 1)[-1]
            if status == SURE:
                power += eff.power
                parts.append({"kind": "bonus", "amount": eff.power, "reason": reason})
            elif status == MAYBE:
                vaults[vault]["conditional"].append(
                    {"crew": slug, "amount": eff.power, "reason": reason}
                )
        vaults[vault]["power"] += power
        vaults[vault]["crew"].append({"card": card, "crew": slug, "power": power, "parts": parts})
    tomorrow = _heat_after(obs, plan, rivals)
    flipped = Plan(plan.crew, not plan.boost)
    try:
        _check_plan(obs, flipped)
    except PlanError:
        other_boost = None
    else:
        other_boost = _heat_after(obs, flipped, rivals)
    return {
        "night": obs.night,
        "boost": plan.boost,
        "vaults": list(vaults.values()),
        "tomorrow": tomorrow,
        "other_boost": other_boost,
        "spent": sum(rs.cost[hand[c]] for c, _ in plan.crew),
        "energy": obs.energy[obs.side],
    }
