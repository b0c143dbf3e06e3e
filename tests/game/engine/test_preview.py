"""The plan preview: sure bonuses counted, bonuses that depend on the rival's plan listed apart,
tomorrow's Heat and Energy, refusals as the engine's; and it matches resolve whatever the rival
sealed, when nothing depends on the rival."""

from __future__ import annotations

import pytest

from game.engine import PLAYER, RIVAL, Plan, PlanError, legal_plans, observe, resolve
from game.engine.preview import preview
from tests.support.engine import CV, MA, RS, ST, position


def _vault(answer, slug):
    return next(v for v in answer["vaults"] if v["slug"] == slug)


def test_sure_bonuses_count_and_rival_dependent_ones_are_conditional():
    state = position(player_hand=("conductor", "paper-decoy", "spark"), rival_hand=("spark",) * 3)
    answer = preview(observe(state, PLAYER), Plan(((0, MA), (1, CV)), False))
    # Conductor split across two vaults: its +3 holds whatever the rival does.
    assert _vault(answer, MA)["power"] == RS.crew["conductor"].power + 3
    assert _vault(answer, MA)["crew"][0]["parts"][-1]["kind"] == "bonus"
    # Paper Decoy's +3 needs the rival to Boost: not counted, listed as conditional.
    cv = _vault(answer, CV)
    assert cv["power"] == RS.crew["paper-decoy"].power
    assert cv["conditional"] == [
        {"crew": "paper-decoy", "amount": 3, "reason": "the rival Boosted"}
    ]
    assert _vault(answer, ST)["power"] == 0


def test_a_locked_rival_cannot_boost_so_its_boost_bonus_never_holds():
    state = position(player_hand=("paper-decoy",), rival_heat=RS.boost_lock_heat)
    answer = preview(observe(state, PLAYER), Plan(((0, MA),), False))
    assert _vault(answer, MA)["conditional"] == []
    assert _vault(answer, MA)["power"] == RS.crew["paper-decoy"].power


def test_boost_and_tomorrow():
    state = position(player_hand=("spark", "coolant-carrier"), player_heat=2)
    obs = observe(state, PLAYER)
    quiet = preview(obs, Plan(((0, MA), (1, CV)), False))
    loud = preview(obs, Plan(((0, MA), (1, CV)), True))
    assert _vault(loud, MA)["power"] == RS.crew["spark"].power + RS.boost_power + 2
    heat_quiet = 2 - RS.quiet_cooling - 1
    heat_loud = 2 + RS.boost_heat - 1
    assert quiet["tomorrow"]["heat"] == heat_quiet
    assert quiet["tomorrow"]["energy"] == RS.energy_by_heat[heat_quiet]
    assert quiet["other_boost"]["heat"] == heat_loud == loud["tomorrow"]["heat"]
    assert loud["other_boost"]["heat"] == heat_quiet
    # With no crew, Boost is not legal: nothing to compare.
    assert preview(obs, Plan((), False))["other_boost"] is None


@pytest.mark.parametrize(
    ("plan", "code"),
    [
        (Plan(((0, "nowhere"),), False), "unknown_vault"),
        (Plan(((7, MA),), False), "card_not_in_hand"),
        (Plan(((0, MA), (1, CV), (2, ST)), False), "too_many_crew"),
        (Plan((), True), "boost_without_crew"),
    ],
)
def test_refusals_are_the_engines(plan, code):
    state = position(player_hand=("spark", "mirror-courier", "conductor"))
    with pytest.raises(PlanError) as caught:
        preview(observe(state, PLAYER), plan)
    assert caught.value.code == code


def test_sure_power_is_what_resolve_gives_for_every_rival_plan():
    """Whatever the rival sealed, the sure power plus the conditional bonuses that did hold is
    exactly the power the night resolves to."""
    state = position(
        player_hand=("conductor", "watcher", "paper-decoy"),
        rival_hand=("mirror-courier", "spark", "spark"),
    )
    obs = observe(state, PLAYER)
    for mine in legal_plans(state, PLAYER)[:40]:
        answer = preview(obs, mine)
        for theirs in legal_plans(state, RIVAL):
            _, result = resolve(state, {PLAYER: mine, RIVAL: theirs})
            for v in result.vaults:
                shown = _vault(answer, v.slug)
                assert shown["power"] <= v.player_power
                extra = sum(c["amount"] for c in shown["conditional"])
                assert v.player_power <= shown["power"] + extra
