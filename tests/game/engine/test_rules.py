"""The packaged ruleset equals RULES.md's tables; malformed rulesets are refused clearly."""

from __future__ import annotations

import copy

import pytest

from game.engine import (
    DEFAULT_VERSION,
    PLAYER,
    RIVAL,
    DeckError,
    Plan,
    RulesetError,
    available_versions,
    get_ruleset,
    load_ruleset,
    resolve,
    validate_deck,
)
from game.engine.crew import CONDITION_KINDS
from game.engine.state import HeistState
from tests.support.engine import CV, MA, fill_deck, position, side_state

RS = get_ruleset()  # the default, 2026.12: the base set below, then the Night Market set
# (tests/game/engine/test_night_market.py holds that table and 2026.12 = 2026.11 + it).
BASE = get_ruleset("2026.11")

# RULES.md "Crew (base set)": slug, name, cost, power, (condition kind, param, power, heat),
# and the player-facing text from the rules page.
CREW_TABLE = [
    ("mirror-courier", "Mirror Courier", 1, 2, None, "Reliable power. No condition."),
    ("paper-decoy", "Paper Decoy", 1, 1, ("rival_boost", None, 3, 0),
     "+3 power if the rival Boosts."),
    ("ghost-locksmith", "Ghost Locksmith", 2, 3, ("self_quiet", None, 2, 0),
     "+2 power if you stay quiet."),
    ("rooftop-runner", "Rooftop Runner", 2, 3, ("rival_won_vault_last_night", None, 2, 0),
     "+2 power at a vault the rival won last night."),
    ("signal-thief", "Signal Thief", 3, 5, ("rival_heat_start_at_least", 4, 2, 0),
     "+2 power if rival Heat started at 4 or more."),
    ("borrowed-face", "Borrowed Face", 1, 1, ("another_own_crew_same_vault", None, 2, 0),
     "+2 power with another crew in this vault."),
    ("coolant-carrier", "Coolant Carrier", 1, 1, ("always", None, 0, -1), "Cool 1 Heat."),
    ("spark", "Spark", 1, 1, ("self_boost", None, 2, 0),
     "+2 power if you Boost (in addition to Boost)."),
    ("emergency-vent", "Emergency Vent", 1, 1, ("self_heat_start_at_least", 4, 0, -2),
     "Cool 2 Heat if your Heat started at 4 or more."),
    ("conductor", "Conductor", 2, 2, ("self_sent_two_split", None, 3, 0),
     "+3 power if your two crews split across vaults."),
    ("watcher", "Watcher", 2, 2, ("rival_sent_two_both_here", None, 5, 0),
     "+5 power if both rival crews raid this vault."),
    ("capacitor", "Capacitor", 1, 1, ("self_heat_start_at_least", 4, 3, 0),
     "+3 power if your Heat started at 4 or more."),
]  # fmt: skip


def test_default_version_and_numbers():
    assert DEFAULT_VERSION == "2026.12"
    assert DEFAULT_VERSION in available_versions()
    assert available_versions() == ("2026.11", "2026.12")
    assert RS.version == "2026.12"
    assert RS.nights == 6
    assert [(v.slug, v.name) for v in RS.vaults] == [
        ("memory-archive", "Memory Archive"),
        ("crown-vault", "Crown Vault"),
        ("signal-tower", "Signal Tower"),
    ]
    assert (RS.loot_min, RS.loot_max) == (1, 4)
    assert RS.hand_size == 3
    assert RS.max_crew == 2
    assert (RS.deck_size, RS.max_copies) == (12, 2)
    assert (RS.boost_power, RS.boost_heat, RS.quiet_cooling) == (2, 2, 1)
    assert (RS.heat_min, RS.heat_max, RS.boost_lock_heat) == (0, 6, 6)
    assert RS.energy_by_heat == (3, 3, 2, 2, 1, 1, 1)


@pytest.mark.parametrize("row", CREW_TABLE, ids=[r[0] for r in CREW_TABLE])
def test_every_crew_row(row):
    slug, name, cost, power, effect, text = row
    assert RS.crew[slug] == BASE.crew[slug]
    crew = BASE.crew[slug]
    assert (crew.slug, crew.name, crew.cost, crew.power, crew.text, crew.set) == (
        slug, name, cost, power, text, "base",
    )  # fmt: skip
    if effect is None:
        assert crew.effects == ()
    else:
        (e,) = crew.effects
        assert (e.condition.kind, e.condition.param, e.power, e.heat) == effect


def test_crew_in_table_order():
    assert list(BASE.crew) == [r[0] for r in CREW_TABLE]
    assert list(RS.crew)[: len(CREW_TABLE)] == [r[0] for r in CREW_TABLE]
    assert RS.crew_in_set("base") == tuple(r[0] for r in CREW_TABLE)


def test_get_ruleset_is_cached_and_round_trips():
    assert get_ruleset() is get_ruleset(DEFAULT_VERSION)
    assert load_ruleset(RS.to_dict()) == RS


def test_unknown_version_refused():
    with pytest.raises(RulesetError) as e:
        get_ruleset("1999.01")
    assert e.value.code == "ruleset_unknown"


def break_(mutate):
    data = copy.deepcopy(RS.to_dict())
    mutate(data)
    with pytest.raises(RulesetError) as e:
        load_ruleset(data)
    assert e.value.code == "ruleset_invalid"
    return e.value.message


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("nights"), "'nights': missing"),
        (lambda d: d.update(nights="6"), "'nights': must be an integer"),
        (lambda d: d.update(nights=True), "'nights': must be an integer"),
        (lambda d: d.update(nights=0), "'nights': must be at least 1"),
        (lambda d: d.update(hand_size=1.5), "'hand_size'"),
        (lambda d: d.update(loot_max=0), "'loot_max': must be at least 1"),
        (lambda d: d.update(energy_by_heat=[3, 3, 2]), "'energy_by_heat': needs one entry"),
        (lambda d: d["energy_by_heat"].__setitem__(2, -1), "'energy_by_heat[2]'"),
        (lambda d: d.update(boost_lock_heat=9), "'boost_lock_heat'"),
        (lambda d: d.update(max_crew=4), "'max_crew': must be at most 3"),
        (lambda d: d.update(surprise=1), "'surprise': unknown field"),
        (lambda d: d["vaults"].append(dict(d["vaults"][0])), "'vaults[3].slug': duplicate"),
        (lambda d: d["vaults"][0].update(slug="Crown Vault"), "'vaults[0].slug'"),
        (lambda d: d.update(vaults=[]), "'vaults': must not be empty"),
        (lambda d: d["crew"].append(dict(d["crew"][0])), f"'crew[{len(RS.crew)}].slug': duplicate"),
        (lambda d: d["crew"][3].update(cost=-1), "'crew[3].cost': must be at least 0"),
        (lambda d: d["crew"][3].pop("text"), "'crew[3].text': missing"),
        (
            lambda d: d["crew"][1]["effects"][0]["condition"].update(kind="moon_is_full"),
            "'crew[1].effects[0].condition.kind': unknown condition kind 'moon_is_full'",
        ),
        (
            lambda d: d["crew"][4]["effects"][0]["condition"].pop("param"),
            "'crew[4].effects[0].condition.param': condition 'rival_heat_start_at_least' needs",
        ),
        (
            lambda d: d["crew"][1]["effects"][0]["condition"].update(param=2),
            "'crew[1].effects[0].condition.param': condition 'rival_boost' takes no param",
        ),
        (lambda d: d["crew"][1]["effects"][0].pop("power"), "'crew[1].effects[0]': an effect"),
        (lambda d: d.update(crew=d["crew"][:5]), "'crew': 5 types x 2 copies cannot fill"),
        (lambda d: d.update(version="a b"), "'version'"),
    ],
)
def test_malformed_ruleset_refused_with_field_named(mutate, field):
    message = break_(mutate)
    assert field in message, message


def test_not_an_object():
    with pytest.raises(RulesetError):
        load_ruleset([])  # type: ignore[arg-type]


def test_every_condition_kind_is_known():
    used = {e.condition.kind for c in RS.crew.values() for e in c.effects}
    assert used <= set(CONDITION_KINDS)
    assert set(CONDITION_KINDS) == {
        "always", "self_boost", "self_quiet", "rival_boost", "self_heat_start_at_least",
        "rival_heat_start_at_least", "rival_won_vault_last_night", "another_own_crew_same_vault",
        "self_sent_two_split", "rival_sent_two_both_here",
        # Ruleset 2026.12 (the Night Market set).
        "night_at_least", "vault_loot_at_least", "self_won_vault_last_night",
        "self_heat_start_at_most", "rival_sent_exactly", "self_sent_exactly",
    }  # fmt: skip


def test_new_crew_type_is_pure_data():
    data = copy.deepcopy(RS.to_dict())
    data["version"] = "test.1"
    data["crew"].append(
        {
            "slug": "dusk-owl",
            "name": "Dusk Owl",
            "cost": 1,
            "power": 1,
            "text": "+4 power and cool 1 Heat if the rival's Heat started at 2 or more.",
            "set": "shop-1",
            "effects": [
                {"condition": {"kind": "rival_heat_start_at_least", "param": 2}, "power": 4},
                {"condition": {"kind": "rival_heat_start_at_least", "param": 2}, "heat": -1},
            ],
        }
    )
    rs = load_ruleset(data)
    assert list(rs.crew)[-1] == "dusk-owl"
    base = position(player_hand=["dusk-owl"])  # built on the default ruleset; swap in the new one
    p = side_state(["mirror-courier"], heat=3)
    p = p.__class__(fill_deck(["dusk-owl"], rs), p.deck, p.hand, (), 3, 0, 1)
    state = HeistState(rs, base.key, 1, (p, base.rival), base.loot, frozenset(), {}, None, ())
    rival_hot = HeistState(
        rs, base.key, 1, (p, side_state(["mirror-courier"], heat=2)), base.loot, frozenset(), {},
        None, (),
    )  # fmt: skip
    _, cold = resolve(state, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    _, hot = resolve(rival_hot, {PLAYER: Plan(((0, CV),)), RIVAL: Plan()})
    assert cold.player.crew[0].power == 1 and cold.player.heat_end == 2
    assert hot.player.crew[0].power == 5 and hot.player.heat_end == 1
    assert "dusk-owl: the rival's Heat started at 2 or more" in [
        p.reason for p in hot.player.crew[0].breakdown
    ]


def test_validate_deck():
    deck = fill_deck([])
    assert validate_deck(RS, deck) == deck
    assert validate_deck(RS, list(deck)) == deck
    cases = [
        (deck[:11], "deck_wrong_size"),
        ((*deck, "spark"), "deck_wrong_size"),
        (("spark",) * 3 + deck[3:], "deck_too_many_copies"),
        (("tunnel-rat", *deck[1:]), "deck_unknown_card"),
        ((7, *deck[1:]), "deck_unknown_card"),
        ("mirror-courier", "deck_wrong_size"),
    ]
    for bad, code in cases:
        with pytest.raises(DeckError) as e:
            validate_deck(RS, bad)
        assert e.value.code == code, bad


def test_ruleset_change_does_not_touch_code():
    # A stricter variant: 4 nights, Boost locked from Heat 4, Boost +3 power.
    data = copy.deepcopy(RS.to_dict())
    data.update(version="variant", nights=4, boost_lock_heat=4, boost_power=3)
    rs = load_ruleset(data)
    base = position(player_hand=["mirror-courier"], player_heat=3)
    state = HeistState(rs, base.key, 1, base.sides, base.loot, frozenset(), {}, None, ())
    _, r = resolve(state, {PLAYER: Plan(((0, MA),), True), RIVAL: Plan()})
    assert r.player.crew[0].power == 5
