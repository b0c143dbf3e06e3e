"""What a position after tonight is worth, beyond tonight's loot.

* ``heuristic`` (Hustler, Safecracker): loot margin plus a hand-set worth of each side's end Heat,
  through the Energy it leaves for the next night (RULES.md: Energy by Heat).
* ``fitted`` (Kingpin): loot margin plus the worth of each end Heat per number of nights left,
  fitted from self-play by ``python -m game.rivals.lab.fit_value`` and stored in ``value.json``. On
  the last night the payoff is the exact win / draw / loss (the margin only breaks ties).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from game.engine.rules import Ruleset

# Hand-set worth of one point of next-night Energy, in loot, while nights remain.
ENERGY_WORTH = 0.6
HOT_HEAT = 4
# A win on the last night is worth this much loot to Kingpin (any margin counts far less).
WIN_SCALE = 10.0


def heat_worth(rs: Ruleset, nights_left_after: int) -> np.ndarray:
    """Worth of ending tonight at each Heat, in loot (zero after the last night)."""
    if nights_left_after <= 0:
        return np.zeros(rs.heat_max + 1, dtype=np.float32)
    scale = ENERGY_WORTH * min(nights_left_after, 2) / 2 * 1.5
    return np.array([scale * e for e in rs.energy_by_heat], dtype=np.float32)


@cache
def fitted_model() -> dict | None:
    try:
        text = resources.files(__package__).joinpath("value.json").read_text("utf-8")
    except FileNotFoundError:
        return None
    return json.loads(text)


def fitted_rulesets(model: dict) -> tuple[str, ...]:
    """The rulesets a fit holds for: the one it was played under, and those listed with it
    (``rulesets``) because they play the same games (the same Heat, Energy, nights and loot
    numbers, and the rivals' self-play decks hold only crew they share)."""
    return (model.get("ruleset"), *model.get("rulesets", ()))


def fitted_heat_worth(rs: Ruleset, nights_left_after: int) -> np.ndarray:
    """Worth of ending tonight at each Heat, fitted from self-play (falls back to the
    hand-set worth if there is no fit for this ruleset)."""
    model = fitted_model()
    if nights_left_after <= 0:
        return np.zeros(rs.heat_max + 1, dtype=np.float32)
    if model is None or rs.version not in fitted_rulesets(model):
        return heat_worth(rs, nights_left_after)
    table = model["heat_worth"]
    key = str(min(nights_left_after, max(int(k) for k in table)))
    return np.asarray(table[key], dtype=np.float32)


def win_utility(
    d: np.ndarray, h_me: np.ndarray, h_opp: np.ndarray, rs: Ruleset, nights_left_after: int
) -> np.ndarray:
    """Kingpin's payoff: loot margin plus the fitted worth of both end Heats while nights
    remain; on the last night, win / draw / loss (scaled), with the margin as a tie-break."""
    if nights_left_after <= 0:
        return (WIN_SCALE * np.sign(d) + 0.1 * d).astype(np.float32)
    worth = fitted_heat_worth(rs, nights_left_after)
    return (d + worth[h_me] - worth[h_opp]).astype(np.float32)


def win_spread(nights_left: int) -> float:
    """The spread of the chance-to-win logistic with ``nights_left`` nights still to play,
    fitted from self-play (``fit_value --win-spread``); without a fit, a spread growing like
    the square root of the nights left (each night's loot margin adds its own spread)."""
    model = fitted_model()
    table = (model or {}).get("win_spread")
    if not table:
        return 2.5 * float(np.sqrt(nights_left))
    return float(table[str(min(nights_left, max(int(k) for k in table)))])


def win_chance(
    d: np.ndarray, h_me: np.ndarray, h_opp: np.ndarray, rs: Ruleset, nights_left: int
) -> np.ndarray:
    """The chance to win the heist (a draw counts half) for a loot margin ``d`` and both Heats
    with ``nights_left`` nights still to play: exact once none is left, else a logistic in the
    margin plus the fitted worth of both Heats (the debrief's measure on the last two nights
    and of the turning point)."""
    d = np.asarray(d, dtype=np.float64)
    if nights_left <= 0:
        return (np.sign(d) + 1.0) / 2.0
    worth = fitted_heat_worth(rs, nights_left).astype(np.float64)
    x = d + worth[np.asarray(h_me)] - worth[np.asarray(h_opp)]
    return 1.0 / (1.0 + np.exp(-x / win_spread(nights_left)))
