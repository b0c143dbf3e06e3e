"""A player who beats Kingpin again and again climbs above Kingpin's anchor (issue 26): real
heists against Kingpin, started, sealed and finished through the JSON API, the rival's plans
sealed by the rival's own service, the rating moved by the heist's finish. The player sees
each sealed rival plan (tests.support.rating), the one way to be sure of beating Kingpin."""

from __future__ import annotations

import itertools

import pytest

from game.models import RatingChange
from game.rating.anchors import current
from tests.support.heists import fix_the_game_seeds, start
from tests.support.rating import assert_history_chained, play_seeing

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HEISTS = 4


def test_beating_kingpin_again_and_again_climbs_above_its_anchor(player, monkeypatch):
    fix_the_game_seeds(monkeypatch, "kingpin-climb")
    user, client = player
    anchor = current().anchor("kingpin")
    me = client.get("/api/v1/me/").json()["rating"]
    assert me == {"value": 1500, "deviation": 350, "provisional": True}
    assert me["value"] < anchor.rating
    for _ in range(HEISTS):
        view = play_seeing(client, start(client, difficulty="kingpin"))
        assert view["result"]["outcome"] == "win", view["result"]
    changes = assert_history_chained(user.pk)
    assert len(changes) == HEISTS
    assert {(c.level, c.result, c.opponent) for c in changes} == {
        ("kingpin", RatingChange.Result.WIN, anchor.rating)
    }
    values = [changes[0].before_value] + [c.after_value for c in changes]
    # Every win lifts it, each by less than the one before (it is ever surer the player is
    # above Kingpin), and it ends above Kingpin's anchor, surer than it started.
    steps = [b - a for a, b in itertools.pairwise(values)]
    assert all(s > 0 for s in steps), steps
    assert steps == sorted(steps, reverse=True), steps
    assert values[-1] > anchor.rating
    deviations = [c.after_deviation for c in changes]
    assert deviations == sorted(deviations, reverse=True)
    me = client.get("/api/v1/me/").json()["rating"]
    assert me["value"] == round(values[-1]) > anchor.rating
    assert me["deviation"] == round(deviations[-1]) < 350
