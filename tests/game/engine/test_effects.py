"""Known answers for every base crew effect (condition true and false) and every ruling."""

from __future__ import annotations

import pytest

from game.engine import PLAYER, RIVAL, Plan, PlanError, legal_plans, resolve, validate_plan
from game.engine.rng import Stream
from tests.support.engine import CV, MA, ST, duel, position, powers


def bonus_reasons(result, side, i=0):
    return [p.reason for p in result.side(side).crew[i].breakdown if p.kind == "bonus"]


# --- plain power and Boost -----------------------------------------------------------------


def test_mirror_courier_has_no_condition():
    _, r = duel([("mirror-courier", CV)])
    assert powers(r, PLAYER) == [2]
    _, r = duel([("mirror-courier", CV)], player_boost=True)
    assert powers(r, PLAYER) == [4]
    parts = [(p.kind, p.amount) for p in r.player.crew[0].breakdown]
    assert parts == [("base", 2), ("boost", 2)]


def test_paper_decoy_needs_rival_boost():
    _, r = duel([("paper-decoy", CV)], [("mirror-courier", MA)], rival_boost=True)
    assert powers(r, PLAYER) == [4]
    assert bonus_reasons(r, PLAYER) == ["paper-decoy: the rival Boosted"]
    _, r = duel([("paper-decoy", CV)], [("mirror-courier", MA)])
    assert powers(r, PLAYER) == [1]
    # Its own side's Boost is not the rival's: only the +2 of Boost.
    _, r = duel([("paper-decoy", CV)], player_boost=True)
    assert powers(r, PLAYER) == [3]


def test_ghost_locksmith_needs_quiet():
    _, r = duel([("ghost-locksmith", CV)])
    assert powers(r, PLAYER) == [5]
    _, r = duel([("ghost-locksmith", CV)], player_boost=True)
    assert powers(r, PLAYER) == [5]  # 3 + Boost 2, no quiet bonus
    assert bonus_reasons(r, PLAYER) == []


def test_spark_needs_own_boost():
    _, r = duel([("spark", CV)], player_boost=True)
    assert powers(r, PLAYER) == [5]  # 1 + Boost 2 + Spark 2
    _, r = duel([("spark", CV)])
    assert powers(r, PLAYER) == [1]
    _, r = duel([("spark", CV)], [("mirror-courier", CV)], rival_boost=True)
    assert powers(r, PLAYER) == [1]


def test_signal_thief_reads_rival_start_heat():
    _, r = duel([("signal-thief", CV)], rival_heat=4)
    assert powers(r, PLAYER) == [7]
    _, r = duel([("signal-thief", CV)], rival_heat=6)
    assert powers(r, PLAYER) == [7]
    _, r = duel([("signal-thief", CV)], rival_heat=3)
    assert powers(r, PLAYER) == [5]
    # Own Heat does not count (Heat 1 still leaves 3 Energy for its cost).
    _, r = duel([("signal-thief", CV)], player_heat=1, rival_heat=0)
    assert powers(r, PLAYER) == [5]


def test_capacitor_reads_own_start_heat():
    _, r = duel([("capacitor", CV)], player_heat=4)
    assert powers(r, PLAYER) == [4]
    _, r = duel([("capacitor", CV)], player_heat=3)
    assert powers(r, PLAYER) == [1]
    _, r = duel([("capacitor", CV)], rival_heat=5)
    assert powers(r, PLAYER) == [1]


def test_conductor_needs_two_crew_split():
    _, r = duel([("conductor", CV), ("mirror-courier", MA)])
    assert powers(r, PLAYER) == [5, 2]
    _, r = duel([("conductor", CV), ("mirror-courier", CV)])
    assert powers(r, PLAYER) == [2, 2]
    _, r = duel([("conductor", CV)])
    assert powers(r, PLAYER) == [2]
    # The bonus adds to Boost's +2.
    _, r = duel([("conductor", CV), ("mirror-courier", MA)], player_boost=True)
    assert powers(r, PLAYER) == [7, 4]


def test_two_conductors_cost_too_much():
    state = position(player_hand=["conductor", "conductor"])
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((0, CV), (1, ST))))
    assert e.value.code == "over_energy"


def test_watcher_needs_both_rival_crew_here():
    _, r = duel([("watcher", CV)], [("mirror-courier", CV), ("paper-decoy", CV)])
    assert powers(r, PLAYER) == [7]
    _, r = duel([("watcher", CV)], [("mirror-courier", CV), ("paper-decoy", MA)])
    assert powers(r, PLAYER) == [2]
    _, r = duel([("watcher", CV)], [("mirror-courier", CV)])
    assert powers(r, PLAYER) == [2]
    _, r = duel([("watcher", CV)], [("mirror-courier", MA), ("paper-decoy", MA)])
    assert powers(r, PLAYER) == [2]
    # Two of the watcher's own crew in its vault do not count.
    _, r = duel([("watcher", CV), ("mirror-courier", CV)])
    assert powers(r, PLAYER) == [2, 2]


def test_rooftop_runner_needs_rival_win_last_night():
    _, r = duel([("rooftop-runner", CV)], last_winners={CV: RIVAL, MA: None, ST: None}, night=2)
    assert powers(r, PLAYER) == [5]
    _, r = duel([("rooftop-runner", CV)], last_winners={CV: PLAYER}, night=2)
    assert powers(r, PLAYER) == [3]
    _, r = duel([("rooftop-runner", CV)], last_winners={MA: RIVAL, CV: None}, night=2)
    assert powers(r, PLAYER) == [3]
    # For the rival, "the rival" is the player.
    _, r = duel([], [("rooftop-runner", CV)], last_winners={CV: PLAYER}, night=2)
    assert powers(r, RIVAL) == [5]


def test_ruling_rooftop_runner_never_on_night_one():
    _, r = duel([("rooftop-runner", CV)], night=1)
    assert powers(r, PLAYER) == [3]


def test_ruling_rooftop_runner_not_after_a_tie():
    # Night 1: both send a Mirror Courier to Crown Vault -> 2 vs 2, a tie, won by nobody.
    state = position(
        player_hand=["mirror-courier", "rooftop-runner"], rival_hand=["mirror-courier"]
    )
    state, r1 = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan(((0, CV),))})
    assert r1.vaults[1].winner is None
    assert state.last_winners[CV] is None
    state, r2 = resolve(state, {PLAYER: Plan(((1, CV),)), RIVAL: Plan()})
    assert powers(r2, PLAYER) == [3]


def test_rooftop_runner_after_a_real_rival_win():
    state = position(
        player_hand=["mirror-courier", "rooftop-runner"], rival_hand=["mirror-courier"]
    )
    state, _ = resolve(state, {PLAYER: Plan(), RIVAL: Plan(((0, CV),))})
    assert state.last_winners == {MA: None, CV: RIVAL, ST: None}
    _, r2 = resolve(state, {PLAYER: Plan(((1, CV),)), RIVAL: Plan()})
    assert powers(r2, PLAYER) == [5]
    assert bonus_reasons(r2, PLAYER) == ["rooftop-runner: the rival won this vault last night"]


# --- Borrowed Face ruling ---------------------------------------------------------------------


def test_ruling_two_borrowed_faces_in_one_vault_each_get_the_bonus():
    _, r = duel([("borrowed-face", CV), ("borrowed-face", CV)])
    assert powers(r, PLAYER) == [3, 3]
    assert r.vaults[1].player_power == 6


def test_ruling_borrowed_face_with_another_own_crew():
    _, r = duel([("borrowed-face", CV), ("mirror-courier", CV)])
    assert powers(r, PLAYER) == [3, 2]


def test_ruling_borrowed_face_with_only_a_rival_crew_gets_nothing():
    _, r = duel([("borrowed-face", CV)], [("mirror-courier", CV), ("paper-decoy", CV)])
    assert powers(r, PLAYER) == [1]


def test_borrowed_face_with_own_crew_elsewhere_gets_nothing():
    _, r = duel([("borrowed-face", CV), ("mirror-courier", MA)])
    assert powers(r, PLAYER) == [1, 2]


# --- Heat ---------------------------------------------------------------------------------


def heat_end(result, side=PLAYER):
    return result.side(side).heat_end


def test_boost_adds_heat_and_quiet_cools():
    _, r = duel([("mirror-courier", CV)], player_boost=True, player_heat=1)
    assert heat_end(r) == 3
    _, r = duel([("mirror-courier", CV)], player_heat=3)
    assert heat_end(r) == 2
    _, r = duel([], player_heat=2)  # sending nobody is a quiet night
    assert heat_end(r) == 1


def test_coolant_carrier_cools_one():
    _, r = duel([("coolant-carrier", CV)], player_heat=3)
    assert heat_end(r) == 1  # 3 - 1 quiet - 1 coolant
    assert [(p.kind, p.amount) for p in r.player.heat_parts] == [("quiet", -1), ("effect", -1)]
    _, r = duel([("coolant-carrier", CV)], player_boost=True, player_heat=1)
    assert heat_end(r) == 2  # 1 + 2 - 1


def test_emergency_vent_below_and_at_four():
    _, r = duel([("emergency-vent", CV)], player_heat=3)
    assert heat_end(r) == 2  # no vent below 4
    _, r = duel([("emergency-vent", CV)], player_heat=4)
    assert heat_end(r) == 1  # 4 - 1 - 2
    _, r = duel([("emergency-vent", CV)], player_heat=4, player_boost=True)
    assert heat_end(r) == 4  # 4 + 2 - 2
    # The rival's Heat does not trigger it.
    _, r = duel([("emergency-vent", CV)], player_heat=2, rival_heat=5)
    assert heat_end(r) == 1


def test_ruling_heat_clamped_once_at_the_top():
    # Per-change clamping would give min(5+2, 6) - 1 = 5; the ruling sums first: 5+2-1 = 6.
    _, r = duel([("coolant-carrier", CV)], player_heat=5, player_boost=True)
    assert heat_end(r) == 6
    # And with a Vent: 5 + 2 - 2 = 5 (per-change would be 6 - 2 = 4).
    _, r = duel([("emergency-vent", CV)], player_heat=5, player_boost=True)
    assert heat_end(r) == 5


def test_ruling_heat_clamped_once_at_the_bottom():
    _, r = duel([("coolant-carrier", CV)], player_heat=0)
    assert heat_end(r) == 0  # 0 - 1 - 1 = -2 -> 0, never negative
    _, r = duel([], player_heat=0)
    assert heat_end(r) == 0


def test_heat_never_above_six():
    _, r = duel([("mirror-courier", CV)], player_heat=5, player_boost=True)
    assert heat_end(r) == 6


def test_boost_locked_at_six_and_quiet_cools_from_six():
    state = position(player_hand=["mirror-courier"], player_heat=6)
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((0, CV),), True))
    assert e.value.code == "boost_locked"
    assert not any(p.boost for p in legal_plans(state, PLAYER))
    _, r = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    assert heat_end(r) == 5
    # Heat 5 may still Boost.
    validate_plan(
        position(player_hand=["mirror-courier"], player_heat=5), PLAYER, Plan(((0, CV),), True)
    )


def test_energy_table():
    expected = {0: 3, 1: 3, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1}
    for heat, energy in expected.items():
        state = position(player_heat=heat)
        assert state.energy(PLAYER) == energy
    # Next night's Energy comes from the end Heat.
    state, _ = duel([("mirror-courier", CV)], player_boost=True, player_heat=1)
    assert state.player.heat == 3 and state.energy(PLAYER) == 2


# --- loot -------------------------------------------------------------------------------------


def test_higher_power_takes_the_loot_and_ties_pay_nobody():
    _, r = duel(
        [("mirror-courier", CV), ("paper-decoy", MA)],
        [("mirror-courier", CV), ("mirror-courier", ST)],
    )
    by = {v.slug: v for v in r.vaults}
    assert (by[CV].player_power, by[CV].rival_power, by[CV].winner) == (2, 2, None)
    assert (by[MA].player_power, by[MA].rival_power, by[MA].winner) == (1, 0, PLAYER)
    assert (by[ST].player_power, by[ST].rival_power, by[ST].winner) == (0, 2, RIVAL)
    assert r.score == {PLAYER: 1, RIVAL: 3}


def test_zero_against_zero_pays_nobody():
    state, r = duel([], [])
    assert all(v.winner is None for v in r.vaults)
    assert r.score == {PLAYER: 0, RIVAL: 0}
    assert state.last_winners == {MA: None, CV: None, ST: None}


# --- plan errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "kwargs", "code"),
    [
        (Plan(((0, "bank"),)), {}, "unknown_vault"),
        (Plan(((0, CV),)), {"closed": [CV]}, "vault_closed"),
        (Plan(((7, CV),)), {}, "card_not_in_hand"),
        (Plan(((0, CV), (0, MA))), {}, "duplicate_card"),
        (Plan(((0, CV), (1, MA), (2, ST))), {}, "too_many_crew"),
        (Plan(((0, CV), (1, MA))), {"player_heat": 4}, "over_energy"),
        (Plan((), True), {}, "boost_without_crew"),
        (Plan(((0, CV),), True), {"player_heat": 6}, "boost_locked"),
    ],
)
def test_every_plan_error_code(plan, kwargs, code):
    state = position(player_hand=["mirror-courier", "paper-decoy", "spark"], **kwargs)
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, plan)
    assert e.value.code == code
    assert e.value.message
    with pytest.raises(PlanError):
        resolve(state, {PLAYER: plan, RIVAL: Plan()})


def test_plan_error_order_is_stable():
    state = position(player_hand=["mirror-courier"], closed=[CV])
    # Unknown vault is reported before a closed vault and a missing card.
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((5, CV), (0, "bank"))))
    assert e.value.code == "unknown_vault"
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((5, CV),)))
    assert e.value.code == "vault_closed"


def test_over_energy_single_card():
    state = position(player_hand=["signal-thief"], player_heat=2)
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((0, CV),)))
    assert e.value.code == "over_energy"


def test_malformed_plans_are_refused():
    with pytest.raises(PlanError) as e:
        Plan(((0, CV),), "yes")
    assert e.value.code == "invalid_plan"
    with pytest.raises(PlanError) as e:
        Plan.from_dict({"crew": [{"card": 0}], "boost": False})
    assert e.value.code == "invalid_plan"
    state = position()
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan((("0", CV),)))
    assert e.value.code == "card_not_in_hand"
    with pytest.raises(PlanError) as e:
        validate_plan(state, PLAYER, Plan(((True, CV),)))
    assert e.value.code == "card_not_in_hand"


def test_plan_is_normalised_and_round_trips():
    a = Plan(((2, ST), (0, CV)))
    b = Plan(((0, CV), (2, ST)))
    assert a == b and a.crew == ((0, CV), (2, ST))
    assert Plan.from_dict(a.to_dict()) == a
    assert a.to_dict() == {
        "crew": [{"card": 0, "vault": CV}, {"card": 2, "vault": ST}],
        "boost": False,
    }


# --- cleanup ----------------------------------------------------------------------------------


def test_sent_crew_are_discarded_and_hand_refilled():
    state = position(player_hand=["mirror-courier", "paper-decoy", "spark"])
    deck_before = state.player.deck
    new, _ = resolve(state, {PLAYER: Plan(((0, CV), (2, MA))), RIVAL: Plan()})
    assert new.player.discard == (0, 2)
    assert new.player.hand == (1, *deck_before[:2])
    assert new.player.deck == deck_before[2:]


def test_reshuffle_when_the_deck_is_empty():
    from dataclasses import replace

    state = position(player_hand=["mirror-courier", "paper-decoy", "spark"])
    p = state.player
    # Empty deck, 9 cards in the discard pile in a known order.
    p = replace(p, deck=(), discard=(11, 4, 7, 3, 9, 10, 5, 6, 8))
    state = replace(state, sides=(p, state.rival))
    new, _ = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    pile = (11, 4, 7, 3, 9, 10, 5, 6, 8, 0)  # the sent card joins the discard first
    shuffled = Stream(state.key, "shuffle/player/1").shuffle(pile)
    assert new.player.shuffles == 2
    assert new.player.hand == (1, 2, shuffled[0])
    assert new.player.deck == shuffled[1:]
    assert new.player.discard == ()
    ids = sorted(new.player.hand + new.player.deck + new.player.discard)
    assert ids == list(range(12))


def test_no_draw_after_the_last_night():
    state = position(player_hand=["mirror-courier", "paper-decoy", "spark"], night=6)
    new, _ = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    assert new.finished and new.night == 7
    assert new.player.hand == (1, 2) and new.loot == {}
    assert legal_plans(new, PLAYER) == ()
