"""The tournament's statistics: a pairing's mean score with its 95% interval, and Bradley-Terry
strengths."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pair_summary(scores: Sequence[float]) -> tuple[float, float, float]:
    """Mean score over seed pairs (each the mean of its two games) and its 95% interval."""
    x = np.asarray(scores, dtype=float)
    m = float(x.mean())
    if len(x) < 2:
        return m, m, m
    half = 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return m, max(0.0, m - half), min(1.0, m + half)


def bradley_terry(names: Sequence[str], wins: dict[tuple[str, str], float], games: dict) -> dict:
    """Bradley-Terry strengths by the MM algorithm (Hunter 2004); log-strengths, mean 0.
    ``wins[(i, j)]`` is i's score (wins + half draws) against j; a tiny prior keeps them finite."""
    idx = {n: k for k, n in enumerate(names)}
    n = len(names)
    w = np.full((n, n), 0.0)
    g = np.zeros((n, n))
    for (i, j), s in wins.items():
        w[idx[i], idx[j]] += s
        g[idx[i], idx[j]] += games[(i, j)]
        g[idx[j], idx[i]] += games[(i, j)]
        w[idx[j], idx[i]] += games[(i, j)] - s
    # Half a game of prior against every opponent.
    w += 0.25 * (g > 0)
    g = g + 0.5 * (g > 0)
    p = np.ones(n)
    for _ in range(2000):
        denom = (g / (p[:, None] + p[None, :])).sum(axis=1)
        new = w.sum(axis=1) / np.where(denom > 0, denom, 1)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < 1e-10:
            p = new
            break
        p = new
    lp = np.log(p)
    return {name: float(lp[idx[name]]) for name in names}


def score_of(
    ps: dict[tuple[str, str], list[float]], a: str, b: str
) -> tuple[float, float, float] | None:
    """``a``'s mean score against ``b`` with its 95% interval, from either pairing order."""
    if (a, b) in ps:
        return pair_summary(ps[(a, b)])
    if (b, a) in ps:
        m, lo, hi = pair_summary(ps[(b, a)])
        return 1 - m, 1 - hi, 1 - lo
    return None
