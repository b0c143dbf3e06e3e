"""How this player chooses: a model fitted, within one heist, from the plans it has revealed.

Everything comes from the Observation's public history (every earlier night's full reveal: both
plans, both start Heats, the loot, the closed vaults and who won each vault). Nothing is kept
between heists and nothing is stored anywhere: the model is a function of one heist's history.
The work that repeats from night to night of a heist may be kept in memory while it is played
(:class:`HeistFits`, :class:`FitsCache`), which gives the rebuild's model to the last bit.

The model is a conditional logit: the player picks plan ``j`` of its hand with probability
proportional to ``exp(theta . f_j)``, where ``f_j`` are plain facts a person sees about a plan
(:data:`FEATURES`: the loot it would likely take, Boost, the Heat it adds, how many crew, two in
one vault, crew at the richest vault, how much it copies the rival's last plan or repeats its
own). ``theta`` is the maximum a posteriori estimate under a Gaussian prior centred on a
"typical player" (chases likely loot, dislikes Heat a little), found by a fixed number of Newton
steps, so the same history always gives the same model and no clock is read.

The hand a past plan came from is not public: the cards played are, the cards kept are not. The
likelihood of a past plan sums over every kept set the player could have held (exact
hypergeometric prior from the cards it had not yet played).

How far to trust the model is measured the honest way, prequentially: each past night's plan is
scored by the model fitted on the nights before it (the prior for the first night), against a
uniform guess over that hand's plans. ``trust`` in [0, 1] grows with that predictive gain (recent
nights weigh more), so a player who plays at random, or who changes style, earns little trust and
the rival stays near its equilibrium.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from game.engine.view import Observation
from game.kept import Kept
from game.rivals import beliefs, nightgame

FEATURES = (
    "likely_loot",  # loot at each vault times a rough chance of taking it with that power
    "power_loot",  # power-weighted loot, as if the other side sent nobody (/ 4)
    "boost",
    "heat_up",  # Heat the plan adds (not cooling)
    "crew",  # crew sent
    "stacked",  # two crew in one vault
    "richest",  # crew at the night's richest vault(s)
    "copy_vaults",  # vaults shared with the rival's last plan (multiset overlap)
    "copy_boost",  # Boost as the rival did last night (after the first night)
    "repeat_vaults",  # vaults shared with its own last plan
)
D = len(FEATURES)

# The "typical player" the prior is centred on, and how far a heist's evidence may move it.
PRIOR_MEAN = np.array([1.0, 0.2, 0.0, -0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
# Prior precision per feature. The "typical player" says something about loot, Heat and crew,
# so those are held near it; it says nothing about how a player reacts to the last night
# (copying the rival's vaults or Boost, repeating its own vaults: people go both ways), so those
# are held only loosely at 0 and a reaction shown on a night or two is learnt at once.
PRIOR_PRECISION = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1])
NEWTON_STEPS = 8
# Rough chance of taking a vault with power p: logistic around CHANCE_CENTRE.
CHANCE_CENTRE = 4.0
CHANCE_SPREAD = 1.5
# Predictive gain (nats per night over a uniform guess) at which the model is fully trusted, and
# the pseudo-nights of zero gain that temper the first evidence.
FULL_TRUST_GAIN = 1.2
PSEUDO_NIGHTS = 1.0
# Weight of a night's predictive gain per night of age (the last night counts 1).
RECENCY = 0.6
# Share of full trust given to the typical-player prior before any evidence (and as a floor).
PRIOR_TRUST = 0.0


@dataclass(frozen=True, slots=True)
class PlayerModel:
    theta: np.ndarray
    trust: float  # 0 (no better than a uniform guess) .. 1
    nights: int  # nights of evidence
    gains: tuple[float, ...]  # prequential gain of each past night (nats over uniform)


@dataclass(slots=True)
class Choice:
    """One past night's choice: the plans of every hand the player may have held, stacked."""

    f: np.ndarray  # (N, D)
    starts: np.ndarray  # (K,) first row of each possible hand
    seen: np.ndarray  # (K,) row of the revealed plan within the stack
    prior: np.ndarray  # (K,) probability of that hand
    sizes: np.ndarray  # (K,)


def _vault_tuple(side_result, rs) -> tuple[int, ...]:
    vidx = {v: i for i, v in enumerate(rs.vault_slugs)}
    return tuple(sorted(vidx[c.vault] for c in side_result.crew))


def _overlap(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    rest = list(b)
    n = 0
    for v in a:
        if v in rest:
            rest.remove(v)
            n += 1
    return n


def features(
    hps: list[nightgame.HandPlans],
    table: nightgame.CrewTable,
    loot: np.ndarray,
    their_last: tuple[tuple[int, ...], bool] | None,
    own_last: tuple[int, ...] | None,
) -> np.ndarray:
    """Feature rows of every plan of the given hands, stacked (see :data:`FEATURES`). The
    hands are of one night (one set of open vaults), so a configuration index names one
    shape of plan in all of them."""
    power, heat = nightgame.solo_arrays(table, hps)
    power = power.astype(np.float64)
    chance = np.where(
        power > 0, 1.0 / (1.0 + np.exp(-(power - CHANCE_CENTRE) / CHANCE_SPREAD)), 0.0
    )
    cfg = np.concatenate([hp.cfg for hp in hps]) if len(hps) > 1 else hps[0].cfg
    n = len(cfg)
    f = np.zeros((n, D))
    f[:, 0] = chance @ loot
    f[:, 1] = power @ loot / 4.0
    f[:, 3] = np.maximum(heat, 0)
    richest = set(np.flatnonzero(loot >= loot.max()).tolist()) if loot.max() > 0 else set()
    # Columns 2 and 4-9 depend only on where the crew go and the Boost: the plan's
    # configuration (``HandPlans.cfg``, one per shape in a night's set of open vaults), which
    # many plans of many hands share. Each is worked out once, from its first plan (all whole
    # numbers, so the rows are the same as computed plan by plan); looking a plan's shape up
    # by sorting its vaults was most of this function's time.
    shapes, first, index = np.unique(cfg, return_index=True, return_inverse=True)
    if len(shapes):
        ends = np.cumsum([len(hp.cfg) for hp in hps])
        rows = []
        for i in first.tolist():
            h = int(np.searchsorted(ends, i, side="right"))
            crew, boost = hps[h].plans[i - (int(ends[h - 1]) if h else 0)]
            vs = tuple(sorted(v for _, v in crew))
            rows.append(_shape_row(vs, bool(boost), richest, their_last, own_last))
        f[:, SHAPE_COLUMNS] = np.asarray(rows)[index]
    return f


# The feature columns :func:`_shape_row` gives, in its order.
SHAPE_COLUMNS = [2, 4, 5, 6, 7, 8, 9]


def _shape_row(
    vs: tuple[int, ...],
    boost: bool,
    richest: set[int],
    their_last: tuple[tuple[int, ...], bool] | None,
    own_last: tuple[int, ...] | None,
) -> list[float]:
    """Columns 2, 4, 5, 6, 7, 8, 9 of a plan sending crew to vaults ``vs`` (sorted)."""
    return [
        boost,
        len(vs),
        len(vs) == 2 and vs[0] == vs[1],
        sum(1 for v in vs if v in richest),
        _overlap(vs, their_last[0]) if their_last is not None else 0,
        boost == their_last[1] if their_last is not None else 0,
        _overlap(vs, own_last) if own_last is not None else 0,
    ]


def _segment_logsoftmax(z: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    mx = np.maximum.reduceat(z, starts)
    e = np.exp(z - np.repeat(mx, sizes))
    lse = np.log(np.add.reduceat(e, starts)) + mx
    return z - np.repeat(lse, sizes)


def predict(theta: np.ndarray, f: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Probability of each stacked plan within its hand."""
    sizes = np.diff(np.append(starts, len(f)))
    return np.exp(_segment_logsoftmax(f @ theta, starts, sizes))


def _loglik(theta: np.ndarray, c: Choice) -> float:
    lp = _segment_logsoftmax(c.f @ theta, c.starts, c.sizes)
    return float(np.log(max(1e-300, float(c.prior @ np.exp(lp[c.starts + c.seen])))))


def fit(choices: list[Choice]) -> np.ndarray:
    """MAP ``theta`` under the Gaussian prior, by a fixed number of (Fisher-scored) Newton
    steps; the kept cards are summed over through each hand's posterior responsibility."""
    theta = PRIOR_MEAN.copy()
    if not choices:
        return theta
    prec = PRIOR_PRECISION
    for _ in range(NEWTON_STEPS):
        grad = -prec * (theta - PRIOR_MEAN)
        hess = np.diag(prec)
        for c in choices:
            lp = _segment_logsoftmax(c.f @ theta, c.starts, c.sizes)
            p = np.exp(lp)
            seen_rows = c.starts + c.seen
            resp = c.prior * p[seen_rows]
            tot = resp.sum()
            if tot <= 0:
                continue
            resp = resp / tot
            w = p * np.repeat(resp, c.sizes)  # responsibility x plan probability
            mean_f = np.add.reduceat(p[:, None] * c.f, c.starts)  # (K, D) expected features
            grad += resp @ (c.f[seen_rows] - mean_f)
            second = (c.f * w[:, None]).T @ c.f
            hess += second - (mean_f * resp[:, None]).T @ mean_f
        step = np.linalg.solve(hess, grad)
        theta = theta + np.clip(step, -2.0, 2.0)
    return theta


def _their_plan(res, side: str, rs) -> tuple[tuple[int, ...], bool]:
    sr = res.side(side)
    return _vault_tuple(sr, rs), sr.boost


def past_choices(obs: Observation) -> list[Choice]:
    """The player's (``obs.opponent``'s) revealed choices, one per earlier night."""
    return [c for c in _night_choices(obs) if c is not None]


def _night_choices(obs: Observation, known: Sequence[Choice | None] = ()) -> list[Choice | None]:
    """Each earlier night's revealed choice, in order: None for a night whose revealed plan no
    hand the player could have held gives. Night ``j``'s depends on the nights up to ``j``
    only, so a later observation of the same heist gives the same first entries: ``known``,
    the entries worked out for an earlier observation of this heist and seat, are kept."""
    rs = obs.ruleset
    opp, me = obs.opponent, obs.side
    deck = Counter(obs.decklists[opp])
    slugs = tuple(sorted(deck))
    vidx = {v: i for i, v in enumerate(rs.vault_slugs)}
    played_before: Counter[str] = Counter()
    out = []
    for j, res in enumerate(obs.history):
        mine_sr, opp_sr = res.side(me), res.side(opp)
        played = tuple(sorted(c.crew for c in opp_sr.crew))
        if j < len(known):
            out.append(known[j])
            played_before.update(played)
            continue
        pool = deck - played_before - Counter(played)
        if sum(pool.values()) < rs.hand_size - len(played):
            pool = deck - Counter(played)  # the deck was reshuffled: any unplayed card fits
        k_keep = max(0, rs.hand_size - len(played))
        dist = beliefs.hand_distribution(tuple(sorted(pool.items())), k_keep)
        closed = frozenset(res.closed)
        prev = obs.history[j - 1] if j else None
        lw = {}
        if prev is not None:
            lw = {vr.slug: vr.winner for vr in prev.vaults}
        table = nightgame.crew_table(
            rs.version,
            slugs,
            opp_sr.heat_start,
            mine_sr.heat_start,
            nightgame.relative_winners(rs, lw, opp),
            closed,
            night=res.night,
            loot=nightgame.night_loot(rs, res.loot),
        )
        energy = rs.energy_by_heat[opp_sr.heat_start]
        boost_ok = opp_sr.heat_start < rs.boost_lock_heat
        seen_plan = (tuple(sorted((c.crew, vidx[c.vault]) for c in opp_sr.crew)), opp_sr.boost)
        hps, seen, prior = [], [], []
        for kept, p in dist:
            hand = tuple(sorted(kept + played))
            hp = nightgame.hand_plans(rs.version, hand, slugs, energy, boost_ok, closed)
            try:
                seen.append(hp.plans.index(seen_plan))
            except ValueError:
                continue
            hps.append(hp)
            prior.append(p)
        played_before.update(played)
        if not hps:
            out.append(None)
            continue
        loot = np.array([0.0 if v in closed else float(res.loot.get(v, 0)) for v in rs.vault_slugs])
        their_last = _their_plan(prev, me, rs) if prev is not None else None
        own_last = _their_plan(prev, opp, rs)[0] if prev is not None else None
        f = features(hps, table, loot, their_last, own_last)
        sizes = np.array([len(h.plans) for h in hps])
        starts = np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.intp)
        pr = np.asarray(prior)
        out.append(Choice(f, starts, np.asarray(seen), pr / pr.sum(), sizes))
    return out


def build(obs: Observation, fits: HeistFits | None = None) -> PlayerModel:
    """Fit the model on every revealed night and score how well it has been predicting.
    ``fits``: what earlier builds for the same heist and seat worked out (the same model)."""
    if fits is not None:
        return fits.build(obs)
    choices = past_choices(obs)
    gains = [_gain(fit(choices[:j]), c) for j, c in enumerate(choices)]
    return _model(fit(choices), gains)


def _gain(theta: np.ndarray, c: Choice) -> float:
    """How much better than a uniform guess ``theta`` predicted choice ``c`` (nats)."""
    uniform = float(np.log(c.prior @ (1.0 / c.sizes)))
    return _loglik(theta, c) - uniform


def _model(theta: np.ndarray, gains: list[float]) -> PlayerModel:
    # Recent nights count more, so a player who changes style loses the model's trust fast.
    ages = np.arange(len(gains))[::-1]
    recency = RECENCY**ages
    mean_gain = float(recency @ np.asarray(gains, dtype=np.float64)) / (
        float(recency.sum()) + PSEUDO_NIGHTS
    )
    trust = float(np.clip(mean_gain / FULL_TRUST_GAIN, 0.0, 1.0))
    return PlayerModel(theta, trust, len(gains), tuple(gains))


class HeistFits:
    """:func:`build` for the observations of one heist from one seat, night after night (the
    debrief reviews every night of a heist), with what repeats worked out once.

    ``build`` on night ``n`` works out every earlier night's choice and fits the model on
    every prefix of them (the prequential trust), so a heist's nights together did it about
    n^2 / 2 times. A night's choice depends only on the nights up to it and a fit only on the
    choices before, so here each is worked out once, from the latest observation, and kept:
    ``fits.build(obs)`` is ``build(obs)`` to the last bit, for ``obs`` of that heist and seat
    up to ``latest``'s night."""

    def __init__(self, latest: Observation, earlier: HeistFits | None = None) -> None:
        """``earlier``: the fits of an earlier observation of the same heist and seat, whose
        work is kept (``latest`` must continue its history: :meth:`advance` checks)."""
        self._seat = (latest.side, latest.ruleset.version, latest.decklists)
        self._history = latest.history
        self._nights = _night_choices(latest, earlier._nights if earlier else ())
        # The first k choices are the same for every later observation: their fits too.
        self._thetas: dict[int, np.ndarray] = dict(earlier._thetas) if earlier else {}
        self._gains: dict[int, float] = dict(earlier._gains) if earlier else {}

    def continued_by(self, obs: Observation) -> bool:
        """``obs`` is this heist seen from this seat on this night or a later one."""
        n = len(self._history)
        return (
            (obs.side, obs.ruleset.version, obs.decklists) == self._seat
            and len(obs.history) >= n
            and obs.history[:n] == self._history
        )

    def advance(self, latest: Observation) -> HeistFits:
        """The fits for ``latest``, keeping this one's work when ``latest`` continues its
        heist (the rival's next night); from scratch otherwise."""
        if not self.continued_by(latest):
            return HeistFits(latest)
        if len(latest.history) == len(self._history):
            return self
        return HeistFits(latest, self)

    def build(self, obs: Observation) -> PlayerModel:
        n = len(obs.history)
        if (
            (obs.side, obs.ruleset.version, obs.decklists) != self._seat
            or n > len(self._history)
            or obs.history != self._history[:n]
        ):
            raise ValueError("an observation of another heist, seat or later night")
        choices = [c for c in self._nights[:n] if c is not None]
        gains = [self._gain(j, choices) for j in range(len(choices))]
        return _model(self._fit(len(choices), choices), gains)

    def _fit(self, k: int, choices: list[Choice]) -> np.ndarray:
        # The first k choices are the same for every observation of the heist.
        if k not in self._thetas:
            self._thetas[k] = fit(choices[:k])
        return self._thetas[k]

    def _gain(self, j: int, choices: list[Choice]) -> float:
        if j not in self._gains:
            self._gains[j] = _gain(self._fit(j, choices), choices[j])
        return self._gains[j]


def tonight_features(
    obs: Observation, hps: list[nightgame.HandPlans], table: nightgame.CrewTable, loot
) -> np.ndarray:
    """Feature rows of the player's possible plans tonight (its hands stacked)."""
    rs = obs.ruleset
    if obs.history:
        last = obs.history[-1]
        their_last = _their_plan(last, obs.side, rs)
        own_last = _their_plan(last, obs.opponent, rs)[0]
    else:
        their_last, own_last = None, None
    return features(hps, table, np.asarray(loot, dtype=np.float64), their_last, own_last)


class FitsCache:
    """The player model's work for the heists a process is playing, kept from one of the
    rival's nights to the next (a night's choice and the fits on earlier nights never change),
    so a turn works out its new night only instead of every earlier one again. Keyed by the
    caller's id of the heist and seat; bounded (game.kept). What it gives is :func:`build`'s
    model to the last bit (:meth:`HeistFits.advance` starts afresh for an observation that does
    not continue the heist it holds), so the rival plays the same plans with it or without it."""

    def __init__(self, size: int = 256) -> None:
        self._fits: Kept[HeistFits] = Kept(size)

    def __len__(self) -> int:
        return len(self._fits)

    def fits(self, key: Hashable, obs: Observation) -> HeistFits:
        held = self._fits.pop(key)
        fits = held.advance(obs) if held is not None else HeistFits(obs)
        self._fits.put(key, fits)
        return fits

    def forget(self, key: Hashable) -> None:
        self._fits.pop(key)
