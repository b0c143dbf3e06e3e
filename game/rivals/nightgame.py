"""The night as a matrix game, vectorised with numpy.

A crew's power depends on the opposing plan only through what the effect vocabulary can read of
it: whether the other side Boosted and which vaults its crew went to. So every plan is reduced to
a *configuration* (Boost, sorted tuple of vaults), and for one night context (both start Heats,
last night's winners, closed vaults) we tabulate, per crew type, its power at each vault for every
(own configuration, opposing configuration) pair by calling the engine's own compiled effect
checks. The night context also holds the night number and this night's loot (both public before
anyone plans; ruleset 2026.12's conditions read them); a crew table depends on them only when
one of its crew's effects reads them. A hand's plans are then rows of an array
``power[plan, opposing configuration, vault]``, and a payoff matrix between two sets of plans is
a couple of fancy-indexing operations.

Nothing here reads a HeistState: callers pass what an Observation shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product

import numpy as np

from game.engine.crew import PLAYER, RIVAL, NightContext
from game.engine.night import Plan
from game.engine.rules import CompiledEffect, Ruleset, get_ruleset

# Relative side labels inside the synthetic contexts: "me" is always PLAYER, the other RIVAL.
ME, OPP = PLAYER, RIVAL


@dataclass(frozen=True, slots=True)
class Configs:
    """Every (boost, sorted vault-index tuple) a plan can have, for one set of open vaults."""

    items: tuple[tuple[bool, tuple[int, ...]], ...]
    index: Mapping[tuple[bool, tuple[int, ...]], int]


@lru_cache(maxsize=64)
def configs(version: str, closed: frozenset[str]) -> Configs:
    rs = get_ruleset(version)
    open_idx = [i for i, v in enumerate(rs.vault_slugs) if v not in closed]
    items: list[tuple[bool, tuple[int, ...]]] = [(False, ())]
    for k in range(1, rs.max_crew + 1):
        for vt in combinations_with_replacement(open_idx, k):
            items.append((False, vt))
            items.append((True, vt))
    return Configs(tuple(items), {c: i for i, c in enumerate(items)})


@dataclass(frozen=True, slots=True)
class CrewTable:
    """Per crew type: power at its vault and Heat change, for (own config, opposing config)."""

    slugs: tuple[str, ...]
    slug_index: Mapping[str, int]
    power: np.ndarray  # (n_slugs, C, C, V) power of one crew at vault v (v must be in own config)
    heat: np.ndarray  # (n_slugs, C, C, V) Heat change of one crew at vault v (effects only)
    base_heat: np.ndarray  # (C,) Boost / quiet Heat change of the plan itself


# What a plan is made of, in NightContext terms. An effect whose check reads neither is the same
# for every pair of plans in a night (ConditionKind.reads).
PLAN_FIELDS = frozenset({"boost", "vaults"})


def _reads_plans_only(eff: CompiledEffect) -> bool:
    return eff.reads <= PLAN_FIELDS


def _reads_context_only(eff: CompiledEffect) -> bool:
    return bool(eff.reads) and not (eff.reads & PLAN_FIELDS)


def _tabulate(
    rs: Ruleset,
    cf: Configs,
    slugs: tuple[str, ...],
    heat_start: Mapping[str, int],
    last_winners: Mapping[str, str],
    night: int,
    loot: Mapping[str, int],
    use: Callable[[CompiledEffect], bool],
    power: np.ndarray,
    heat: np.ndarray,
    with_base: bool,
) -> None:
    """Add, in place, each crew's power (base power and Boost when ``with_base``) and Heat change
    from its effects for which ``use`` is true, by the engine's own checks, for every (own
    config, opposing config) pair and every vault the crew can be at."""
    vaults = rs.vault_slugs
    effects = [[e for e in rs.compiled[s] if use(e)] for s in slugs]
    if not with_base and not any(effects):
        return
    base = [rs.base_power[s] for s in slugs]
    for ci, (b_me, vt_me) in enumerate(cf.items):
        if not vt_me:
            continue
        mine = tuple(vaults[i] for i in vt_me)
        here = sorted(set(vt_me))
        for cj, (b_opp, vt_opp) in enumerate(cf.items):
            ctx = NightContext(
                boost={ME: b_me, OPP: b_opp},
                vaults={ME: mine, OPP: tuple(vaults[i] for i in vt_opp)},
                heat_start=heat_start,
                last_winners=last_winners,
                night=night,
                loot=loot,
            )
            for si, effs in enumerate(effects):
                p0 = base[si] + (rs.boost_power if b_me else 0) if with_base else 0
                for vi in here:
                    p = p0
                    dh = 0
                    v = vaults[vi]
                    for eff in effs:
                        if eff.check(ctx, ME, v, eff.param):
                            p += eff.power
                            dh += eff.heat
                    power[si, ci, cj, vi] += p
                    heat[si, ci, cj, vi] += dh


@lru_cache(maxsize=256)
def _plan_part(
    version: str, slugs: tuple[str, ...], closed: frozenset[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What of the crew table depends on the plans alone (base power, Boost, effects reading at
    most the two plans), and ``present[config, vault]``: the config has a crew at the vault.
    Shared by every night context with these crew types and closed vaults (read-only)."""
    rs = get_ruleset(version)
    cf = configs(version, closed)
    n_c, n_v = len(cf.items), len(rs.vault_slugs)
    power = np.zeros((len(slugs), n_c, n_c, n_v), dtype=np.int16)
    heat = np.zeros_like(power)
    no_context = {ME: 0, OPP: 0}
    _tabulate(rs, cf, slugs, no_context, {}, 0, {}, _reads_plans_only, power, heat, with_base=True)
    present = np.zeros((n_c, n_v), dtype=np.int16)
    for ci, (_, vt) in enumerate(cf.items):
        present[ci, list(set(vt))] = 1
    for a in (power, heat, present):
        a.flags.writeable = False
    return power, heat, present


@lru_cache(maxsize=256)
def _context_reads(version: str, slugs: tuple[str, ...]) -> frozenset[str]:
    """Every NightContext field some effect of these crew types reads."""
    rs = get_ruleset(version)
    return frozenset().union(*(e.reads for s in slugs for e in rs.compiled[s]))


def crew_table(
    version: str,
    slugs: tuple[str, ...],
    heat_me: int,
    heat_opp: int,
    last_winners: tuple[str | None, ...],
    closed: frozenset[str],
    *,
    night: int,
    loot: tuple[int, ...],
) -> CrewTable:
    """``last_winners`` is per vault (ruleset order): ME, OPP or None, relative to this side;
    ``night`` is the night's number and ``loot`` its loot per vault (ruleset order), as shown.

    Cached per night context; the night number and the loot are part of the key only when one
    of the crew types' effects reads them, so decks without such crew share tables across
    nights as before."""
    reads = _context_reads(version, slugs)
    if "night" not in reads:
        night = 0
    if "loot" not in reads:
        loot = ()
    return _crew_table(version, slugs, heat_me, heat_opp, last_winners, closed, night, loot)


@lru_cache(maxsize=4096)
def _crew_table(
    version: str,
    slugs: tuple[str, ...],
    heat_me: int,
    heat_opp: int,
    last_winners: tuple[str | None, ...],
    closed: frozenset[str],
    night: int,
    loot: tuple[int, ...],
) -> CrewTable:
    """The plan-only part is cached apart; effects that read only the night context (start
    Heats, last night's winners, the night number, the loot) hold or not per crew type and
    vault, whatever the plans, so they are added to it as a whole; an effect reading both (none
    in the vocabulary yet) is tabulated in full."""
    rs = get_ruleset(version)
    cf = configs(version, closed)
    vaults = rs.vault_slugs
    lw = {v: w for v, w in zip(vaults, last_winners, strict=True) if w is not None}
    loot_at = dict(zip(vaults, loot, strict=True)) if loot else {}
    heat_start = {ME: heat_me, OPP: heat_opp}
    power, heat, present = _plan_part(version, slugs, closed)
    ctx = NightContext(
        boost={ME: False, OPP: False},
        vaults={ME: (), OPP: ()},
        heat_start=heat_start,
        last_winners=lw,
        night=night,
        loot=loot_at,
    )
    add_power = np.zeros((len(slugs), len(vaults)), dtype=np.int16)
    add_heat = np.zeros_like(add_power)
    for si, s in enumerate(slugs):
        for eff in rs.compiled[s]:
            if _reads_context_only(eff):
                for vi, v in enumerate(vaults):
                    if eff.check(ctx, ME, v, eff.param):
                        add_power[si, vi] += eff.power
                        add_heat[si, vi] += eff.heat
    if add_power.any():
        power = power + add_power[:, None, None, :] * present[None, :, None, :]
    if add_heat.any():
        heat = heat + add_heat[:, None, None, :] * present[None, :, None, :]

    def mixed(eff: CompiledEffect) -> bool:
        return not _reads_plans_only(eff) and not _reads_context_only(eff)

    if any(mixed(e) for s in slugs for e in rs.compiled[s]):
        power, heat = power.copy(), heat.copy()
        _tabulate(
            rs, cf, slugs, heat_start, lw, night, loot_at, mixed, power, heat, with_base=False
        )
    base_heat = np.array(
        [rs.boost_heat if b else -rs.quiet_cooling for b, _ in cf.items], dtype=np.int16
    )
    return CrewTable(slugs, {s: i for i, s in enumerate(slugs)}, power, heat, base_heat)


@dataclass(frozen=True, slots=True)
class HandPlans:
    """A hand's distinct plans (by crew type, not card id) as index arrays."""

    plans: tuple[tuple[tuple[tuple[str, int], ...], bool], ...]  # ((slug, vault idx), ...), boost
    cfg: np.ndarray  # (n,) config index of each plan
    slot_slug: np.ndarray  # (n, max_crew) slug index in the crew table's slugs, -1 if empty
    slot_vault: np.ndarray  # (n, max_crew)


@lru_cache(maxsize=8192)
def hand_plans(
    version: str,
    hand: tuple[str, ...],
    table_slugs: tuple[str, ...],
    energy: int,
    boost_ok: bool,
    closed: frozenset[str],
) -> HandPlans:
    """Distinct legal plans of a hand given as sorted crew slugs (the engine's legality rules:
    at most ``max_crew`` cards, summed cost within Energy, open vaults, Boost only with crew)."""
    rs = get_ruleset(version)
    cf = configs(version, closed)
    open_idx = [i for i, v in enumerate(rs.vault_slugs) if v not in closed]
    sidx = {s: i for i, s in enumerate(table_slugs)}
    seen: set = set()
    plans: list = []
    if open_idx:
        plans.append(((), False))
        for k in range(1, min(rs.max_crew, len(hand)) + 1):
            for combo in sorted(set(combinations(hand, k))):
                if sum(rs.cost[s] for s in combo) > energy:
                    continue
                for vs in product(open_idx, repeat=k):
                    crew = tuple(sorted(zip(combo, vs, strict=True)))
                    if crew in seen:
                        continue
                    seen.add(crew)
                    plans.append((crew, False))
                    if boost_ok:
                        plans.append((crew, True))
    else:
        plans.append(((), False))
    n = len(plans)
    cfg = np.empty(n, dtype=np.intp)
    slot_slug = np.full((n, rs.max_crew), -1, dtype=np.intp)
    slot_vault = np.zeros((n, rs.max_crew), dtype=np.intp)
    for i, (crew, b) in enumerate(plans):
        cfg[i] = cf.index[(b and bool(crew), tuple(sorted(v for _, v in crew)))]
        for j, (s, v) in enumerate(crew):
            slot_slug[i, j] = sidx[s]
            slot_vault[i, j] = v
    return HandPlans(tuple(plans), cfg, slot_slug, slot_vault)


@dataclass(slots=True)
class SideArrays:
    """Plans of one or many hands stacked: power vs every opposing config, Heat change."""

    cfg: np.ndarray  # (n,)
    power: np.ndarray  # (n, C, V)
    heat: np.ndarray  # (n, C)


def side_arrays(table: CrewTable, hps: Sequence[HandPlans]) -> SideArrays:
    cfg = np.concatenate([h.cfg for h in hps]) if len(hps) > 1 else hps[0].cfg
    ss = np.concatenate([h.slot_slug for h in hps]) if len(hps) > 1 else hps[0].slot_slug
    sv = np.concatenate([h.slot_vault for h in hps]) if len(hps) > 1 else hps[0].slot_vault
    n = len(cfg)
    n_c = table.power.shape[1]
    n_v = table.power.shape[3]
    power = np.zeros((n, n_c, n_v), dtype=np.int16)
    heat = np.broadcast_to(table.base_heat[cfg][:, None], (n, n_c)).copy()
    for slot in range(ss.shape[1]):
        rows = np.nonzero(ss[:, slot] >= 0)[0]
        if not len(rows):
            continue
        s = ss[rows, slot]
        v = sv[rows, slot]
        c = cfg[rows]
        power[rows, :, v] += table.power[s, c, :, v]
        heat[rows] += table.heat[s, c, :, v]
    return SideArrays(cfg, power, heat)


def solo_arrays(table: CrewTable, hps: Sequence[HandPlans]) -> tuple[np.ndarray, np.ndarray]:
    """Power at each vault ``(n, V)`` and Heat change ``(n,)`` of the stacked plans as if the
    other side sent nobody (opposing configuration 0): what a player sees of its own plans."""
    cfg = np.concatenate([h.cfg for h in hps]) if len(hps) > 1 else hps[0].cfg
    ss = np.concatenate([h.slot_slug for h in hps]) if len(hps) > 1 else hps[0].slot_slug
    sv = np.concatenate([h.slot_vault for h in hps]) if len(hps) > 1 else hps[0].slot_vault
    n = len(cfg)
    power = np.zeros((n, table.power.shape[3]), dtype=np.int16)
    heat = table.base_heat[cfg].astype(np.int16)
    for slot in range(ss.shape[1]):
        rows = np.nonzero(ss[:, slot] >= 0)[0]
        if not len(rows):
            continue
        s, v, c = ss[rows, slot], sv[rows, slot], cfg[rows]
        power[rows, v] += table.power[s, c, 0, v]
        heat[rows] += table.heat[s, c, 0, v]
    return power, heat


@dataclass(slots=True)
class NightMatrices:
    """Outcome of every (my plan, their plan) pair: loot margin and both end Heats."""

    margin: np.ndarray  # (n_me, n_opp) float, my loot minus theirs
    heat_me: np.ndarray  # (n_me, n_opp) int, my end Heat (clamped once, RULES.md step 7)
    heat_opp: np.ndarray  # (n_me, n_opp)


def night_matrices(
    rs: Ruleset,
    me: SideArrays,
    opp: SideArrays,
    loot: np.ndarray,
    heat_me: int,
    heat_opp: int,
    want_heat: bool = True,
) -> NightMatrices:
    p_me = me.power[:, opp.cfg, :]  # (n_me, n_opp, V)
    p_opp = opp.power[:, me.cfg, :].transpose(1, 0, 2)
    win = np.sign(p_me - p_opp).astype(np.float32)
    margin = win @ loot
    if want_heat:
        hm = np.clip(heat_me + me.heat[:, opp.cfg], rs.heat_min, rs.heat_max)
        ho = np.clip(heat_opp + opp.heat[:, me.cfg], rs.heat_min, rs.heat_max).T
    else:
        hm = ho = np.zeros((0, 0), dtype=np.int16)
    return NightMatrices(margin, hm, ho)


def night_loot(rs: Ruleset, loot: Mapping[str, int]) -> tuple[int, ...]:
    """A night's loot per vault in ruleset order, as the engine's NightContext holds it."""
    return tuple(loot.get(v, 0) for v in rs.vault_slugs)


def relative_winners(
    rs: Ruleset, last_winners: Mapping[str, str | None], me: str
) -> tuple[str | None, ...]:
    out = []
    for v in rs.vault_slugs:
        w = last_winners.get(v)
        out.append(None if w is None else (ME if w == me else OPP))
    return tuple(out)


def slug_plan_to_plan(
    crew: tuple[tuple[str, int], ...], boost: bool, hand: Sequence[tuple[int, str]], rs: Ruleset
) -> Plan:
    """Turn a crew-type plan back into card ids from the observer's hand."""
    free = list(hand)
    out = []
    for slug, vi in crew:
        for k, (cid, s) in enumerate(free):
            if s == slug:
                out.append((cid, rs.vault_slugs[vi]))
                del free[k]
                break
        else:  # pragma: no cover - hand_plans only lists cards in the hand
            raise ValueError(f"{slug} not in hand")
    return Plan(tuple(out), boost and bool(out))
