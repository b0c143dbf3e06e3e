"""rm_plus, written for speed, gives the same bits as the plain loop it replaced."""

import numpy as np
import pytest

from game.rivals.solver import _segment_normalise, rm_plus


def plain_rm_plus(u, starts, weights, iterations, model=None, share=0.0):
    """rm_plus as first written: one numpy expression per step, new arrays every round."""
    n, m = u.shape
    u = np.ascontiguousarray(u, dtype=np.float64)
    sizes = np.diff(np.append(starts, m))
    seg = np.repeat(np.arange(len(sizes)), sizes)
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


def _game(rng, n, sizes, with_model, whole):
    m = sum(sizes)
    # Payoffs in whole points (ties, and a column all alike) or not (rounding everywhere).
    if whole:
        u = rng.integers(-6, 7, size=(n, m)).astype(np.float64)
        u[:, rng.integers(m)] = 3.0
    else:
        u = rng.normal(size=(n, m)) * 7.3
    starts = np.cumsum([0, *sizes[:-1]])
    w = rng.dirichlet(np.ones(len(sizes)))
    model = None
    if with_model:
        model = np.concatenate([rng.dirichlet(np.ones(k)) for k in sizes])
    return u, starts, w, model


@pytest.mark.parametrize("seed", range(16))
def test_rm_plus_is_bit_identical_to_the_plain_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 5, 13, 37]))
    # Hands of one plan (always the uniform branch) in some games, not in others.
    sizes = [int(k) for k in rng.choice([1, 2, 7, 13, 19], size=int(rng.integers(1, 9)))]
    u, starts, w, model = _game(rng, n, sizes, with_model=seed % 3 != 0, whole=seed % 2 == 0)
    if seed % 4 == 1:
        u = np.asfortranarray(u)  # the caller's layout does not matter
    share = [0.0, 0.0, 0.3, 1.0][seed % 4]
    iterations = int(rng.integers(1, 150))
    got = rm_plus(u, starts, w, iterations, model, share)
    want = plain_rm_plus(u, starts, w, iterations, model, share)
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a, b)
