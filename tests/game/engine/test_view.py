"""observe(): exactly what RULES.md "Hidden information" lets a side see."""

from __future__ import annotations

import json

import pytest

from game.engine import PLAYER, RIVAL, Plan, legal_plans, observe, resolve
from game.engine.errors import EngineError
from game.engine.setup import new_heist
from tests.support.engine import RS, fill_deck

SEED = "f" * 63 + "0"


def started():
    deck = fill_deck([])
    rival = tuple(reversed(deck))
    return new_heist(
        ruleset=RS, player_deck=deck, rival_deck=rival, server_seed=SEED, client_seed="mine"
    )


def test_own_hand_and_public_counts():
    state = started()
    obs = observe(state, PLAYER)
    assert obs.side == PLAYER and obs.opponent == RIVAL
    assert obs.hand == tuple((c, state.player.decklist[c]) for c in state.player.hand)
    assert obs.hand_count == {PLAYER: 3, RIVAL: 3}
    assert obs.deck_count == {PLAYER: 9, RIVAL: 9}
    assert obs.decklists == {PLAYER: state.player.decklist, RIVAL: state.rival.decklist}
    assert obs.loot == state.loot and obs.night == 1 and obs.nights == 6
    assert obs.energy == {PLAYER: 3, RIVAL: 3}
    assert obs.last_winners == {} and obs.history == ()
    assert obs.ruleset_version == RS.version == "2026.12"
    rival_obs = observe(state, RIVAL)
    assert rival_obs.hand == tuple((c, state.rival.decklist[c]) for c in state.rival.hand)


def test_after_a_night_history_discard_and_heat_are_public():
    state = started()
    p_plan = legal_plans(state, PLAYER)[-1]
    r_plan = legal_plans(state, RIVAL)[5]
    state, result = resolve(state, {PLAYER: p_plan, RIVAL: r_plan})
    obs = observe(state, RIVAL)
    assert obs.history == (result,)
    assert obs.discard[PLAYER] == tuple(state.player.decklist[c] for c in p_plan.cards)
    assert obs.heat == {PLAYER: state.player.heat, RIVAL: state.rival.heat}
    assert obs.start_heat == obs.heat
    assert obs.score == {PLAYER: state.player.score, RIVAL: state.rival.score}
    assert obs.last_winners == result.winners()


def test_observation_legal_plans_match_the_state():
    state = started()
    for _ in range(4):
        for side in (PLAYER, RIVAL):
            assert observe(state, side).legal_plans() == legal_plans(state, side)
        state, _ = resolve(
            state, {PLAYER: legal_plans(state, PLAYER)[-1], RIVAL: legal_plans(state, RIVAL)[-1]}
        )


def test_nothing_secret_in_the_observation():
    state = started()
    text = json.dumps(observe(state, PLAYER).to_dict())
    assert state.key.hex() not in text
    assert SEED not in text and "mine" not in text
    assert "deck_order" not in text
    obs = observe(state, PLAYER)
    for name in ("key", "deck", "server_seed", "client_seed"):
        assert not hasattr(obs, name)
    assert state.key.hex() not in repr(state) and repr(state.key) not in repr(state)


def test_to_dict_is_json_and_finished_view():
    state = started()
    while not state.finished:
        state, _ = resolve(state, {PLAYER: Plan(), RIVAL: Plan()})
    data = json.loads(json.dumps(observe(state, PLAYER).to_dict()))
    assert data["finished"] is True and data["loot"] == {} and len(data["history"]) == 6
    assert observe(state, PLAYER).legal_plans() == ()


def test_unknown_side_refused():
    with pytest.raises(EngineError) as e:
        observe(started(), "dealer")
    assert e.value.code == "unknown_side"


def test_states_and_observations_pickle():
    # Pickled here only to prove it round-trips (e.g. for a cache); no untrusted data.
    import pickle

    from game.engine import get_ruleset, load_ruleset

    state = started()
    state, _ = resolve(state, {PLAYER: legal_plans(state, PLAYER)[-1], RIVAL: Plan()})
    again = pickle.loads(pickle.dumps(state))  # noqa: S301
    assert again == state and again.ruleset is get_ruleset()
    obs = observe(state, RIVAL)
    assert pickle.loads(pickle.dumps(obs)) == obs  # noqa: S301
    custom = load_ruleset({**RS.to_dict(), "version": "custom", "nights": 3})
    assert pickle.loads(pickle.dumps(custom)) == custom  # noqa: S301
