"""Ruleset 2026.12, the Night Market set: the packaged data equals RULES.md's table; known answers
for every new crew and every new condition kind (true and false); the loader refuses malformed
new kinds; a heist recorded under 2026.11 still replays under it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from game.engine import (
    PLAYER,
    RIVAL,
    DeckError,
    Plan,
    ReplayError,
    RulesetError,
    get_ruleset,
    load_ruleset,
    resolve,
    validate_deck,
)
from game.engine import text as words
from game.engine.crew import CONDITION_KINDS, Condition, NightContext
from game.engine.replay import main as replay_main
from game.engine.replay import replay
from game.presenters import words as site_words
from tests.support.engine import CV, MA, ST, play_recorded, position, powers

NM = get_ruleset("2026.12")
OLD = get_ruleset("2026.11")
NEW_KINDS = (
    "night_at_least",
    "vault_loot_at_least",
    "self_won_vault_last_night",
    "self_heat_start_at_most",
    "rival_sent_exactly",
    "self_sent_exactly",
)

# RULES.md "Ruleset 2026.12": slug, name, cost, power, (condition kind, param, power, heat).
NIGHT_MARKET = [
    ("fence", "Fence", 1, 1, ("vault_loot_at_least", 4, 3, 0)),
    ("insider", "Insider", 1, 1, ("self_won_vault_last_night", None, 3, 0)),
    ("night-owl", "Night Owl", 1, 1, ("night_at_least", 5, 3, 0)),
    ("cold-reader", "Cold Reader", 2, 3, ("self_heat_start_at_most", 0, 2, 0)),
    ("double-agent", "Double Agent", 2, 3, ("rival_sent_exactly", 2, 3, 0)),
    ("lone-wolf", "Lone Wolf", 2, 3, ("self_sent_exactly", 1, 3, 0)),
    ("smoke-runner", "Smoke Runner", 1, 1, ("self_boost", None, 0, -1)),
]


def duel(player=(), rival=(), *, player_boost=False, rival_boost=False, **kwargs):
    """Each side sends the listed (crew slug, vault) pairs under 2026.12."""
    state = position(
        player_hand=[s for s, _ in player] or ["mirror-courier"],
        rival_hand=[s for s, _ in rival] or ["mirror-courier"],
        ruleset=NM,
        **kwargs,
    )
    plans = {
        PLAYER: Plan(tuple((i, v) for i, (_, v) in enumerate(player)), player_boost),
        RIVAL: Plan(tuple((i, v) for i, (_, v) in enumerate(rival)), rival_boost),
    }
    return resolve(state, plans)


def reasons(result, side, i=0):
    return [p.reason for p in result.side(side).crew[i].breakdown if p.kind == "bonus"]


# --- the data ---------------------------------------------------------------------------------


def test_2026_12_is_2026_11_plus_the_night_market_crew():
    old, new = OLD.to_dict(), NM.to_dict()
    assert new.pop("version") == "2026.12" and old.pop("version") == "2026.11"
    old_crew, new_crew = old.pop("crew"), new.pop("crew")
    assert new == old  # every number of the rules table as before
    assert new_crew[: len(old_crew)] == old_crew  # the base set unchanged, in order
    assert [c["slug"] for c in new_crew[len(old_crew) :]] == [row[0] for row in NIGHT_MARKET]


@pytest.mark.parametrize("row", NIGHT_MARKET, ids=lambda r: r[0])
def test_every_night_market_row(row):
    slug, name, cost, power, (kind, param, bonus, heat) = row
    crew = NM.crew[slug]
    assert (crew.name, crew.cost, crew.power, crew.set) == (name, cost, power, "night-market")
    assert len(crew.effects) == 1
    effect = crew.effects[0]
    assert (effect.condition.kind, effect.condition.param) == (kind, param)
    assert (effect.power, effect.heat) == (bonus, heat)
    assert crew.text.strip()


def test_each_crew_carries_its_set():
    assert NM.sets == ("base", "night-market")
    assert NM.crew_in_set("night-market") == tuple(r[0] for r in NIGHT_MARKET)
    assert NM.crew_in_set("base") == tuple(OLD.crew)
    assert {NM.crew_set[s] for s in OLD.crew} == {"base"}
    assert OLD.sets == ("base",) and OLD.crew_in_set("night-market") == ()


def test_a_deck_full_of_night_market_crew_is_legal_under_2026_12_only():
    deck = [s for s, *_ in NIGHT_MARKET for _ in range(2)][:12]
    assert validate_deck(NM, deck) == tuple(deck)
    with pytest.raises(DeckError) as e:
        validate_deck(OLD, deck)
    assert e.value.code == "deck_unknown_card"


def test_every_new_kind_has_words_on_both_sides():
    for kind in NEW_KINDS:
        mine, theirs = words.CONDITIONS[kind]
        assert mine.strip() and theirs.strip()
    assert words.condition("night_at_least", 5) == "it is night 5 or later"
    assert words.condition("rival_sent_exactly", 2, rival_side=True) == "you sent 2 crew"
    reasons_rival = words.rival_side_reasons(NM)
    assert reasons_rival["insider: you won this vault last night"] == "it won this vault last night"


def test_rules_text_of_each_night_market_effect():
    got = {s: words.effect_text(s, NM.crew[s].effects[0]) for s, *_ in NIGHT_MARKET}
    assert got == {
        "fence": "+3 power when this vault holds 4 or more Loot tonight",
        "insider": "+3 power when you won this vault last night",
        "night-owl": "+3 power when it is night 5 or later",
        "cold-reader": "+2 power when your Heat started at 0 or less",
        "double-agent": "+3 power when the rival sent 2 crew",
        "lone-wolf": "+3 power when you sent 1 crew",
        "smoke-runner": "cools 1 Heat when you Boosted",
    }


def test_the_rules_page_words_widen_with_the_ruleset():
    old, new = site_words.rules_page(OLD), site_words.rules_page(NM)
    reveal_old, reveal_new = dict(old["steps"])["Reveal"], dict(new["steps"])["Reveal"]
    assert "night's number" not in reveal_old and "Loot at the crew's vault" not in reveal_old
    assert "the night's number and this night's Loot at the crew's vault" in reveal_new
    assert "“you won this vault last night” never hold on night 1" in new["rulings"][2]
    assert "you won" not in old["rulings"][2] and "never holds on night 1" in old["rulings"][2]


# --- each new condition kind, true and false -----------------------------------------------


def ctx(**over):
    base = {
        "boost": {PLAYER: False, RIVAL: False},
        "vaults": {PLAYER: (CV,), RIVAL: ()},
        "heat_start": {PLAYER: 0, RIVAL: 0},
        "last_winners": {},
        "night": 1,
        "loot": {MA: 1, CV: 2, ST: 3},
    }
    base.update(over)
    return NightContext(**base)


# (kind, param, context, side, vault, expected)
KIND_CASES = [
    ("night_at_least", 5, ctx(night=5), PLAYER, CV, True),
    ("night_at_least", 5, ctx(night=6), RIVAL, CV, True),
    ("night_at_least", 5, ctx(night=4), PLAYER, CV, False),
    ("night_at_least", 1, ctx(night=1), PLAYER, CV, True),
    ("vault_loot_at_least", 4, ctx(loot={MA: 1, CV: 4, ST: 1}), PLAYER, CV, True),
    ("vault_loot_at_least", 4, ctx(loot={MA: 1, CV: 8, ST: 1}), PLAYER, CV, True),
    ("vault_loot_at_least", 4, ctx(loot={MA: 4, CV: 3, ST: 4}), PLAYER, CV, False),
    ("vault_loot_at_least", 4, ctx(loot={MA: 4, CV: 3, ST: 4}), PLAYER, MA, True),
    ("vault_loot_at_least", 1, ctx(loot={MA: 0, CV: 3, ST: 4}), PLAYER, MA, False),
    ("self_won_vault_last_night", None, ctx(last_winners={CV: PLAYER}), PLAYER, CV, True),
    ("self_won_vault_last_night", None, ctx(last_winners={CV: RIVAL}), RIVAL, CV, True),
    ("self_won_vault_last_night", None, ctx(last_winners={CV: RIVAL}), PLAYER, CV, False),
    ("self_won_vault_last_night", None, ctx(last_winners={CV: None}), PLAYER, CV, False),
    ("self_won_vault_last_night", None, ctx(last_winners={MA: PLAYER}), PLAYER, CV, False),
    ("self_won_vault_last_night", None, ctx(last_winners={}), PLAYER, CV, False),
    ("self_heat_start_at_most", 0, ctx(heat_start={PLAYER: 0, RIVAL: 5}), PLAYER, CV, True),
    ("self_heat_start_at_most", 0, ctx(heat_start={PLAYER: 1, RIVAL: 0}), PLAYER, CV, False),
    ("self_heat_start_at_most", 2, ctx(heat_start={PLAYER: 2, RIVAL: 6}), PLAYER, CV, True),
    ("self_heat_start_at_most", 2, ctx(heat_start={PLAYER: 0, RIVAL: 3}), RIVAL, CV, False),
    ("rival_sent_exactly", 2, ctx(vaults={PLAYER: (CV,), RIVAL: (MA, ST)}), PLAYER, CV, True),
    ("rival_sent_exactly", 2, ctx(vaults={PLAYER: (CV,), RIVAL: (MA, MA)}), PLAYER, CV, True),
    ("rival_sent_exactly", 2, ctx(vaults={PLAYER: (CV,), RIVAL: (CV,)}), PLAYER, CV, False),
    ("rival_sent_exactly", 2, ctx(vaults={PLAYER: (CV, MA), RIVAL: ()}), PLAYER, CV, False),
    ("rival_sent_exactly", 0, ctx(vaults={PLAYER: (CV,), RIVAL: ()}), PLAYER, CV, True),
    ("rival_sent_exactly", 1, ctx(vaults={PLAYER: (CV,), RIVAL: (ST,)}), RIVAL, ST, True),
    ("self_sent_exactly", 1, ctx(vaults={PLAYER: (CV,), RIVAL: (MA, ST)}), PLAYER, CV, True),
    ("self_sent_exactly", 1, ctx(vaults={PLAYER: (CV, CV), RIVAL: ()}), PLAYER, CV, False),
    ("self_sent_exactly", 1, ctx(vaults={PLAYER: (CV, MA), RIVAL: ()}), PLAYER, CV, False),
    ("self_sent_exactly", 2, ctx(vaults={PLAYER: (CV, MA), RIVAL: ()}), PLAYER, CV, True),
    ("self_sent_exactly", 1, ctx(vaults={PLAYER: (CV, MA), RIVAL: (ST,)}), RIVAL, ST, True),
]


@pytest.mark.parametrize("kind, param, context, side, vault, expected", KIND_CASES)
def test_known_answer_of_each_new_kind(kind, param, context, side, vault, expected):
    assert Condition(kind, param).holds(context, side, vault) is expected


def test_every_new_kind_has_a_true_and_a_false_case():
    for kind in NEW_KINDS:
        answers = {case[-1] for case in KIND_CASES if case[0] == kind}
        assert answers == {True, False}, kind
    assert set(NEW_KINDS) <= set(CONDITION_KINDS)


# --- each Night Market crew in a night, true and false ---------------------------------------


def test_fence_needs_four_loot_at_its_own_vault():
    _, r = duel([("fence", CV)], loot={MA: 1, CV: 4, ST: 1})
    assert powers(r, PLAYER) == [4]
    assert reasons(r, PLAYER) == ["fence: this vault holds 4 or more Loot tonight"]
    _, r = duel([("fence", CV)], loot={MA: 4, CV: 3, ST: 4})
    assert powers(r, PLAYER) == [1]
    _, r = duel([("fence", CV)], loot={MA: 1, CV: 4, ST: 1}, player_boost=True)
    assert powers(r, PLAYER) == [6]


def test_fence_reads_loot_an_encounter_raised():
    state = position(player_hand=["fence"], ruleset=NM, loot={MA: 1, CV: 7, ST: 1})
    _, r = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    assert powers(r, PLAYER) == [4]


def test_insider_needs_a_vault_it_won_last_night():
    _, r = duel([("insider", CV)], last_winners={MA: None, CV: PLAYER, ST: RIVAL}, night=2)
    assert powers(r, PLAYER) == [4]
    assert reasons(r, PLAYER) == ["insider: you won this vault last night"]
    _, r = duel([("insider", CV)], last_winners={CV: RIVAL}, night=2)
    assert powers(r, PLAYER) == [1]
    _, r = duel([("insider", CV)], last_winners={MA: PLAYER, CV: None}, night=2)
    assert powers(r, PLAYER) == [1]
    # The rival's own Insider reads the rival's wins.
    _, r = duel([], [("insider", CV)], last_winners={CV: RIVAL}, night=2)
    assert powers(r, RIVAL) == [4]


def test_ruling_insider_never_on_night_one_and_not_after_a_tie():
    _, r = duel([("insider", CV)], night=1)
    assert powers(r, PLAYER) == [1]
    # Night 1: a tie at the Crown Vault (2 against 2), a player win at the Memory Archive.
    state = position(
        player_hand=["mirror-courier", "mirror-courier", "insider"],
        rival_hand=["mirror-courier"],
        ruleset=NM,
    )
    state, _ = resolve(state, {PLAYER: Plan(((0, CV), (1, MA))), RIVAL: Plan(((0, CV),))})
    assert state.last_winners == {MA: PLAYER, CV: None, ST: None}
    insider = next(c for c in state.player.hand if state.player.decklist[c] == "insider")
    for vault, power in ((CV, 1), (MA, 4), (ST, 1)):
        _, r2 = resolve(state, {PLAYER: Plan(((insider, vault),)), RIVAL: Plan()})
        assert powers(r2, PLAYER) == [power], vault


def test_night_owl_from_night_five():
    for night, power in ((4, 1), (5, 4), (6, 4), (1, 1)):
        _, r = duel([("night-owl", CV)], night=night)
        assert powers(r, PLAYER) == [power], night
    _, r = duel([], [("night-owl", ST)], night=5)
    assert powers(r, RIVAL) == [4]


def test_cold_reader_needs_its_own_heat_at_zero():
    _, r = duel([("cold-reader", CV)], player_heat=0, rival_heat=5)
    assert powers(r, PLAYER) == [5]
    assert reasons(r, PLAYER) == ["cold-reader: your Heat started at 0 or less"]
    _, r = duel([("cold-reader", CV)], player_heat=1, rival_heat=0)
    assert powers(r, PLAYER) == [3]
    # Boosting from Heat 0 still counts the start Heat: 3 + 2 + 2.
    _, r = duel([("cold-reader", CV)], player_boost=True)
    assert powers(r, PLAYER) == [7]


def test_double_agent_needs_two_rival_crew_anywhere():
    _, r = duel([("double-agent", CV)], [("mirror-courier", MA), ("mirror-courier", ST)])
    assert powers(r, PLAYER) == [6]
    assert reasons(r, PLAYER) == ["double-agent: the rival sent 2 crew"]
    _, r = duel([("double-agent", CV)], [("mirror-courier", MA), ("mirror-courier", MA)])
    assert powers(r, PLAYER) == [6]
    _, r = duel([("double-agent", CV)], [("mirror-courier", CV)])
    assert powers(r, PLAYER) == [3]
    _, r = duel([("double-agent", CV)])
    assert powers(r, PLAYER) == [3]
    # Its own side's two crew are not the rival's.
    _, r = duel([("double-agent", CV), ("mirror-courier", MA)], player_heat=0)
    assert powers(r, PLAYER) == [3, 2]


def test_lone_wolf_only_when_it_is_the_only_crew_sent():
    _, r = duel([("lone-wolf", CV)], [("mirror-courier", CV), ("mirror-courier", MA)])
    assert powers(r, PLAYER) == [6]
    assert reasons(r, PLAYER) == ["lone-wolf: you sent 1 crew"]
    _, r = duel([("lone-wolf", CV), ("mirror-courier", MA)])
    assert powers(r, PLAYER) == [3, 2]
    _, r = duel([("lone-wolf", CV), ("mirror-courier", CV)])
    assert powers(r, PLAYER) == [3, 2]


def test_smoke_runner_cools_only_when_its_side_boosts():
    _, r = duel([("smoke-runner", CV)], player_boost=True, player_heat=2)
    assert r.player.heat_end == 3  # 2 + Boost 2 - 1
    assert [(p.kind, p.amount) for p in r.player.heat_parts] == [("boost", 2), ("effect", -1)]
    _, r = duel([("smoke-runner", CV)], player_heat=2)
    assert r.player.heat_end == 1  # quiet cools 1, Smoke Runner nothing
    assert powers(r, PLAYER) == [1]
    # The rival's Boost is not its side's.
    _, r = duel([("smoke-runner", CV)], [("mirror-courier", MA)], rival_boost=True, player_heat=2)
    assert r.player.heat_end == 1 and r.rival.heat_end == 2


def test_ruling_smoke_runner_joins_the_one_clamp():
    # Heat 5 + Boost 2 - Smoke Runner 1 = 6, clamped once; clamping after Boost would give 5.
    _, r = duel([("smoke-runner", CV)], player_boost=True, player_heat=5)
    assert r.player.heat_end == 6
    # Heat 3 + 2 - 1 - Coolant 1 = 3 (Energy 2 pays for both).
    _, r = duel([("smoke-runner", CV), ("coolant-carrier", MA)], player_boost=True, player_heat=3)
    assert r.player.heat_end == 3
    # Heat 4, a rival at 0: the rival's Smoke Runner does not cool the player.
    _, r = duel([("mirror-courier", CV)], [("smoke-runner", MA)], player_boost=True, player_heat=4)
    assert r.player.heat_end == 6


# --- the loader refuses malformed new kinds ---------------------------------------------------


def _refusal(mutate) -> str:
    data = copy.deepcopy(NM.to_dict())
    mutate(data)
    with pytest.raises(RulesetError) as e:
        load_ruleset(data)
    assert e.value.code == "ruleset_invalid"
    return e.value.message


def _condition_of(slug: str):
    def get(d):
        row = next(c for c in d["crew"] if c["slug"] == slug)
        return row["effects"][0]["condition"]

    return get


def _index(slug: str) -> int:
    return list(NM.crew).index(slug)


FENCE, OWL, WOLF = _index("fence"), _index("night-owl"), _index("lone-wolf")
DOUBLE, COLD, INSIDER = _index("double-agent"), _index("cold-reader"), _index("insider")


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: _condition_of("fence")(d).update(kind="vault_loot_above"),
         f"'crew[{FENCE}].effects[0].condition.kind': unknown condition kind 'vault_loot_above'"),
        (lambda d: _condition_of("fence")(d).pop("param"),
         f"'crew[{FENCE}].effects[0].condition.param': condition 'vault_loot_at_least' needs"),
        (lambda d: _condition_of("fence")(d).update(param="4"),
         f"'crew[{FENCE}].effects[0].condition.param': must be an integer, got str"),
        (lambda d: _condition_of("fence")(d).update(param=4.0),
         f"'crew[{FENCE}].effects[0].condition.param': must be an integer, got float"),
        (lambda d: _condition_of("fence")(d).update(param=-1),
         f"'crew[{FENCE}].effects[0].condition.param': must be at least 0"),
        (lambda d: _condition_of("night-owl")(d).update(param=True),
         f"'crew[{OWL}].effects[0].condition.param': must be an integer, got bool"),
        (lambda d: _condition_of("night-owl")(d).update(param=0),
         f"'crew[{OWL}].effects[0].condition.param': must be at least 1"),
        (lambda d: _condition_of("night-owl")(d).update(param=None),
         f"'crew[{OWL}].effects[0].condition.param': must be an integer, got NoneType"),
        (lambda d: _condition_of("cold-reader")(d).update(param=-1),
         f"'crew[{COLD}].effects[0].condition.param': must be at least 0"),
        (lambda d: _condition_of("double-agent")(d).update(param=-1),
         f"'crew[{DOUBLE}].effects[0].condition.param': must be at least 0"),
        (lambda d: _condition_of("cold-reader")(d).pop("param"),
         f"'crew[{COLD}].effects[0].condition.param': condition 'self_heat_start_at_most' needs"),
        (lambda d: _condition_of("double-agent")(d).update(param=[2]),
         f"'crew[{DOUBLE}].effects[0].condition.param': must be an integer, got list"),
        (lambda d: _condition_of("lone-wolf")(d).update(param=0),
         f"'crew[{WOLF}].effects[0].condition.param': must be at least 1"),
        (lambda d: _condition_of("insider")(d).update(param=1),
         f"'crew[{INSIDER}].effects[0].condition.param': condition 'self_won_vault_last_night'"
         " takes no param"),
        (lambda d: _condition_of("insider")(d).update(kind=7),
         f"'crew[{INSIDER}].effects[0].condition.kind': must be a string"),
        (lambda d: _condition_of("insider")(d).update(vault="crown-vault"),
         f"'crew[{INSIDER}].effects[0].condition.vault': unknown field"),
        (lambda d: d["crew"][FENCE].pop("set"), f"'crew[{FENCE}].set': missing"),
        (lambda d: d["crew"][FENCE].update(set=1), f"'crew[{FENCE}].set': must be a string"),
        (lambda d: d["crew"][FENCE].update(set="Night Market"),
         f"'crew[{FENCE}].set': 'Night Market' is not a valid slug"),
    ],
)  # fmt: skip
def test_loader_refuses_malformed_new_kinds(mutate, field):
    message = _refusal(mutate)
    assert field in message, message


def test_a_variant_with_fewer_nights_or_crew_still_loads_the_night_market():
    # No upper bounds: Night Owl's night 5 in a 4-night variant, or Double Agent's two crew when
    # one may be sent, just never hold.
    data = copy.deepcopy(NM.to_dict())
    data.update(version="short", nights=4, max_crew=1)
    rs = load_ruleset(data)
    assert rs.crew["night-owl"].effects[0].condition.param == 5
    for night in (1, 4):
        assert not Condition("night_at_least", 5).holds(ctx(night=night), PLAYER, CV)


def test_2026_12_round_trips():
    assert load_ruleset(NM.to_dict()) == NM
    assert get_ruleset("2026.12") is NM


# --- old heists still replay ------------------------------------------------------------------

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "replay-2026.11.json"


def test_a_recorded_2026_11_heist_still_replays_under_2026_11():
    """A replay record the heist API exported under 2026.11 (before 2026.12 existed) verifies."""
    record = json.loads(FIXTURE.read_text())
    assert record["ruleset"] == "2026.11"
    assert replay(record).ok
    assert replay_main([str(FIXTURE)]) == 0


def test_the_same_record_fails_when_its_ruleset_is_swapped():
    # It names 2026.11; claiming a ruleset that does not exist is refused, never guessed.
    record = json.loads(FIXTURE.read_text())
    record["ruleset"] = "2025.01"
    with pytest.raises(ReplayError) as e:
        replay(record)
    assert e.value.code == "replay_unknown_ruleset"


def test_seeded_heists_replay_under_each_ruleset():
    for rs in (OLD, NM):
        for i in range(20):
            _final, record = play_recorded(f"nm-{rs.version}-{i}", ruleset=rs)
            assert record["ruleset"] == rs.version
            report = replay(record)
            assert report.ok, (rs.version, i, report)
