"""The vectorised night game agrees with the engine; the solver finds equilibria."""

import random

import numpy as np
from scipy.optimize import linprog

from game.engine import PLAYER, RIVAL, legal_plans, observe, resolve
from game.engine.crew import CONDITION_KINDS
from game.engine.rules import get_ruleset
from game.rivals import beliefs, nightgame, policy
from game.rivals.nightgame import ME, OPP
from game.rivals.personas import list_personas
from game.rivals.solver import exploitability, rm_plus
from tests.support.rivals import random_position


def _index(night, plan, obs):
    slugs = tuple(
        sorted((obs.decklists[obs.side][c], night.rs.vault_slugs.index(v)) for c, v in plan.crew)
    )
    return night.mine.plans.index((slugs, plan.boost and bool(slugs)))


def test_night_matrices_match_engine_resolve():
    rnd = random.Random(1)
    for i in range(300):
        state = random_position(90_000 + i)
        plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
        after, _ = resolve(state, plans)
        obs_r, obs_p = observe(state, RIVAL), observe(state, PLAYER)
        n_r, n_p = policy.read_night(obs_r), policy.read_night(obs_p)
        me = nightgame.side_arrays(n_r.table_me, [n_r.mine])
        opp = nightgame.side_arrays(n_p.table_me, [n_p.mine])
        nm = nightgame.night_matrices(state.ruleset, me, opp, n_r.loot, n_r.heat_me, n_r.heat_opp)
        i_r, i_p = _index(n_r, plans[RIVAL], obs_r), _index(n_p, plans[PLAYER], obs_p)
        gained_r = after.rival.score - state.rival.score
        gained_p = after.player.score - state.player.score
        assert nm.margin[i_r, i_p] == gained_r - gained_p
        assert nm.heat_me[i_r, i_p] == after.rival.heat
        assert nm.heat_opp[i_r, i_p] == after.player.heat


def test_hand_distribution_is_exact():
    pool = (("a", 2), ("b", 1), ("c", 3))
    dist = beliefs.hand_distribution(pool, 3)
    assert abs(sum(p for _, p in dist) - 1) < 1e-12
    # P(a, a, b) = C(2,2) C(1,1) / C(6,3)
    assert abs(dict(dist)[("a", "a", "b")] - 1 / 20) < 1e-12


def test_rm_plus_solves_a_bayesian_matrix_game_like_the_lp():
    rng = np.random.default_rng(0)
    for _ in range(10):
        n, sizes = 6, [4, 5, 3]
        u = rng.normal(size=(n, sum(sizes)))
        starts = np.cumsum([0, *sizes[:-1]])
        w = np.array([0.5, 0.3, 0.2])
        m = u.shape[1]
        hand_of = np.repeat(np.arange(3), sizes)
        a_ub = np.zeros((m, n + 3))
        a_ub[:, :n] = -u.T
        a_ub[np.arange(m), n + hand_of] = 1
        res = linprog(
            np.concatenate([np.zeros(n), -w]),
            A_ub=a_ub,
            b_ub=np.zeros(m),
            A_eq=[[1.0] * n + [0.0] * 3],
            b_eq=[1],
            bounds=[(0, None)] * n + [(None, None)] * 3,
            method="highs",
        )
        x, _ = rm_plus(u, starts, w, 2000)
        assert exploitability(u, starts, w, x, -res.fun) < 0.01


def _full_table(version, slugs, heat_me, heat_opp, winners, closed, night=1, loot=(1, 2, 3)):
    """Every effect checked for every pair of plans: what crew_table must equal."""
    rs = get_ruleset(version)
    cf = nightgame.configs(version, closed)
    lw = {v: w for v, w in zip(rs.vault_slugs, winners, strict=True) if w is not None}
    shape = (len(slugs), len(cf.items), len(cf.items), len(rs.vault_slugs))
    power, heat = np.zeros(shape, dtype=np.int16), np.zeros(shape, dtype=np.int16)
    heat_start = {nightgame.ME: heat_me, nightgame.OPP: heat_opp}
    loot_at = dict(zip(rs.vault_slugs, loot, strict=True))
    nightgame._tabulate(
        rs, cf, slugs, heat_start, lw, night, loot_at, lambda e: True, power, heat, with_base=True
    )
    return power, heat


def _table_cases():
    rs = get_ruleset("2026.11")
    decks = {tuple(sorted(set(p.deck))) for p in list_personas()}
    winners = [(None, None, None), (ME, OPP, None), (OPP, OPP, OPP), (None, OPP, ME)]
    for slugs in sorted(decks):
        for closed in (frozenset(), frozenset({rs.vault_slugs[1]})):
            for heat_me in range(7):
                for heat_opp in (0, 3, 6):
                    yield slugs, heat_me, heat_opp, winners[(heat_me + heat_opp) % 4], closed


def test_crew_table_equals_checking_every_effect_for_every_pair_of_plans():
    for slugs, heat_me, heat_opp, winners, closed in _table_cases():
        table = nightgame.crew_table(
            "2026.11", slugs, heat_me, heat_opp, winners, closed, night=1, loot=(1, 2, 3)
        )
        power, heat = _full_table("2026.11", slugs, heat_me, heat_opp, winners, closed)
        assert np.array_equal(table.power, power), (slugs, heat_me, heat_opp, winners, closed)
        assert np.array_equal(table.heat, heat), (slugs, heat_me, heat_opp, winners, closed)


def test_crew_table_tabulates_in_full_an_effect_reading_plans_and_context(monkeypatch):
    """No kind reads both yet; one that did would be checked pair by pair, not split."""
    heat_kinds = {"self_heat_start_at_least", "rival_heat_start_at_least"}
    reads_heat = {CONDITION_KINDS[k].check for k in heat_kinds}
    monkeypatch.setattr(
        nightgame,
        "_reads_plans_only",
        lambda e: e.check not in reads_heat and e.reads <= nightgame.PLAN_FIELDS,
    )
    monkeypatch.setattr(
        nightgame, "_reads_context_only", lambda e: False
    )  # heat and winner kinds now count as "mixed"
    nightgame._plan_part.cache_clear()
    nightgame._crew_table.cache_clear()
    try:
        for slugs, heat_me, heat_opp, winners, closed in list(_table_cases())[::5]:
            table = nightgame.crew_table(
                "2026.11", slugs, heat_me, heat_opp, winners, closed, night=1, loot=(1, 2, 3)
            )
            power, heat = _full_table("2026.11", slugs, heat_me, heat_opp, winners, closed)
            assert np.array_equal(table.power, power)
            assert np.array_equal(table.heat, heat)
    finally:
        nightgame._plan_part.cache_clear()
        nightgame._crew_table.cache_clear()
