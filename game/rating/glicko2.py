"""Glicko-2, as Mark Glickman describes it in "Example of the Glicko-2 system" (2013).

A rating is (value, deviation, volatility) on the Glicko scale (1500 for a player nobody knows
anything about). One call of :func:`update` is one rating period: the player's rating before it,
and the games of the period, each against an opponent of known rating and deviation. The site
plays one heist per period (game.services.rating), so a rating moves after every heist.

Written here rather than taken from a package: the algorithm is a page of arithmetic, the
packages that do it are unmaintained, and the known answer of Glickman's paper tests it
(tests/game/test_rating_glicko2.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The Glicko scale's 400 / ln(10): one unit of Glicko-2's internal scale (mu), which is also
# one unit of a Bradley-Terry log-strength (the tournament's ladder), is this many points.
SCALE = 173.7178
CENTRE = 1500.0
# Glickman's tolerance for the volatility's iteration.
EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    value: float
    deviation: float
    volatility: float


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the period: the opponent's rating and deviation, and the player's score
    (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: float
    opponent_deviation: float
    score: float


def g(phi: float) -> float:
    """How much an opponent's uncertainty (phi, internal scale) flattens the expected score."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(value: float, opponent: float, opponent_deviation: float = 0.0) -> float:
    """The expected score of a player rated ``value`` against this opponent (Glicko scale)."""
    mu, mu_j = (value - CENTRE) / SCALE, (opponent - CENTRE) / SCALE
    return 1.0 / (1.0 + math.exp(-g(opponent_deviation / SCALE) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois variant of regula falsi (Glickman's)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b < 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(rating: Rating, games: Sequence[Game], *, tau: float) -> Rating:
    """The rating after one period with ``games`` (steps 1-8 of Glickman's example). A period
    without games only widens the deviation by the volatility (step 6 alone)."""
    mu = (rating.value - CENTRE) / SCALE
    phi = rating.deviation / SCALE
    sigma = rating.volatility
    if not games:
        return Rating(rating.value, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    inverse_v = 0.0
    improvement = 0.0
    for game in games:
        if game.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a score is 0, 0.5 or 1, not {game.score!r}")
        g_j = g(game.opponent_deviation / SCALE)
        e_j = 1.0 / (1.0 + math.exp(-g_j * (mu - (game.opponent - CENTRE) / SCALE)))
        inverse_v += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (game.score - e_j)
    v = 1.0 / inverse_v
    delta = v * improvement
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + inverse_v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(CENTRE + SCALE * mu_new, SCALE * phi_new, sigma_new)
