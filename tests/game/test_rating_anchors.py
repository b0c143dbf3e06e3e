"""The levels' anchors (game/data/rating.json): measured from the tournament the report names,
by the published formula, in the levels' order, and read back strictly."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from game.rating import anchors as anchors_module
from game.rating.anchors import LEVELS, AnchorsError, current, parse
from game.rating.glicko2 import SCALE, expected
from game.rivals.lab import anchors as lab
from game.rivals.personas import get_difficulty

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "game" / "data" / "rating.json"


def _data() -> dict:
    return json.loads(DATA.read_text("utf-8"))


def test_the_anchors_are_the_reports_tournament_run():
    """game/data/rating.json is what the lab's command makes of docs/rivals.md: a new
    tournament report needs new anchors (``python -m game.rivals.lab.anchors --version ...``)."""
    data = _data()
    report = lab.read_report((ROOT / "docs" / "rivals.md").read_text("utf-8"))
    made = lab.anchors_from_report(report, version=data["version"], glicko2=data["glicko2"])
    assert lab.dumps(made) == DATA.read_text("utf-8")
    assert data["source"]["date"] == report["date"] and data["source"]["games"] > 0
    assert lab.main(["--check"]) == 0


def test_each_anchor_follows_the_formula_from_its_strength():
    data = _data()
    zero = data["zero"]
    for name, row in data["ladder"].items():
        assert row["rating"] == round(1500 + SCALE * (row["strength"] - zero)), name
        low, high = row["interval"]
        assert low <= row["strength"] <= high
        assert row["deviation"] == max(1, round(SCALE * (high - low) / 2 / 1.96)), name
    # The zero is the panel's mean: its styles' ratings average 1500.
    panel = [row["rating"] for row in data["panel"].values()]
    assert abs(sum(panel) / len(panel) - 1500) < 1


def test_an_anchor_gap_gives_the_tournaments_chance():
    """Glicko's expected score between two anchors is Bradley-Terry's chance between the two
    levels on the ladder (what the formula is for), to within the rounding to whole points."""
    a = current()
    for strong, weak in zip(LEVELS[1:], LEVELS, strict=False):
        s, w = a.levels[strong], a.levels[weak]
        ladder = 1 / (1 + math.exp(-(s.strength - w.strength)))
        assert expected(s.rating, w.rating) == pytest.approx(ladder, abs=0.002)


def test_every_level_has_an_anchor_in_order_and_new_players_start_below_the_strong_ones():
    a = current()
    assert list(a.levels) == list(LEVELS)
    for level in LEVELS:
        get_difficulty(level)  # a level the rival plays
    ratings = [a.levels[level].rating for level in LEVELS]
    assert ratings == sorted(ratings)
    assert (a.start.value, a.start.deviation) == (1500, 350)
    # A new player sits between Rookie and Hustler: where the panel's ordinary player does.
    assert a.levels["rookie"].rating < a.start.value < a.levels["hustler"].rating
    assert a.provisional(a.start.deviation) and not a.provisional(a.provisional_above)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("version"), "no version"),
        (lambda d: d["ladder"].pop("kingpin"), "no anchor for"),
        (lambda d: d["ladder"]["kingpin"].update(rating=1000), "not in order"),
        (lambda d: d["ladder"]["rookie"].update(rating=1406.5), "integers"),
        (lambda d: d["glicko2"].update(tau=0), "positive"),
        (lambda d: d["glicko2"].update(deviation=True), "number"),
        (lambda d: d.update(panel={}), "no panel"),
    ],
)
def test_a_malformed_file_is_refused(change, message):
    data = copy.deepcopy(_data())
    change(data)
    with pytest.raises(AnchorsError, match=message):
        parse(data)


def test_the_packaged_file_loads():
    assert anchors_module.current().version == _data()["version"]
    with pytest.raises(AnchorsError, match="no anchor for level 'legend'"):
        current().anchor("legend")


def test_a_report_without_the_ladder_is_refused():
    text = (ROOT / "docs" / "rivals.md").read_text("utf-8")
    with pytest.raises(lab.ReportError, match="Bradley-Terry"):
        lab.read_report(text.replace("## Bradley-Terry ladder", "## Something else"))
