"""Hypothesis properties over random heists with random legal decks and random legal plans."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import combinations, product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine import (
    PLAYER,
    RIVAL,
    SIDES,
    Encounter,
    EngineError,
    Plan,
    PlanError,
    legal_plans,
    observe,
    other,
    outcome,
    resolve,
    validate_plan,
)
from game.engine.setup import new_heist
from game.engine.state import VaultMod
from tests.support.engine import RS

POOL = [slug for slug in RS.crew for _ in range(RS.max_copies)]
VAULTS = RS.vault_slugs

decks = st.permutations(POOL).map(lambda p: list(p[: RS.deck_size]))


@st.composite
def encounters(draw):
    if draw(st.booleans()):
        return None
    heat = {}
    for side in SIDES:
        if draw(st.booleans()):
            heat[side] = draw(st.integers(RS.heat_min, RS.heat_max))
    mods = []
    for vault in VAULTS:  # at most one modifier per vault keeps every draw valid
        kind = draw(st.sampled_from([None, "fixed", "raise", "double", "closed"]))
        if kind is None:
            continue
        nights = draw(st.sets(st.integers(1, RS.nights), min_size=1, max_size=3))
        amount = {"fixed": draw(st.integers(0, 6)), "raise": draw(st.integers(1, 3))}.get(kind, 0)
        mods.append(VaultMod(vault, tuple(sorted(nights)), kind, amount))
    return Encounter("random", "Random", "", heat, tuple(mods))


heists = st.builds(
    lambda pd, rd, seed, client, enc: new_heist(
        ruleset=RS,
        player_deck=pd,
        rival_deck=rd,
        server_seed=seed,
        client_seed=client,
        encounter=enc,
    ),
    decks,
    decks,
    st.text(min_size=0, max_size=24),
    st.text(max_size=8),
    encounters(),
)

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_plans(state, side):
    """Every plan shape over the hand: 0..3 cards (duplicates too), any vault, Boost or not."""
    hand = state.side(side).hand
    out = [Plan((), False), Plan((), True)]
    for k in range(1, len(hand) + 1):
        for cards in combinations(hand, k):
            for vaults in product(VAULTS, repeat=k):
                for boost in (False, True):
                    out.append(Plan(tuple(zip(cards, vaults, strict=True)), boost))
    if hand:
        out.append(Plan(((hand[0], VAULTS[0]), (hand[0], VAULTS[1]))))  # the same card twice
    return out


def check_invariants(state):
    for ss in state.sides:
        assert RS.heat_min <= ss.heat <= RS.heat_max
        assert len(ss.hand) <= RS.hand_size
        assert sorted(ss.hand + ss.deck + ss.discard) == list(range(RS.deck_size))
    won = dict.fromkeys(SIDES, 0)
    for result in state.history:
        for v in result.vaults:
            if v.winner is not None:
                won[v.winner] += v.loot
        assert result.score == won
    assert state.score == won


@PROPS
@given(heists, st.data())
def test_random_heists_keep_every_invariant(state, data):
    check_invariants(state)
    while not state.finished:
        plans = {}
        for side in SIDES:
            options = legal_plans(state, side)
            assert options and len(set(options)) == len(options)
            plans[side] = options[data.draw(st.integers(0, len(options) - 1), label=side)]
        before = state
        state, result = resolve(state, plans)
        check_invariants(state)
        assert result.night == before.night and state.night == before.night + 1
        for side in SIDES:
            sr = result.side(side)
            assert sr.heat_start == before.side(side).heat
            assert sr.heat_end == state.side(side).heat
            for c in sr.crew:
                assert c.power == sum(p.amount for p in c.breakdown)
        if not state.finished:
            for side in SIDES:
                assert len(state.side(side).hand) == RS.hand_size
    assert state.night == RS.nights + 1 and len(state.history) == RS.nights
    assert outcome(state) in (PLAYER, RIVAL, None)


@PROPS
@given(heists, st.data())
def test_legal_plans_are_exactly_the_valid_plans(state, data):
    nights = data.draw(st.integers(0, RS.nights - 1), label="nights played first")
    for _ in range(nights):
        state, _ = resolve(
            state, {s: legal_plans(state, s)[-1 if s == PLAYER else 0] for s in SIDES}
        )
    for side in SIDES:
        legal = set(legal_plans(state, side))
        for plan in all_plans(state, side):
            try:
                validate_plan(state, side, plan)
                valid = True
            except PlanError:
                valid = False
            assert valid == (plan in legal), plan
        # Mutations of a legal plan: a card not in hand, a vault that does not exist.
        plan = sorted(legal, key=lambda p: (len(p.crew), p.boost))[-1]
        missing = next(c for c in range(RS.deck_size) if c not in state.side(side).hand)
        open_vault = next((v for v in VAULTS if v not in state.closed), None)
        if open_vault is None:
            continue
        for bad, code in (
            (Plan(((missing, open_vault), *plan.crew[1:]), plan.boost), "card_not_in_hand"),
            (Plan(tuple((c, "vault-of-nowhere") for c, _ in plan.crew) or ((missing, "x"),)),
             "unknown_vault"),
        ):  # fmt: skip
            try:
                validate_plan(state, side, bad)
                raise AssertionError(f"{bad} accepted")
            except PlanError as e:
                assert e.code == code


def walk(value):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


@PROPS
@given(heists, st.data())
def test_observations_never_leak(state, data):
    seed_like = [state.key.hex()]
    while True:
        for side in SIDES:
            opp = other(side)
            obs = observe(state, side)
            blob = obs.to_dict()
            text = json.dumps(blob)
            assert all(s not in text for s in seed_like)
            hidden = [list(state.side(s).deck) for s in SIDES if len(state.side(s).deck) > 1]
            opp_hand = list(state.side(opp).hand)
            # (The encounter's night lists are public data and may look like card ids.)
            for node in walk({k: v for k, v in blob.items() if k != "encounter"}):
                if isinstance(node, list):
                    assert node not in hidden
                    assert len(opp_hand) < 2 or sorted(node, key=str) != sorted(opp_hand)
            # The view is a function of public information only: another key (so other future
            # loot and shuffles), another order of the other side's unseen cards, and another
            # order of this side's own deck all give the same observation.
            me, them = state.side(side), state.side(opp)
            unseen = them.deck + them.hand
            shuffled = unseen[::-1] if len(unseen) > 1 else unseen
            swapped_them = replace(
                them, hand=shuffled[: len(them.hand)], deck=shuffled[len(them.hand) :]
            )
            swapped_me = replace(me, deck=me.deck[::-1])
            sides = {side: swapped_me, opp: swapped_them}
            twin = replace(state, key=b"\x00" * 32, sides=(sides[PLAYER], sides[RIVAL]))
            assert observe(twin, side) == obs
            assert set(blob["loot"]) <= set(VAULTS)
            assert blob["loot"] == dict(state.loot)
        if state.finished:
            break
        plans = {}
        for side in SIDES:
            options = legal_plans(state, side)
            plans[side] = options[data.draw(st.integers(0, len(options) - 1))]
        state, _ = resolve(state, plans)


@settings(max_examples=50, deadline=None)
@given(heists)
def test_finished_heist_refuses_more_nights(state):
    while not state.finished:
        state, _ = resolve(state, {PLAYER: Plan(), RIVAL: Plan()})
    try:
        resolve(state, {PLAYER: Plan(), RIVAL: Plan()})
        raise AssertionError("resolved a night after the end")
    except EngineError as e:
        assert e.code == "heist_finished"
