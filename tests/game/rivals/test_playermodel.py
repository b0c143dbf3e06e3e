"""Kingpin's model of the player: it reads the observation only, learns habits, replays exactly."""

import ast
import dataclasses
import random
import time
from pathlib import Path

import numpy as np
import pytest

from game.engine import PLAYER, RIVAL, Stream, new_heist, observe, resolve
from game.rivals import playermodel, policy
from game.rivals.lab import panel
from game.rivals.personas import get_difficulty, get_persona, list_personas
from game.rivals.solver import rm_plus
from tests.support.rivals import random_position, resample_hidden


def heist_against(style: str, seed: int, nights: int):
    """A heist where the player seat plays ``style`` and the rival random legal plans, stopped
    after ``nights`` nights."""
    ps = list_personas()
    state = new_heist(
        ruleset="2026.11",
        player_deck=ps[seed % 4].deck,
        rival_deck=ps[(seed // 4) % 4].deck,
        server_seed=f"model-{style}-{seed}",
    )
    rnd = random.Random(seed)
    for _ in range(nights):
        plans = {
            PLAYER: panel.play(style, observe(state, PLAYER), Stream(bytes(32), str(state.night))),
            RIVAL: rnd.choice(observe(state, RIVAL).legal_plans()),
        }
        state, _ = resolve(state, plans)
    return state


def test_the_model_reads_the_observation_only():
    """States the rival cannot tell apart (the player's hand and draw order, the rival's draw
    order, the heist key and so all future loot resampled) give the same model and plan."""
    knobs = get_difficulty("kingpin").knobs
    checked = 0
    for i in range(150):
        state = random_position(160_000 + i)
        if not state.history or state.finished:
            continue
        other = resample_hidden(state, random.Random(i))
        a, b = observe(state, RIVAL), observe(other, RIVAL)
        assert a == b
        ma, mb = playermodel.build(a), playermodel.build(b)
        assert np.array_equal(ma.theta, mb.theta) and ma.trust == mb.trust
        night = policy.read_night(a)
        hands, _ = policy.hand_weights(a, knobs, Stream(bytes(32), "h"))
        hps = policy.opponent_plans(night, hands)
        starts = np.cumsum([0] + [len(h.cfg) for h in hps[:-1]])
        ya, _ = policy.player_model(a, knobs, night, hps, starts)
        yb, _ = policy.player_model(b, knobs, night, hps, starts)
        assert np.array_equal(ya, yb)
        checked += 1
    assert checked > 50


def test_the_model_learns_a_habit_and_trusts_a_consistent_player_more():
    boost_p, prior_p, trust_style, trust_random = [], [], [], []
    for seed in range(12):
        state = heist_against("boost-happy", seed, 4)
        obs = observe(state, RIVAL)
        model = playermodel.build(obs)
        night = policy.read_night(obs)
        hps = policy.opponent_plans(night, [tuple(sorted(s for s in obs.decklists[PLAYER][:3]))])
        f = playermodel.tonight_features(obs, hps, night.table_opp, night.loot)
        starts = np.array([0])
        boosts = np.array([b for _, b in hps[0].plans])
        if boosts.any():
            boost_p.append(playermodel.predict(model.theta, f, starts)[boosts].sum())
            prior_p.append(playermodel.predict(playermodel.PRIOR_MEAN, f, starts)[boosts].sum())
        trust_style.append(model.trust)
        rnd_state = random_position(170_000 + seed)
        if rnd_state.history:
            trust_random.append(playermodel.build(observe(rnd_state, RIVAL)).trust)
    assert np.mean(boost_p) > np.mean(prior_p) + 0.15
    assert np.mean(trust_style) > np.mean(trust_random) + 0.1


def test_the_model_learns_a_reaction_to_the_rivals_last_plan_within_a_heist():
    """A player who copies the rival's last plan (after a first night of chasing loot) shows it
    on two or three nights; the reaction features carry no typical-player belief, so the model
    learns the copying at once and trusts the model that predicts it."""
    copy = playermodel.FEATURES.index("copy_vaults")
    theta, trust = [], []
    for seed in range(12):
        model = playermodel.build(observe(heist_against("copycat", seed, 4), RIVAL))
        theta.append(model.theta[copy])
        trust.append(model.trust)
    assert np.mean(theta) > 2.4
    assert np.mean(trust) > 0.22


def test_a_heists_fits_kept_from_night_to_night_give_the_same_model():
    """playermodel.HeistFits (what the debrief keeps while it reviews one heist's nights) gives
    build's model to the last bit, in any order of the nights, and refuses another heist's."""
    for seed in range(6):
        nights = [observe(heist_against("copycat", seed, k), RIVAL) for k in range(6)]
        fits = playermodel.HeistFits(nights[-1])
        for obs in random.Random(seed).sample(nights, len(nights)):
            kept, alone = fits.build(obs), playermodel.build(obs)
            assert np.array_equal(kept.theta, alone.theta)
            assert (kept.trust, kept.nights, kept.gains) == (alone.trust, alone.nights, alone.gains)
    with pytest.raises(ValueError):
        fits.build(observe(heist_against("copycat", 99, 3), RIVAL))


def test_the_fits_cache_carries_a_heist_night_to_night_and_works_out_only_the_new_night(
    monkeypatch,
):
    """playermodel.FitsCache (what the rival's worker keeps between a heist's nights) gives
    build's model to the last bit on every night, fits the model once per new night instead of
    on every earlier prefix again, and starts afresh for an observation of another heist."""
    fitted = []
    real_fit = playermodel.fit
    monkeypatch.setattr(
        playermodel, "fit", lambda choices: fitted.append(len(choices)) or real_fit(choices)
    )
    cache = playermodel.FitsCache(size=2)
    for seed in range(4):
        for k in range(6):
            obs = observe(heist_against("copycat", seed, k), RIVAL)
            fitted.clear()
            kept = cache.fits(("heist", seed), obs).build(obs)
            new_fits = list(fitted)
            alone = playermodel.build(obs)
            assert np.array_equal(kept.theta, alone.theta)
            assert (kept.trust, kept.nights, kept.gains) == (alone.trust, alone.nights, alone.gains)
            # Night k + 1 adds one choice (at most): one new fit on it, the rest are kept.
            assert len(new_fits) <= 1 if k else new_fits == [0]
    assert len(cache) == 2  # bounded: the least recently used heists dropped
    # A key reused for another heist (or a seat's history that does not continue): afresh.
    other = observe(heist_against("copycat", 99, 3), RIVAL)
    kept = cache.fits(("heist", 3), other).build(other)
    assert np.array_equal(kept.theta, playermodel.build(other).theta)


def test_the_rival_plays_the_same_plans_with_the_fits_cache():
    """The levels that learn the player choose the same plan on every night of a heist with the
    worker's cache as without it (policy.choose_plan's ``fits``)."""
    cache = playermodel.FitsCache()
    learning = [d for d in ("rookie", "hustler", "safecracker", "kingpin") if policy.learns(d)]
    assert learning == ["safecracker", "kingpin"]
    for seed in range(3):
        for k in range(6):
            obs = observe(heist_against("loot-chaser", seed, k), RIVAL)
            for level in learning:
                stream = Stream(bytes(32), f"fits/{seed}/{k}/{level}")
                with_cache = policy.choose_plan(
                    obs,
                    persona="furnace",
                    difficulty=level,
                    stream=stream,
                    fits=cache.fits((seed, level), obs),
                )
                stream = Stream(bytes(32), f"fits/{seed}/{k}/{level}")
                alone = policy.choose_plan(obs, persona="furnace", difficulty=level, stream=stream)
                assert with_cache == alone


def test_no_history_is_the_prior_with_no_trust():
    obs = observe(random_position(0), RIVAL)
    obs = dataclasses.replace(obs, history=())
    m = playermodel.build(obs)
    assert m.nights == 0 and m.trust == 0 and np.array_equal(m.theta, playermodel.PRIOR_MEAN)


def test_restricted_game_runs_from_equilibrium_to_best_response():
    rng = np.random.default_rng(3)
    n, sizes = 5, [4, 3]
    u = rng.normal(size=(n, sum(sizes)))
    starts = np.array([0, 4])
    w = np.array([0.6, 0.4])
    model = np.concatenate([[0.7, 0.1, 0.1, 0.1], [0.2, 0.2, 0.6]])
    x0, _ = rm_plus(u, starts, w, 500)
    xz, _ = rm_plus(u, starts, w, 500, model, 0.0)
    assert np.array_equal(x0, xz)  # share 0 is exactly the equilibrium
    x1, _ = rm_plus(u, starts, w, 500, model, 1.0)
    ev = u @ (model * np.repeat(w, sizes))
    assert x1[int(np.argmax(ev))] > 0.95  # share 1 is the best response to the model
    vs_model = [x @ ev for x in (x0, x1)]
    assert vs_model[1] > vs_model[0]


def test_kingpin_reads_no_clock(monkeypatch):
    def no_clock(*a, **k):
        raise AssertionError("the rival read the clock")

    for name in ("time", "perf_counter", "monotonic", "process_time", "time_ns"):
        monkeypatch.setattr(time, name, no_clock)
    for i in range(20):
        state = random_position(180_000 + i)
        if state.finished:
            continue
        policy.choose_plan(
            observe(state, RIVAL),
            persona="furnace",
            difficulty="kingpin",
            stream=Stream(bytes(32), "c"),
        )


def test_runtime_rival_imports_no_clock_or_global_random():
    root = Path(policy.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for n in names:
                assert n.split(".")[0] not in {"time", "datetime", "random"}, (path.name, n)


def test_kingpin_before_is_the_plain_equilibrium():
    """The lab's ``kingpin-before`` (the report's "before" column) is Kingpin with no model."""
    from game.rivals.lab import tournament

    before = tournament.EXTRA_BOTS["kingpin-before"]
    assert before.model == "none" and before.model_weight == 0
    now = get_difficulty("kingpin").knobs
    assert dataclasses.replace(now, model="none", model_weight=0) == before
    assert get_persona("furnace")  # personas load alongside
