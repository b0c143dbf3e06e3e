"""Every rival level against Night Market crew (ruleset 2026.12): the rival's night game reads the
new condition kinds exactly as the engine does (it calls the engine's own checks, with the night's
number and loot), its player model and beliefs read past nights with that night's number and
loot, what it cannot see still never changes its plan, and every level plays whole heists against
(and with) a deck full of Night Market crew, legally."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from game.engine import (
    PLAYER,
    RIVAL,
    HeistState,
    Plan,
    Stream,
    get_ruleset,
    legal_plans,
    new_heist,
    observe,
    resolve,
    validate_plan,
)
from game.rivals import beliefs, nightgame, playermodel, policy
from game.rivals.nightgame import ME, OPP
from game.rivals.personas import list_difficulties, list_personas
from game.rivals.policy import choose_plan

VERSION = "2026.12"
RS = get_ruleset(VERSION)
MARKET = RS.crew_in_set("night-market")
LEVELS = [d.slug for d in list_difficulties()]
PERSONAS = [p.slug for p in list_personas()]


def market_deck(rnd: random.Random, base_share: int = 0) -> list[str]:
    """A legal 2026.12 deck: Night Market crew (two of each, 14 cards) cut to 12, or with
    ``base_share`` of them swapped for base crew."""
    pool = [s for s in MARKET for _ in range(RS.max_copies)]
    rnd.shuffle(pool)
    deck = pool[: RS.deck_size - base_share]
    base = [s for s in RS.crew_in_set("base") for _ in range(RS.max_copies)]
    rnd.shuffle(base)
    return deck + base[:base_share]


def market_position(i: int, nights: int | None = None) -> HeistState:
    """A 2026.12 heist with Night Market decks (the rival's a persona's deck half the time),
    played by random legal plans for a random number of nights."""
    rnd = random.Random(i)
    ps = list_personas()
    player = market_deck(rnd, base_share=rnd.choice((0, 0, 4)))
    rival = ps[rnd.randrange(len(ps))].deck if i % 2 else market_deck(rnd)
    state = new_heist(
        ruleset=VERSION, player_deck=player, rival_deck=rival, server_seed=f"market-{i}"
    )
    for _ in range(rnd.randrange(RS.nights) if nights is None else nights):
        plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
        state, _ = resolve(state, plans)
    return state


# --- the night game reads the new kinds as the engine does -----------------------------------


def _full_table(slugs, heat_me, heat_opp, winners, closed, night, loot):
    """Every effect checked for every pair of plans with the engine's checks: the reference."""
    cf = nightgame.configs(VERSION, closed)
    lw = {v: w for v, w in zip(RS.vault_slugs, winners, strict=True) if w is not None}
    shape = (len(slugs), len(cf.items), len(cf.items), len(RS.vault_slugs))
    power, heat = np.zeros(shape, dtype=np.int16), np.zeros(shape, dtype=np.int16)
    nightgame._tabulate(
        RS,
        cf,
        slugs,
        {ME: heat_me, OPP: heat_opp},
        lw,
        night,
        dict(zip(RS.vault_slugs, loot, strict=True)),
        lambda e: True,
        power,
        heat,
        with_base=True,
    )
    return power, heat


def _cases():
    rnd = random.Random(5)
    everything = tuple(sorted(RS.crew))
    sets = [tuple(sorted(MARKET)), everything, tuple(sorted({*MARKET[:3], "spark", "watcher"}))]
    winners = [(None, None, None), (ME, OPP, None), (OPP, OPP, OPP), (None, ME, ME)]
    for slugs in sets:
        for closed in (frozenset(), frozenset({RS.vault_slugs[2]})):
            for night in range(1, RS.nights + 1):
                heat_me, heat_opp = rnd.randrange(7), rnd.randrange(7)
                loot = tuple(0 if v in closed else rnd.randint(1, 8) for v in RS.vault_slugs)
                yield slugs, heat_me, heat_opp, winners[night % 4], closed, night, loot


def test_crew_table_equals_the_engine_checks_for_the_new_kinds():
    cases = list(_cases())
    assert {c[5] for c in cases} == set(range(1, 7)) and any(max(c[6]) >= 4 for c in cases)
    for slugs, heat_me, heat_opp, winners, closed, night, loot in cases:
        table = nightgame.crew_table(
            VERSION, slugs, heat_me, heat_opp, winners, closed, night=night, loot=loot
        )
        power, heat = _full_table(slugs, heat_me, heat_opp, winners, closed, night, loot)
        assert np.array_equal(table.power, power), (slugs, night, loot, winners)
        assert np.array_equal(table.heat, heat), (slugs, night, loot, winners)


def test_crew_table_depends_on_night_and_loot_only_through_crew_that_read_them():
    base = tuple(sorted(RS.crew_in_set("base")))
    args = (VERSION, base, 2, 3, (None, ME, OPP), frozenset())
    a = nightgame.crew_table(*args, night=1, loot=(1, 2, 3))
    b = nightgame.crew_table(*args, night=6, loot=(4, 4, 4))
    assert a is b  # one cached table for a base deck, whatever the night
    owl = tuple(sorted({"night-owl", "fence", *base}))
    args = (VERSION, owl, 2, 3, (None, ME, OPP), frozenset())
    early = nightgame.crew_table(*args, night=4, loot=(1, 2, 3))
    late = nightgame.crew_table(*args, night=5, loot=(1, 2, 3))
    rich = nightgame.crew_table(*args, night=4, loot=(1, 4, 3))
    i_owl, i_fence = owl.index("night-owl"), owl.index("fence")
    cfg = nightgame.configs(VERSION, frozenset()).index[(False, (1,))]  # one crew at vault 1
    assert late.power[i_owl, cfg, 0, 1] == early.power[i_owl, cfg, 0, 1] + 3
    assert rich.power[i_fence, cfg, 0, 1] == early.power[i_fence, cfg, 0, 1] + 3
    assert rich.power[i_owl, cfg, 0, 1] == early.power[i_owl, cfg, 0, 1]


def _plan_index(night, plan, obs):
    slugs = tuple(
        sorted((obs.decklists[obs.side][c], night.rs.vault_slugs.index(v)) for c, v in plan.crew)
    )
    return night.mine.plans.index((slugs, plan.boost and bool(slugs)))


def test_night_matrices_match_engine_resolve_with_night_market_crew():
    rnd = random.Random(3)
    for i in range(300):
        state = market_position(120_000 + i)
        if state.finished:
            continue
        plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
        after, _ = resolve(state, plans)
        obs_r, obs_p = observe(state, RIVAL), observe(state, PLAYER)
        n_r, n_p = policy.read_night(obs_r), policy.read_night(obs_p)
        me = nightgame.side_arrays(n_r.table_me, [n_r.mine])
        opp = nightgame.side_arrays(n_p.table_me, [n_p.mine])
        nm = nightgame.night_matrices(RS, me, opp, n_r.loot, n_r.heat_me, n_r.heat_opp)
        i_r, i_p = _plan_index(n_r, plans[RIVAL], obs_r), _plan_index(n_p, plans[PLAYER], obs_p)
        gained_r = after.rival.score - state.rival.score
        gained_p = after.player.score - state.player.score
        assert nm.margin[i_r, i_p] == gained_r - gained_p, i
        assert nm.heat_me[i_r, i_p] == after.rival.heat, i
        assert nm.heat_opp[i_r, i_p] == after.player.heat, i
        # The rival's model of the player's side, from its own seat, agrees too.
        opp_hps = policy.opponent_plans(n_r, [tuple(sorted(s for _, s in obs_p.hand))])
        theirs = nightgame.side_arrays(n_r.table_opp, opp_hps)
        assert np.array_equal(theirs.power, opp.power) and np.array_equal(theirs.heat, opp.heat)


def _recorded_powers(res, side, rs):
    return sorted((c.crew, rs.vault_slugs.index(c.vault), c.power) for c in res.side(side).crew)


def test_model_and_beliefs_read_each_past_night_with_its_own_number_and_loot(monkeypatch):
    """Wrap crew_table: every table the player model and the beliefs build for a past night
    must be that night's (its number and loot), so it gives the powers the engine revealed."""
    calls = []
    real = nightgame.crew_table

    def spy(version, slugs, heat_me, heat_opp, winners, closed, *, night, loot):
        table = real(version, slugs, heat_me, heat_opp, winners, closed, night=night, loot=loot)
        calls.append((night, loot, heat_me, slugs, table))
        return table

    monkeypatch.setattr(nightgame, "crew_table", spy)
    checked = 0
    for i in range(12):
        state = market_position(130_000 + i, nights=RS.nights - 1)
        obs = observe(state, RIVAL)
        by_night = {res.night: res for res in obs.history}
        calls.clear()
        playermodel.past_choices(obs)
        beliefs.reweight_by_last_play(obs, beliefs.hand_distribution(beliefs.unseen_pool(obs), 3))
        assert calls
        for night, loot, heat_me, slugs, table in calls:
            res = by_night[night]
            assert slugs == tuple(sorted(set(obs.decklists[PLAYER])))
            assert loot == nightgame.night_loot(RS, res.loot)
            assert heat_me == res.player.heat_start
            # The player's revealed crew, at their vaults, had the powers the engine gave them.
            vt = tuple(sorted(RS.vault_slugs.index(c.vault) for c in res.player.crew))
            vt_opp = tuple(sorted(RS.vault_slugs.index(c.vault) for c in res.rival.crew))
            cf = nightgame.configs(VERSION, frozenset(res.closed))
            ci = cf.index[(res.player.boost and bool(vt), vt)]
            cj = cf.index[(res.rival.boost and bool(vt_opp), vt_opp)]
            for slug, vi, power in _recorded_powers(res, PLAYER, RS):
                assert table.power[table.slug_index[slug], ci, cj, vi] == power, (i, night, slug)
                checked += 1
    assert checked > 50


# --- what the rival cannot see never changes its plan ----------------------------------------


def resample_hidden(state, rnd):
    """The player's hand and draw order, the rival's draw order and the heist key (so every
    later shuffle and all future loot): nothing the rival's observation shows."""
    p, r = state.sides
    cards = list(p.hand + p.deck)
    rnd.shuffle(cards)
    k = len(p.hand)
    new_p = dataclasses.replace(p, hand=tuple(cards[:k]), deck=tuple(cards[k:]))
    deck_r = list(r.deck)
    rnd.shuffle(deck_r)
    new_r = dataclasses.replace(r, deck=tuple(deck_r))
    key = bytes(rnd.randrange(256) for _ in range(32))
    return dataclasses.replace(state, key=key, sides=(new_p, new_r))


def test_fair_by_construction_against_night_market_crew():
    changed = 0
    future_loot_changed = 0
    for i in range(160):
        state = market_position(140_000 + i)
        if state.finished:
            continue
        rnd = random.Random(20_000 + i)
        other = resample_hidden(state, rnd)
        assert observe(other, RIVAL) == observe(state, RIVAL)
        changed += other.player.hand != state.player.hand
        # Tonight's loot is public and kept; the next night's is not and (mostly) moves.
        plans = {PLAYER: Plan(), RIVAL: Plan()}
        if state.night < RS.nights:
            future_loot_changed += resolve(state, plans)[0].loot != resolve(other, plans)[0].loot
        level = LEVELS[i % len(LEVELS)]
        persona = PERSONAS[(i // len(LEVELS)) % len(PERSONAS)]
        key = bytes([i % 256]) * 32
        a = choose_plan(
            observe(state, RIVAL), persona=persona, difficulty=level, stream=Stream(key, "r")
        )
        b = choose_plan(
            observe(other, RIVAL), persona=persona, difficulty=level, stream=Stream(key, "r")
        )
        assert a == b, (i, level)
    assert changed > 60 and future_loot_changed > 60


# --- whole heists, every level, against and with Night Market decks ---------------------------


def _play(level: str, seat: str, seed: int, opponent: str | None) -> HeistState:
    """One whole heist: ``level`` plays ``seat``; the other seat is ``opponent`` (a level) or
    random legal play. The player's deck is full of Night Market crew."""
    rnd = random.Random(seed)
    ps = list_personas()
    rival_deck = ps[seed % len(ps)].deck if seat == RIVAL else market_deck(rnd)
    state = new_heist(
        ruleset=VERSION,
        player_deck=market_deck(rnd),
        rival_deck=rival_deck,
        server_seed=f"market-heist-{level}-{seat}-{seed}",
    )
    nights = 0
    while not state.finished:
        plans = {}
        for side in (PLAYER, RIVAL):
            obs = observe(state, side)
            who = level if side == seat else opponent
            if who is None:
                plans[side] = rnd.choice(obs.legal_plans())
            else:
                plans[side] = choose_plan(
                    obs,
                    persona=PERSONAS[seed % len(PERSONAS)],
                    difficulty=who,
                    stream=Stream(bytes(32), f"{seed}/{side}/{state.night}"),
                )
            validate_plan(state, side, plans[side])
            assert plans[side] in obs.legal_plans()
        state, _ = resolve(state, plans)
        nights += 1
    assert nights == RS.nights
    return state


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_heists_against_a_night_market_deck(level):
    for seed in range(3):
        _play(level, RIVAL, seed, opponent=None)
    # The strongest level as the player, across the table.
    _play(level, RIVAL, 7, opponent="kingpin")


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_night_market_deck_from_the_player_seat(level):
    _play(level, PLAYER, 11, opponent=None)
    _play(level, PLAYER, 12, opponent="safecracker")
