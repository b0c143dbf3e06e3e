"""The rival lab's player-style panel: legal, deterministic given the stream, from both seats."""

import dataclasses

import pytest

from game.engine import PLAYER, RIVAL, Stream, new_heist, observe, resolve, validate_plan
from game.rivals.lab import panel, tournament
from game.rivals.personas import list_personas
from tests.support.rivals import random_position

STYLES = list(panel.STYLES)


@pytest.mark.parametrize("style", STYLES)
def test_styles_play_legal_plans_from_both_seats(style):
    for i in range(40):
        state = random_position(120_000 + i)
        for side in (PLAYER, RIVAL):
            plan = panel.play(style, observe(state, side), Stream(bytes(32), f"{i}/{side}"))
            validate_plan(state, side, plan)


@pytest.mark.parametrize("style", STYLES)
def test_styles_are_deterministic_given_their_stream(style):
    plans_by_stream = set()
    for i in range(30):
        obs = observe(random_position(130_000 + i), PLAYER)
        a = panel.play(style, obs, Stream(b"s" * 32, f"n/{i}"))
        b = panel.play(style, obs, Stream(b"s" * 32, f"n/{i}"))
        assert a == b
        plans_by_stream.add(a)
    assert len(plans_by_stream) > 1  # it does read the position


def test_each_style_keeps_its_habit():
    """Over many nights each style shows the habit it is named for."""
    nights = {s: [] for s in STYLES}
    for i in range(60):
        state = random_position(140_000 + i)
        if state.finished:
            continue
        obs = observe(state, PLAYER)
        for s in STYLES:
            nights[s].append((obs, panel.play(s, obs, Stream(bytes(32), f"h/{i}"))))

    def rate(style, pred):
        return sum(pred(o, p) for o, p in nights[style]) / len(nights[style])

    def can_boost(o):
        return o.heat[o.side] < o.ruleset.boost_lock_heat

    assert rate("boost-happy", lambda o, p: p.boost or not can_boost(o) or not p.crew) > 0.95
    assert rate("cautious", lambda o, p: p.boost) < rate("loot-chaser", lambda o, p: p.boost)
    assert rate("cautious", lambda o, p: p.boost) < 0.2

    def richest_doubled(o, p):
        loot = {v: (0 if v in o.closed else o.loot.get(v, 0)) for v in o.ruleset.vault_slugs}
        top = max(loot, key=lambda v: (loot[v], -o.ruleset.vault_slugs.index(v)))
        return all(v == top for _, v in p.crew) and len(p.crew) >= 1

    assert rate("richest-double", richest_doubled) > 0.9


def test_copycat_copies_the_other_sides_last_vaults():
    copied = total = 0
    for i in range(80):
        state = random_position(150_000 + i)
        if state.finished or not state.history:
            continue
        obs = observe(state, PLAYER)
        plan = panel.play("copycat", obs, Stream(bytes(32), str(i)))
        theirs = sorted(c.vault for c in state.history[-1].rival.crew)
        if len(theirs) == len(plan.crew) and theirs:
            total += 1
            copied += sorted(v for _, v in plan.crew) == theirs
    assert total > 10 and copied / total > 0.8


def test_panel_pairings_in_the_tournament_report(tmp_path):
    res = tournament.run(
        (),
        range(0),
        workers=1,
        pairings=[],
        progress=False,
        panel_levels=("rookie", "kingpin", "kingpin-before"),
        panel_styles=("loot-chaser", "copycat"),
        panel_seeds=range(2),
    )
    assert len(res.records) == 3 * 2 * 2 * 2
    found = {g[0]: g for g in tournament.gates(res)}
    names = list(found)
    # The levels present (rookie, kingpin) are compared; kingpin-before is not a rung.
    assert found["vs loot-chaser: score rises level by level"][2].count("<") == 1
    assert "kingpin >= 0.7 vs copycat" in names
    assert "kingpin >= 0.75 on average over the panel" in names
    path = tournament.write_report(res, tmp_path, "pytest")
    text = path.read_text()
    assert "## Against the player-style panel" in text and "| copycat |" in text
    assert "Kingpin before" in text
    assert (tmp_path / "rivals-panel.png").stat().st_size > 1000


def test_a_heist_replays_identically_against_a_style():
    """The new Kingpin and a style, twice from the same seeds: the same heist, night by night."""

    def play_once():
        ps = list_personas()
        state = new_heist(
            ruleset="2026.11", player_deck=ps[0].deck, rival_deck=ps[2].deck, server_seed="replay"
        )
        records = []
        while not state.finished:
            plans = {
                PLAYER: panel.play(
                    "noisy-mix", observe(state, PLAYER), Stream(b"p" * 32, f"{state.night}")
                ),
                RIVAL: tournament.bot_move(
                    "kingpin",
                    observe(state, RIVAL),
                    "the-reader",
                    Stream(b"r" * 32, str(state.night)),
                ),
            }
            state, result = resolve(state, plans)
            records.append(result.to_dict())
        return records

    assert play_once() == play_once()


def _rival_holding(state, rival_hand):
    """``state`` with the rival holding ``rival_hand`` and every other card of its deck in its
    discard pile (public), so the player knows what the rival can hold."""
    from game.engine.state import SideState

    deck = list(rival_hand)
    for slug in state.ruleset.crew_in_set("base"):
        while len(deck) < state.ruleset.deck_size and deck.count(slug) < state.ruleset.max_copies:
            deck.append(slug)
    n = len(rival_hand)
    rival = SideState(tuple(deck), (), tuple(range(n)), tuple(range(n, len(deck))), 0, 0, 1)
    return dataclasses.replace(state, sides=(state.player, rival))


def test_thinking_styles_answer_what_the_rival_can_hold():
    """The same hand and loot, with the rival able to hold only feeble crew or only strong ones:
    every thinking style changes its plan on some of these positions, a habit never does."""
    from tests.support.engine import position

    strong = ("signal-thief", "signal-thief", "ghost-locksmith")
    feeble = ("coolant-carrier", "coolant-carrier", "paper-decoy")
    changed = {s: 0 for s in (*panel.THINKERS, "loot-chaser", "boost-happy", "cautious")}
    hands = [
        ("mirror-courier", "ghost-locksmith", "borrowed-face"),
        ("signal-thief", "mirror-courier", "coolant-carrier"),
        ("rooftop-runner", "conductor", "spark"),
        ("borrowed-face", "borrowed-face", "mirror-courier"),
        ("capacitor", "ghost-locksmith", "mirror-courier"),
    ]
    for i, hand in enumerate(hands):
        base = position(
            player_hand=hand, loot={"memory-archive": 1, "crown-vault": 3, "signal-tower": 4}
        )
        for style in changed:
            a = panel.play(
                style, observe(_rival_holding(base, strong), PLAYER), Stream(bytes(32), str(i))
            )
            b = panel.play(
                style, observe(_rival_holding(base, feeble), PLAYER), Stream(bytes(32), str(i))
            )
            changed[style] += a != b
    for style in panel.THINKERS:
        assert changed[style] >= 1, (style, changed)
    for style in ("loot-chaser", "boost-happy", "cautious"):
        assert changed[style] == 0, (style, changed)
