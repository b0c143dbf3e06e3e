"""What a position after tonight is worth, beyond tonight's loot.

* ``heuristic`` (Hustler, Safecracker): loot margin plus a hand-set worth of each side's end Heat,
  through the Energy it leaves for the next night (RULES.md: Energy by Heat).
* ``fitted`` (Kingpin): the probability of winning the heist from (score margin, Energy, "hot"
  Heat >= 4) with a given number of nights left, a logistic model per number of nights left fitted
  from self-play by ``python -m game.rivals.fit_value`` and stored in ``value.json``. On the last
  night the payoff is the exact win / draw / loss.
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
# Kingpin's utilities are win probabilities scaled to about loot units, so persona style knobs
# (in loot) and noise mean about the same thing at every level.
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


def features(d: np.ndarray, h_me: np.ndarray, h_opp: np.ndarray, rs: Ruleset) -> list[np.ndarray]:
    energy = np.asarray(rs.energy_by_heat, dtype=np.float32)
    e_diff = energy[h_me] - energy[h_opp]
    hot = (h_me >= HOT_HEAT).astype(np.float32) - (h_opp >= HOT_HEAT).astype(np.float32)
    return [np.ones_like(d, dtype=np.float32), d.astype(np.float32), e_diff, hot]


def win_utility(
    d: np.ndarray, h_me: np.ndarray, h_opp: np.ndarray, rs: Ruleset, nights_left_after: int
) -> np.ndarray:
    """Scaled 2 P(win) - 1 (draws count half) after tonight; exact on the last night."""
    if nights_left_after <= 0:
        return WIN_SCALE * np.sign(d).astype(np.float32)
    model = fitted_model()
    key = str(min(nights_left_after, max(int(k) for k in model["coef"]))) if model else None
    if model is None or key is None:
        z = 0.25 * d / np.sqrt(nights_left_after)
    else:
        coef = model["coef"][key]
        z = sum(c * f for c, f in zip(coef, features(d, h_me, h_opp, rs), strict=True))
    p = 1.0 / (1.0 + np.exp(-z))
    return (WIN_SCALE * (2.0 * p - 1.0)).astype(np.float32)
