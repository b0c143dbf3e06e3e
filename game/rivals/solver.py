"""Regret matching+ for the night's Bayesian game, with numpy.

Rows are the rival's plans; columns are the opponent's plans for every hand it may hold, stacked,
hand after hand (``starts`` gives each hand's first column, ``weights`` its probability). The
opponent is allowed to know the rival's hand (a pessimistic model, the same one the exact LP in
``bench/exploitability.py`` solves), and picks a plan per hand. Alternating updates and linear
averaging (Tammelin et al., "Solving heads-up limit Texas hold'em", 2015).
"""

from __future__ import annotations

import numpy as np


def _segment_normalise(q: np.ndarray, starts: np.ndarray, seg: np.ndarray, uniform: np.ndarray):
    """``q`` scaled to sum to 1 within each hand (``seg``: each column's hand); a hand whose
    entries are all 0 gets ``uniform`` (1 / its size)."""
    tot = np.add.reduceat(q, starts)
    empty = tot <= 0
    # Indexing by ``seg`` gives the same values as np.repeat(..., sizes), without numpy's
    # Python-level wrapper on each of the hundreds of rounds.
    y = q / np.where(empty, 1.0, tot)[seg]
    if empty.any():
        spread = empty[seg]
        y[spread] = uniform[spread]
    return y


def rm_plus(
    u: np.ndarray,
    starts: np.ndarray,
    weights: np.ndarray,
    iterations: int,
    model: np.ndarray | None = None,
    share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Average strategies (rival over rows; opponent per hand over columns) of ``iterations``
    rounds of alternating RM+ on the zero-sum game ``u`` (the rival's payoff). No clock is read:
    the same inputs give the same strategy.

    With a ``model`` of the opponent (a plan distribution per hand, stacked like the columns) and
    a ``share`` in (0, 1], this is the restricted game of Johanson et al. ("Computing robust
    counter-strategies", 2007): the opponent must play the model with probability ``share`` and
    best-responds with the rest, so the rival's answer exploits the model as far as ``share``
    lets it and stays safe against a player who does not follow it. ``share`` 0 is the
    equilibrium, 1 the best response to the model. The returned opponent strategy is its free
    part."""
    n, m = u.shape
    u = np.ascontiguousarray(u, dtype=np.float64)
    sizes = np.diff(np.append(starts, m))
    seg = np.repeat(np.arange(len(sizes)), sizes)  # each column's hand
    colw = np.asarray(weights, dtype=np.float64)[seg]
    uniform = (1.0 / sizes)[seg]
    x = np.full(n, 1.0 / n)
    y = uniform.copy()
    qx = np.zeros(n)
    qy = np.zeros(m)
    xs = np.zeros(n)
    ys = np.zeros(m)
    ut = u.T.copy()
    fixed = share * np.asarray(model, dtype=np.float64) if model is not None and share > 0 else None
    free = 1.0 - share if fixed is not None else 1.0
    for t in range(1, iterations + 1):
        ur = u @ ((free * y + fixed) * colw) if fixed is not None else u @ (y * colw)
        qx += ur - x @ ur
        np.maximum(qx, 0, out=qx)
        s = qx.sum()
        x = qx / s if s > 0 else np.full(n, 1.0 / n)
        uc = -(ut @ x)
        ev = np.add.reduceat(y * uc, starts)
        qy += uc - ev[seg]
        np.maximum(qy, 0, out=qy)
        y = _segment_normalise(qy, starts, seg, uniform)
        xs += t * x
        ys += t * y
    xs /= xs.sum()
    ys = _segment_normalise(ys, starts, seg, uniform)
    return xs, ys


def exploitability(
    u: np.ndarray, starts: np.ndarray, weights: np.ndarray, x: np.ndarray, value: float
) -> float:
    """How much less than ``value`` the rival's mixed strategy ``x`` gets against a best reply
    per hand."""
    worst = np.minimum.reduceat(x @ u, starts)
    return float(value - worst @ np.asarray(weights))
