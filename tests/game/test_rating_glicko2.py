"""Glicko-2's arithmetic (game.rating.glicko2) against the known answer of Glickman's worked
example ("Example of the Glicko-2 system", 2013), and the properties the site leans on."""

from __future__ import annotations

import math

import pytest

from game.rating.glicko2 import CENTRE, SCALE, Game, Rating, expected, g, update

# Glickman's example: a player rated 1500 (RD 200, volatility 0.06, tau 0.5) beats a 1400
# (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300).
PLAYER = Rating(1500, 200, 0.06)
GAMES = [Game(1400, 30, 1.0), Game(1550, 100, 0.0), Game(1700, 300, 0.0)]


def test_glickmans_worked_example():
    after = update(PLAYER, GAMES, tau=0.5)
    # The paper's steps 7 and 8, to the four decimals it prints: mu' = -0.2069,
    # phi' = 0.8722, sigma' = 0.05999.
    assert round((after.value - CENTRE) / SCALE, 4) == -0.2069
    assert round(after.deviation / SCALE, 4) == 0.8722
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)
    # And on the Glicko scale: r' = 1464.06, RD' = 151.52. The paper converts its rounded
    # mu' (-0.2069 * 173.7178 = -35.94); from the unrounded mu' the rating is 1464.0507.
    assert after.value == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)


def test_the_examples_intermediate_quantities():
    # Steps 3 and 4 of the paper: v = 1.7785 and delta = -0.4834 (internal scale).
    mu, phi = 0.0, 200 / SCALE
    gs = [g(game.opponent_deviation / SCALE) for game in GAMES]
    assert [round(x, 4) for x in gs] == [0.9955, 0.9531, 0.7242]
    es = [expected(1500, game.opponent, game.opponent_deviation) for game in GAMES]
    assert [round(x, 3) for x in es] == [0.639, 0.432, 0.303]
    v = 1 / sum(gj * gj * ej * (1 - ej) for gj, ej in zip(gs, es, strict=True))
    delta = v * sum(gj * (game.score - ej) for gj, ej, game in zip(gs, es, GAMES, strict=True))
    # (The paper works from its three-decimal E: v = 1.7785 there, 1.77898 unrounded.)
    assert v == pytest.approx(1.7785, abs=1e-3) and delta == pytest.approx(-0.4834, abs=1e-3)
    assert mu == 0.0 and round(phi, 4) == 1.1513


def test_a_period_without_games_only_widens_the_deviation():
    after = update(PLAYER, [], tau=0.5)
    assert after.value == PLAYER.value and after.volatility == PLAYER.volatility
    assert after.deviation == pytest.approx(SCALE * math.hypot(200 / SCALE, 0.06))


@pytest.mark.parametrize("opponent", [1200.0, 1500.0, 1772.0, 2400.0])
def test_a_win_lifts_a_loss_lowers_and_both_narrow(opponent):
    start = Rating(1500, 350, 0.06)
    won = update(start, [Game(opponent, 8, 1.0)], tau=0.5)
    lost = update(start, [Game(opponent, 8, 0.0)], tau=0.5)
    drew = update(start, [Game(opponent, 8, 0.5)], tau=0.5)
    assert lost.value < start.value < won.value
    assert lost.value < drew.value < won.value
    # A draw pulls toward the opponent.
    assert (drew.value - start.value) * (opponent - start.value) >= 0
    assert max(won.deviation, lost.deviation, drew.deviation) < start.deviation


def test_expected_scores_add_up_and_match_bradley_terry():
    assert expected(1600, 1400) + expected(1400, 1600) == pytest.approx(1.0)
    # 400 points is odds of 10 to 1; one internal unit (173.7178 points) is odds of e to 1.
    assert expected(1900, 1500) == pytest.approx(10 / 11, abs=1e-5)
    assert expected(1500 + SCALE, 1500) == pytest.approx(math.e / (1 + math.e), abs=1e-6)


def test_a_score_that_is_not_a_result_is_refused():
    with pytest.raises(ValueError, match="score"):
        update(PLAYER, [Game(1500, 30, 0.7)], tau=0.5)
