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
    # At the sizes the rivals solve (tens of rows, hundreds of columns, a few hundred rounds), a
    # round's numpy calls on vectors cost as much as its two matrix-vector products, so the loop
    # makes as few calls as it can and allocates nothing: each result goes into a buffer made
    # here (``out=``). Every value is still computed by the same operations, in the same order,
    # as the plain loop in tests/game/rivals/test_solver.py, so the strategies (and the rival's
    # plans) are the same to the last bit; that test checks it.
    #
    # The opponent's payoff is -(ut @ x), and (-ut) @ x is exactly that (negating every entry
    # negates every product and every partial sum): one call fewer per round. Both products keep
    # a C-ordered matrix times a vector: another layout (x @ u, say) makes BLAS add in another
    # order, which changes the bits. ``a.dot(b, out=...)`` is the same BLAS call as ``a @ b``,
    # with less of numpy's overhead.
    neg_ut = np.negative(u.T, order="C")
    fixed = share * np.asarray(model, dtype=np.float64) if model is not None and share > 0 else None
    free = np.array(1.0 - share if fixed is not None else 1.0)
    x = np.full(n, 1.0 / n)
    y = uniform.copy()
    # Each side's vectors: the regrets (qx, qy), the linear averages' running totals (xs, ys:
    # round t adds t * x and t * y), zeros for ``maximum`` (a scalar makes a ufunc call slower
    # than an array does, hence these and ``free`` above as an array; same values, same
    # results), and the rounds' scratch.
    qx, xs, zero_n, tx, ur = (np.zeros(n) for _ in range(5))
    qy, ys, zero_m, ty, v, uc, g = (np.zeros(m) for _ in range(7))
    # Local names: no attribute lookups on numpy in the loop.
    add, subtract, multiply, divide = np.add, np.subtract, np.multiply, np.divide
    maximum, reduceat = np.maximum, np.add.reduceat
    for t in range(1, iterations + 1):
        # The rival's regrets against the opponent's last strategy, weighted by hand: with a
        # model, against the restricted mix ((free * y) + fixed) * colw, in that order.
        if fixed is not None:
            multiply(free, y, out=v)
            add(v, fixed, out=v)
            multiply(v, colw, out=v)
        else:
            multiply(y, colw, out=v)
        u.dot(v, out=ur)
        subtract(ur, x.dot(ur), out=ur)
        add(qx, ur, out=qx)
        maximum(qx, zero_n, out=qx)
        s = qx.sum()
        if s > 0:
            divide(qx, s, out=x)
        else:
            x.fill(1.0 / n)
        # The opponent's regrets, per hand, against the rival's new strategy.
        neg_ut.dot(x, out=uc)
        multiply(y, uc, out=g)
        ev = reduceat(g, starts)
        subtract(uc, ev.take(seg), out=g)
        add(qy, g, out=qy)
        maximum(qy, zero_m, out=qy)
        # _segment_normalise(qy, ...), into y. qy is >= 0, so a hand's total is 0 only when
        # all its entries are; when no hand's is, dividing by the totals is all there is to
        # do. (A hand of one plan always has a total of 0: its regret stays 0. A NaN total
        # fails the test too and goes to the function.)
        tot = reduceat(qy, starts)
        if tot.min() > 0:
            divide(qy, tot.take(seg), out=y)
        else:
            np.copyto(y, _segment_normalise(qy, starts, seg, uniform))
        multiply(x, t, out=tx)
        add(xs, tx, out=xs)
        multiply(y, t, out=ty)
        add(ys, ty, out=ys)
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
