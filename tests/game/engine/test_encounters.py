"""Encounters: starting Heat per side and vault changes on given nights (RULES.md)."""

from __future__ import annotations

import pytest

from game.engine import PLAYER, RIVAL, Encounter, Plan, PlanError, legal_plans, resolve
from game.engine.errors import EngineError
from game.engine.setup import new_heist
from game.engine.state import VaultMod
from tests.support.engine import CV, MA, RS, ST, fill_deck

DECK = fill_deck([])


def heist(encounter=None, seed="enc-seed"):
    return new_heist(
        ruleset=RS, player_deck=DECK, rival_deck=DECK, server_seed=seed, encounter=encounter
    )


def loot_by_night(state):
    """Play quiet nights to the end, collecting each night's (loot, closed)."""
    seen = {}
    while not state.finished:
        seen[state.night] = (dict(state.loot), state.closed)
        state, _ = resolve(state, {PLAYER: Plan(), RIVAL: Plan()})
    return seen


def test_start_heat_per_side():
    enc = Encounter("hot-start", "Hot start", "The rival is already hot.", {RIVAL: 4})
    state = heist(enc)
    assert state.player.heat == 0 and state.rival.heat == 4
    assert state.energy(PLAYER) == 3 and state.energy(RIVAL) == 1
    enc = Encounter("both", "Both", "", {PLAYER: 6, RIVAL: 2})
    state = heist(enc)
    assert state.start_heat == {PLAYER: 6, RIVAL: 2}
    assert not any(p.boost for p in legal_plans(state, PLAYER))


def test_vault_mods_on_given_nights_only():
    base = loot_by_night(heist())
    enc = Encounter(
        "mods",
        "Mods",
        "",
        {},
        (
            VaultMod(MA, (1, 3), "fixed", 4),
            VaultMod(CV, (2,), "raise", 3),
            VaultMod(ST, (2, 6), "double"),
            VaultMod(CV, (5,), "closed"),
        ),
    )
    got = loot_by_night(heist(enc))
    for night in range(1, 7):
        loot, closed = got[night]
        plain = base[night][0]
        assert loot[MA] == (4 if night in (1, 3) else plain[MA])
        assert loot[CV] == (plain[CV] + 3 if night == 2 else 0 if night == 5 else plain[CV])
        assert loot[ST] == (plain[ST] * 2 if night in (2, 6) else plain[ST])
        assert closed == (frozenset({CV}) if night == 5 else frozenset())


def test_mods_apply_fixed_then_raise_then_double_whatever_the_order():
    enc = Encounter(
        "stack",
        "Stack",
        "",
        {},
        (
            VaultMod(MA, (1,), "double"),
            VaultMod(MA, (1,), "raise", 1),
            VaultMod(MA, (1,), "fixed", 2),
        ),
    )
    assert heist(enc).loot[MA] == 6


def test_closed_vault_refuses_crew_and_pays_nothing():
    enc = Encounter("shut", "Shut", "", {}, (VaultMod(CV, (1,), "closed"),))
    state = heist(enc)
    assert state.closed == {CV} and state.loot[CV] == 0
    card = state.player.hand[0]
    with pytest.raises(PlanError) as e:
        resolve(state, {PLAYER: Plan(((card, CV),)), RIVAL: Plan()})
    assert e.value.code == "vault_closed"
    assert all(v != CV for p in legal_plans(state, PLAYER) for _, v in p.crew)
    _, r = resolve(state, {PLAYER: Plan(((card, MA),)), RIVAL: Plan()})
    cv = next(v for v in r.vaults if v.slug == CV)
    assert (cv.closed, cv.winner, cv.loot) == (True, None, 0)
    assert r.closed == (CV,)


def test_all_vaults_closed_leaves_only_the_empty_plan():
    enc = Encounter(
        "dark", "Dark", "", {}, tuple(VaultMod(v, (1,), "closed") for v in (MA, CV, ST))
    )
    state = heist(enc)
    assert legal_plans(state, PLAYER) == (Plan(),)


def test_round_trip_and_from_dict_in_new_heist():
    enc = Encounter(
        "x",
        "X",
        "desc",
        {PLAYER: 2},
        (VaultMod(ST, (4, 5), "raise", 2), VaultMod(MA, (1,), "closed")),
    )
    data = enc.to_dict()
    assert Encounter.from_dict(data) == enc
    assert heist(data).encounter == enc
    assert data == {
        "slug": "x",
        "name": "X",
        "description": "desc",
        "start_heat": {"player": 2},
        "vault_mods": [
            {"vault": ST, "nights": [4, 5], "kind": "raise", "amount": 2},
            {"vault": MA, "nights": [1], "kind": "closed", "amount": 0},
        ],
    }


@pytest.mark.parametrize(
    "data",
    [
        {"slug": "x", "name": "X", "start_heat": {"player": 7}},
        {"slug": "x", "name": "X", "start_heat": {"dealer": 1}},
        {"slug": "x", "name": "X", "start_heat": {"player": "1"}},
        {
            "slug": "x",
            "name": "X",
            "vault_mods": [{"vault": "bank", "nights": [1], "kind": "closed"}],
        },
        {"slug": "x", "name": "X", "vault_mods": [{"vault": MA, "nights": [0], "kind": "closed"}]},
        {"slug": "x", "name": "X", "vault_mods": [{"vault": MA, "nights": [7], "kind": "closed"}]},
        {"slug": "x", "name": "X", "vault_mods": [{"vault": MA, "nights": [], "kind": "closed"}]},
        {"slug": "x", "name": "X", "vault_mods": [{"vault": MA, "nights": [1], "kind": "melt"}]},
        {"slug": "x", "name": "X", "vault_mods": [{"vault": MA, "nights": [1], "kind": "raise"}]},
        {
            "slug": "x",
            "name": "X",
            "vault_mods": [{"vault": MA, "nights": [1], "kind": "fixed", "amount": -1}],
        },
        {
            "slug": "x",
            "name": "X",
            "vault_mods": [{"vault": MA, "nights": [1], "kind": "double", "amount": 2}],
        },
        {
            "slug": "x",
            "name": "X",
            "vault_mods": [
                {"vault": MA, "nights": [1], "kind": "closed"},
                {"vault": MA, "nights": [1, 2], "kind": "fixed", "amount": 3},
            ],
        },
        {
            "slug": "x",
            "name": "X",
            "vault_mods": [
                {"vault": MA, "nights": [2], "kind": "raise", "amount": 1},
                {"vault": MA, "nights": [2], "kind": "raise", "amount": 1},
            ],
        },
        {"slug": "x", "name": "X", "surprise": True},
        {"name": "X"},
        [],
    ],
)
def test_invalid_encounters_refused(data):
    with pytest.raises(EngineError) as e:
        heist(data)
    assert e.value.code == "encounter_invalid"
    assert e.value.message
