"""The heist debrief: known answers, its own measure, and the player's observation only."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random

import numpy as np
import pytest

from game.engine import PLAYER, RIVAL, HeistState, Plan, Stream, heist_key, observe, resolve
from game.engine.rules import get_ruleset
from game.engine.state import SideState
from game.rivals import debrief, policy
from game.rivals.lab.tournament import bot_move, seat_personas
from game.rivals.personas import list_personas
from tests.support.rivals import random_position

RS = get_ruleset("2026.12")
MA, CV, ST = "memory-archive", "crown-vault", "signal-tower"


def filler(front, rs=RS):
    deck = list(front)
    for slug in rs.crew_in_set("base"):
        while len(deck) < rs.deck_size and deck.count(slug) < rs.max_copies:
            deck.append(slug)
    return tuple(deck)


def board(
    *,
    mine,
    theirs,
    loot,
    night=2,
    heat=(0, 0),
    score=(0, 0),
):
    """A position where the player holds ``mine`` (the rest of its deck to draw) and the
    rival's hand is ``theirs`` with every other card of its deck in its discard pile, so the
    player knows exactly what the rival holds."""
    p_deck = filler(mine)
    r_deck = filler(theirs)
    n_p, n_r = len(mine), len(theirs)
    player = SideState(p_deck, tuple(range(n_p, 12)), tuple(range(n_p)), (), heat[0], score[0], 1)
    rival = SideState(r_deck, (), tuple(range(n_r)), tuple(range(n_r, 12)), heat[1], score[1], 1)
    return HeistState(
        ruleset=RS,
        key=heist_key("debrief-test"),
        night=night,
        sides=(player, rival),
        loot=dict(loot),
        closed=frozenset(),
        last_winners={},
        encounter=None,
        history=(),
    )


def plan_of(state, pairs, boost=False):
    """A Plan of the player's cards by (crew slug, vault)."""
    free = list(state.player.hand)
    crew = []
    for slug, vault in pairs:
        card = next(c for c in free if state.player.decklist[c] == slug)
        free.remove(card)
        crew.append((card, vault))
    return Plan(tuple(crew), boost)


def test_an_empty_rival_side_best_is_to_take_the_two_richest_vaults_quietly():
    state = board(
        mine=("mirror-courier", "mirror-courier", "signal-thief"),
        theirs=(),
        loot={MA: 1, CV: 2, ST: 3},
    )
    review = debrief.review_night(observe(state, PLAYER), Plan())
    assert review.best.crew == (("mirror-courier", CV), ("mirror-courier", ST))
    assert review.best.boost is False
    assert review.best.expected == pytest.approx(5.0, abs=0.01)
    # Sending nobody when two free vaults could be taken.
    assert review.yours.crew == () and review.loot_lost == pytest.approx(5.0, abs=0.01)
    assert review.label == "blunder"


def test_a_vault_only_your_crew_can_take_is_where_to_send_it():
    # The rival is at Heat 6: Energy 1, no Boost, and it holds only Mirror Couriers (2 Power).
    # Only the Signal Thief (5 Power) can take the Crown Vault's 4 Loot for certain.
    state = board(
        mine=("signal-thief", "capacitor", "capacitor"),
        theirs=("mirror-courier", "mirror-courier", "coolant-carrier"),
        loot={MA: 1, CV: 4, ST: 1},
        heat=(0, 6),
    )
    obs = observe(state, PLAYER)
    review = debrief.review_night(obs, plan_of(state, [("capacitor", CV), ("capacitor", ST)]))
    assert review.best.crew == (("signal-thief", CV),) and review.best.boost is False
    # It takes the 4 for certain; the rival can take at most one other vault's 1.
    assert review.best.expected >= 3.0 - 1e-6
    assert review.loot_lost > 0


def test_a_paper_decoy_against_a_rival_that_must_boost():
    # The last night: you lead 10-7, every vault holds 2. The rival wins only by taking two
    # vaults and leaving you none, which its crew (Coolant Carriers, a Borrowed Face) can do
    # only Boosted. Your Heat 6 locks your Boost; Energy 1 sends one crew. A Mirror Courier
    # (2) loses to a Boosted Coolant Carrier (3); the Paper Decoy (4 against a Boost) takes
    # its vault whatever the rival does.
    state = board(
        mine=("paper-decoy", "mirror-courier", "coolant-carrier"),
        theirs=("coolant-carrier", "coolant-carrier", "borrowed-face"),
        loot={MA: 2, CV: 2, ST: 2},
        night=6,
        heat=(6, 0),
        score=(10, 7),
    )
    review = debrief.review_night(observe(state, PLAYER), plan_of(state, [("mirror-courier", CV)]))
    assert review.measure == "win"
    assert [c for c, _ in review.best.crew] == ["paper-decoy"]
    assert review.best.expected == pytest.approx(1.0)
    assert review.yours.expected < 1.0 and review.loot_lost > 0


def test_sending_nobody_when_a_free_vault_could_be_taken_is_at_least_a_mistake():
    """Over random positions whose rival can send nobody (an empty hand, or Heat 6 with only
    crew costing 2 or more), holding two cheap crew: the empty plan is a mistake or worse."""
    rnd = random.Random(25)
    cheap = [s for s, c in RS.crew.items() if c.cost == 1 and RS.crew_in_set("base").count(s)]
    dear = [s for s, c in RS.crew.items() if c.cost >= 2 and RS.crew_in_set("base").count(s)]
    for i in range(40):
        mine = (*tuple(rnd.sample(cheap, 2)), rnd.choice(dear))
        theirs = () if i % 2 else tuple(rnd.sample(dear, 3))
        loot = {v: rnd.randint(1, 4) for v in (MA, CV, ST)}
        state = board(
            mine=mine,
            theirs=theirs,
            loot=loot,
            night=rnd.randint(1, 4),
            heat=(rnd.randint(0, 3), 6 if theirs else rnd.randint(0, 6)),
        )
        review = debrief.review_night(observe(state, PLAYER), Plan())
        assert review.label in ("mistake", "blunder"), (i, review)


def test_labels_and_accuracy_follow_the_loot_lost():
    assert [debrief.label_for(x) for x in (0, 0.2, 0.5, 1.0, 1.5, 2.9, 3.0, 9)] == [
        "best",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]
    assert debrief.night_accuracy(0) == 100
    assert debrief.night_accuracy(3) == pytest.approx(100 / math.e)
    assert debrief.night_accuracy(0.5) > debrief.night_accuracy(1.5) > debrief.night_accuracy(3)


def random_plan(state, rnd):
    return rnd.choice(tuple(observe(state, PLAYER).legal_plans()))


def test_no_plan_is_better_than_best_and_loot_lost_is_never_negative():
    rnd = random.Random(7)
    for i in range(120):
        state = random_position(70_000 + i)
        obs = observe(state, PLAYER)
        scores = debrief.score_plans(obs)
        plan = random_plan(state, rnd)
        review = debrief.review_night(obs, plan)
        assert review.loot_lost >= 0
        assert review.best.expected == pytest.approx(float(scores.expected.max()))
        assert all(e <= review.best.expected + 1e-12 for e in scores.expected)
        assert review.yours.expected <= review.best.expected
        # The best plan, played, is a best plan with nothing lost.
        best = debrief.review_night(obs, best_plan(state, review))
        assert best.loot_lost == 0 and best.label == "best"
        # Each column's chance sums to one: the expectation is over a distribution.
        assert scores.column_weights.sum() == pytest.approx(1.0)


def best_plan(state, review):
    return plan_of(state, list(review.best.crew), review.best.boost)


def resample_hidden_from_the_player(state, rnd):
    """A different state the player cannot tell apart: the rival's hand and draw order, the
    player's own draw order and the heist key (so every later shuffle and all future loot)."""
    p, r = state.sides
    cards = list(r.hand + r.deck)
    rnd.shuffle(cards)
    k = len(r.hand)
    new_r = dataclasses.replace(r, hand=tuple(cards[:k]), deck=tuple(cards[k:]))
    deck_p = list(p.deck)
    rnd.shuffle(deck_p)
    new_p = dataclasses.replace(p, deck=tuple(deck_p))
    key = bytes(rnd.randrange(256) for _ in range(32))
    return dataclasses.replace(state, key=key, sides=(new_p, new_r))


def test_observation_only_resampling_never_changes_a_nights_best_300_positions():
    changed = 0
    for i in range(300):
        state = random_position(80_000 + i)
        rnd = random.Random(90_000 + i)
        other = resample_hidden_from_the_player(state, rnd)
        assert observe(other, PLAYER) == observe(state, PLAYER)
        changed += other.rival.hand != state.rival.hand
        plan = random_plan(state, rnd)
        a = debrief.review_night(observe(state, PLAYER), plan)
        b = debrief.review_night(observe(other, PLAYER), plan)
        assert a == b, i
    # The resampling really changed what the player cannot see.
    assert changed > 150


def play_heist(seed, player_bot="loot-chaser", rival_bot="kingpin"):
    ps = {p.slug: p for p in list_personas()}
    deck_p, deck_r = seat_personas(seed)
    from game.engine import new_heist

    state = new_heist(
        ruleset=RS,
        player_deck=ps[deck_p].deck,
        rival_deck=ps[deck_r].deck,
        server_seed=f"debrief-heist-{seed}",
    )
    key = hashlib.sha256(f"debrief/{seed}".encode()).digest()
    seen = []
    while not state.finished:
        seen.append(observe(state, PLAYER))
        plans = {
            PLAYER: bot_move(player_bot, observe(state, PLAYER), deck_p, Stream(key, "p")),
            RIVAL: bot_move(rival_bot, observe(state, RIVAL), deck_r, Stream(key, "r")),
        }
        state, _ = resolve(state, plans)
    seen.append(observe(state, PLAYER))
    return state, seen


def test_a_whole_heist_debrief():
    final, seen = play_heist(3)
    d = debrief.debrief(seen)
    assert [r.night for r in d.nights] == list(range(1, RS.nights + 1))
    assert [r.measure for r in d.nights] == ["loot"] * 4 + ["win"] * 2
    assert 0 <= d.accuracy <= 100
    assert d.loot_lost == pytest.approx(sum(r.loot_lost for r in d.nights))
    counted = [debrief.night_accuracy(r.loot_lost) for r in d.nights if r.choices > 1]
    assert d.accuracy == pytest.approx(np.mean(counted))
    # The player's plan of each night is the one the reveal shows.
    for r, res in zip(d.nights, final.history, strict=True):
        assert r.yours.crew == tuple(sorted((c.crew, c.vault) for c in res.player.crew))
    # The turning point moved the chance to win the most, and says so in a sentence.
    tp = d.turning_point
    swings = [
        abs(debrief.chance_to_win(b) - debrief.chance_to_win(a))
        for a, b in itertools.pairwise(seen)
    ]
    assert abs(tp.after - tp.before) == pytest.approx(max(swings))
    assert tp.text.startswith(f"Night {tp.night}: you sent")
    assert tp.text.endswith(f"from {debrief.percent(tp.before)} to {debrief.percent(tp.after)}.")
    assert "\n" not in tp.text
    # The same heist always gets the same debrief.
    assert debrief.debrief(seen) == d
    data = d.to_dict()
    assert set(data) == {"accuracy", "loot_lost", "luck", "turning_point", "nights"}
    assert data["nights"][0]["label"] in ("best", "good", "inaccuracy", "mistake", "blunder")


def test_work_kept_between_nights_changes_no_answer():
    """The debrief keeps the player model's work from night to night (playermodel.HeistFits)
    and the solver's outcomes for its own measure: each night's review is the one worked out
    alone, to the last bit."""
    for seed in (3, 8, 11):
        final, seen = play_heist(seed)
        d = debrief.debrief(seen)
        for review, obs, res in zip(d.nights, seen[:-1], final.history, strict=True):
            alone = debrief.review_night(obs, Plan(*res.plan(PLAYER)))
            assert dataclasses.replace(review, luck=0.0) == alone


def test_luck_is_what_the_revealed_plan_gave_against_the_expectation():
    _final, seen = play_heist(5)
    d = debrief.debrief(seen)
    for r, before, after in zip(d.nights, seen[:-1], seen[1:], strict=True):
        if r.measure == "loot":
            margin = (after.score[PLAYER] - after.score[RIVAL]) - (
                before.score[PLAYER] - before.score[RIVAL]
            )
            from game.rivals import value

            worth = value.fitted_heat_worth(RS, RS.nights - r.night)
            actual = margin + worth[after.heat[PLAYER]] - worth[after.heat[RIVAL]]
            assert r.luck == pytest.approx(actual - r.yours.expected, abs=1e-4)
    assert d.luck == pytest.approx(sum(r.luck for r in d.nights))


def test_kingpin_and_the_debrief_share_one_solver(monkeypatch):
    calls = []
    real = policy.solve_game

    def spy(obs, *args, **kwargs):
        calls.append(obs.side)
        return real(obs, *args, **kwargs)

    monkeypatch.setattr(policy, "solve_game", spy)
    state = random_position(123)
    policy.choose_plan(
        observe(state, RIVAL),
        persona="furnace",
        difficulty="kingpin",
        stream=Stream(b"k" * 32, "r"),
    )
    debrief.review_night(observe(state, PLAYER), Plan())
    assert calls == [RIVAL, PLAYER]
    # The debrief scores against Kingpin's own knobs.
    from game.rivals.personas import get_difficulty

    assert get_difficulty("kingpin").knobs == debrief.KNOBS


def test_the_debrief_refuses_another_sides_observations():
    _, seen = play_heist(1)
    with pytest.raises(ValueError):
        debrief.debrief([observe_as_rival(o) for o in seen])
    with pytest.raises(ValueError):
        debrief.debrief(seen[:-1])


def observe_as_rival(obs):
    return dataclasses.replace(obs, side=RIVAL)
