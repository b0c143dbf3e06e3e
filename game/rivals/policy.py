"""Choosing the rival's plan for one night.

The single entry point other code calls is `choose_plan`. It receives the rival's Observation and
a random stream of its own, never the heist state, so it cannot see the player's hand, either
deck's order or future loot (RULES.md "Hidden information"). Every level works from either seat:
it plays ``obs.side`` against ``obs.opponent``.

The levels (knobs in personas.json, both monotone: capability up, noise down):

* Rookie: expected loot margin against a uniformly random opponent over a few sampled hands;
  softmax noise limited to plans close to the best.
* Hustler: best response to a greedy opponent (who grabs power-weighted loot), half of it mixed
  with uniform play, over more sampled hands; loot margin plus the worth of the Heat it ends at;
  some noise.
* Safecracker: the equilibrium of the night's Bayesian game (its plans against the opponent's
  plans for every sampled hand) by regret matching+, valued as loot margin plus the worth of both
  end Heats; plays the mixed strategy.
* Kingpin: the same game over (almost always) every hand the opponent can hold, with beliefs
  weighted by the opponent's last revealed plan, a win-probability value fitted from self-play,
  exact win / draw / loss on the last night, and a time budget. It models how this player
  chooses from the plans revealed in this heist (``playermodel``) and answers in a restricted
  game: the player follows the model for a share that grows with how well the model has been
  predicting, and best-responds with the rest (Safecracker does the same with a smaller share).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from game.engine.errors import EngineError
from game.engine.night import Plan
from game.engine.rng import Stream
from game.engine.rules import Ruleset
from game.engine.view import Observation
from game.rivals import beliefs, nightgame, playermodel, value
from game.rivals.personas import Knobs, Persona, get_difficulty, get_persona
from game.rivals.solver import rm_plus

# Matrix entries one regret-matching round touches per millisecond on a modest core (two
# products of the payoff matrix), used to turn a time budget into a fixed iteration count.
WORK_PER_MS = 600_000


@dataclass(slots=True)
class Night:
    """One observer's night, as numbers (built from the Observation only)."""

    rs: Ruleset
    version: str
    closed: frozenset[str]
    loot: np.ndarray
    heat_me: int
    heat_opp: int
    diff: int  # my score minus theirs
    nights_left_after: int
    table_me: nightgame.CrewTable
    table_opp: nightgame.CrewTable
    mine: nightgame.HandPlans


def read_night(obs: Observation) -> Night:
    rs = obs.ruleset
    me, opp = obs.side, obs.opponent
    closed = frozenset(obs.closed)
    version = rs.version
    h_me, h_opp = obs.heat[me], obs.heat[opp]
    slugs_me = tuple(sorted(set(obs.decklists[me])))
    slugs_opp = tuple(sorted(set(obs.decklists[opp])))
    night_loot = nightgame.night_loot(rs, obs.loot)
    t_me = nightgame.crew_table(
        version,
        slugs_me,
        h_me,
        h_opp,
        nightgame.relative_winners(rs, obs.last_winners, me),
        closed,
        night=obs.night,
        loot=night_loot,
    )
    t_opp = nightgame.crew_table(
        version,
        slugs_opp,
        h_opp,
        h_me,
        nightgame.relative_winners(rs, obs.last_winners, opp),
        closed,
        night=obs.night,
        loot=night_loot,
    )
    mine = nightgame.hand_plans(
        version,
        tuple(sorted(s for _, s in obs.hand)),
        slugs_me,
        rs.energy_by_heat[h_me],
        h_me < rs.boost_lock_heat,
        closed,
    )
    loot = np.array(
        [0 if v in closed else obs.loot.get(v, 0) for v in rs.vault_slugs], dtype=np.float32
    )
    return Night(
        rs,
        version,
        closed,
        loot,
        h_me,
        h_opp,
        obs.score[me] - obs.score[opp],
        obs.nights - obs.night,
        t_me,
        t_opp,
        mine,
    )


def opponent_plans(night: Night, hands: Sequence[tuple[str, ...]]) -> list[nightgame.HandPlans]:
    rs = night.rs
    energy = rs.energy_by_heat[night.heat_opp]
    boost_ok = night.heat_opp < rs.boost_lock_heat
    return [
        nightgame.hand_plans(
            night.version, h, night.table_opp.slugs, energy, boost_ok, night.closed
        )
        for h in hands
    ]


def payoff(
    night: Night, opp_hps: Sequence[nightgame.HandPlans], kind: str, heat_weight: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The rival's payoff matrix against the stacked opponent plans, and the column starts."""
    nm = outcomes(night, opp_hps, want_heat=kind != "margin")
    return utility(night, nm, kind, heat_weight), column_starts(opp_hps)


def outcomes(
    night: Night, opp_hps: Sequence[nightgame.HandPlans], want_heat: bool = True
) -> nightgame.NightMatrices:
    """Loot margin (and both end Heats) of each of the observer's plans against each of the
    stacked opponent plans."""
    me = nightgame.side_arrays(night.table_me, [night.mine])
    opp = nightgame.side_arrays(night.table_opp, opp_hps)
    return nightgame.night_matrices(
        night.rs, me, opp, night.loot, night.heat_me, night.heat_opp, want_heat=want_heat
    )


def column_starts(opp_hps: Sequence[nightgame.HandPlans]) -> np.ndarray:
    return np.cumsum([0] + [len(h.cfg) for h in opp_hps[:-1]])


def utility(
    night: Night, nm: nightgame.NightMatrices, kind: str, heat_weight: float = 1.0
) -> np.ndarray:
    """The payoff matrix of value ``kind`` from the night's outcomes."""
    if kind == "margin":
        u = nm.margin
    elif kind == "heuristic":
        worth = heat_weight * value.heat_worth(night.rs, night.nights_left_after)
        u = nm.margin + worth[nm.heat_me] - worth[nm.heat_opp]
    else:
        u = value.win_utility(
            night.diff + nm.margin, nm.heat_me, nm.heat_opp, night.rs, night.nights_left_after
        )
    return np.asarray(u, dtype=np.float64)


def style_bias(night: Night, persona: Persona) -> np.ndarray:
    out = np.zeros(len(night.mine.plans))
    for i, (crew, boost) in enumerate(night.mine.plans):
        if boost:
            out[i] += persona.boost_bias
        if len(crew) == 2:
            out[i] += persona.split_bias if crew[0][1] != crew[1][1] else persona.stack_bias
    return out


def near_best_softmax(ev: np.ndarray, noise: float) -> np.ndarray:
    """Softmax with temperature ``noise`` over the plans within ``2 * noise`` of the best;
    noise 0 is the best plan (the first of equals)."""
    best = ev.max()
    if noise <= 0:
        p = np.zeros_like(ev)
        p[int(np.argmax(ev))] = 1.0
        return p
    near = ev >= best - 2.0 * noise
    z = np.where(near, np.exp((ev - best) / noise), 0.0)
    return z / z.sum()


def pick(probs: np.ndarray, stream: Stream) -> int:
    cum = np.cumsum(probs)
    u = beliefs.draw_unit(stream) * cum[-1]
    return min(int(np.searchsorted(cum, u, side="right")), len(probs) - 1)


def greedy_index(hp: nightgame.HandPlans, table: nightgame.CrewTable, loot: np.ndarray) -> int:
    """The greedy bot's plan: most power-weighted loot, as if the other side sent nobody."""
    arr = nightgame.side_arrays(table, [hp])
    score = arr.power[:, 0, :].astype(np.float32) @ loot
    return int(np.argmax(score))


def greedy_columns(
    night: Night, opp_hps: Sequence[nightgame.HandPlans], starts: np.ndarray
) -> np.ndarray:
    """Column of the greedy plan of each opponent hand."""
    return np.array(
        [
            s + greedy_index(h, night.table_opp, night.loot)
            for s, h in zip(starts, opp_hps, strict=True)
        ]
    )


def hand_weights(
    obs: Observation, knobs: Knobs, stream: Stream
) -> tuple[list[tuple[str, ...]], np.ndarray]:
    dist = beliefs.hand_distribution(beliefs.unseen_pool(obs), obs.hand_count[obs.opponent])
    if knobs.beliefs:
        dist = beliefs.reweight_by_last_play(obs, dist)
    hands, w = beliefs.sample_hands(dist, knobs.samples, stream)
    w = np.asarray(w, dtype=np.float64)
    return hands, w / w.sum()


def strategy(
    obs: Observation,
    knobs: Knobs,
    persona: Persona,
    stream: Stream,
    fits: playermodel.HeistFits | None = None,
) -> tuple[Night, np.ndarray]:
    """The level's probability over its distinct plans (crew types, not card ids); ``fits``:
    the player model's work kept from the heist's earlier nights (the same probabilities)."""
    night = read_night(obs)
    n = len(night.mine.plans)
    if n == 1:
        return night, np.ones(1)
    hands, w = hand_weights(obs, knobs, stream)
    opp_hps = opponent_plans(night, hands)
    u, starts = payoff(night, opp_hps, knobs.value, knobs.heat_weight)
    u = u + style_bias(night, persona)[:, None]
    sizes = np.array([len(h.cfg) for h in opp_hps])
    if knobs.opponent == "uniform":
        ev = u @ np.repeat(w / sizes, sizes)
        return night, near_best_softmax(ev, knobs.noise)
    if knobs.opponent == "greedy":
        cols = greedy_columns(night, opp_hps, starts)
        # Mostly greedy, with some uniform play so ties and surprises are not ignored.
        us = knobs.uniform_share
        ev = (1 - us) * (u[:, cols] @ w) + us * (u @ np.repeat(w / sizes, sizes))
        return night, near_best_softmax(ev, knobs.noise)
    game = solve_game(obs, knobs, night, opp_hps, u, starts, w, fits)
    # Purify the long tail of regret matching's average (shares under 2%).
    x = np.where(game.x >= 0.02, game.x, 0.0)
    x /= x.sum()
    if knobs.noise > 0:
        ev = u @ (game.y * np.repeat(w, sizes))
        x = (1 - knobs.noise) * x + knobs.noise * near_best_softmax(ev, 1.0)
    return night, x


@dataclass(slots=True)
class NightGame:
    """The night's Bayesian game as an equilibrium level solves it, from the observer's seat.

    Rows are the observer's distinct plans (``night.mine.plans``), columns the other side's plans
    for each hand it may hold (``opp_hps``, stacked; ``starts``, hand ``weights``). ``x`` is the
    observer's average strategy; the other side plays the model ``model`` for ``share`` of the
    game and ``y`` for the rest (the restricted game, ``solver.rm_plus``). The rival plays
    ``x``; the debrief scores the player's plans against :meth:`opponent_strategy`."""

    night: Night
    opp_hps: list[nightgame.HandPlans]
    u: np.ndarray
    starts: np.ndarray
    weights: np.ndarray
    x: np.ndarray
    y: np.ndarray
    model: np.ndarray | None
    share: float
    # The night's outcomes behind ``u``, both end Heats included (``night_game`` keeps them:
    # the debrief measures the same pairs of plans in its own terms).
    outcomes: nightgame.NightMatrices | None = None

    @property
    def sizes(self) -> np.ndarray:
        return np.array([len(h.cfg) for h in self.opp_hps])

    def opponent_strategy(self) -> np.ndarray:
        """The other side's whole strategy per column (each hand's plans sum to 1): the
        model's share and the best-responding rest."""
        if self.model is None or self.share <= 0:
            return self.y
        return self.share * self.model + (1.0 - self.share) * self.y

    def column_weights(self) -> np.ndarray:
        """Probability of each column: its hand's weight times the plan's share in that hand."""
        return self.opponent_strategy() * np.repeat(self.weights, self.sizes)


def solve_game(
    obs: Observation,
    knobs: Knobs,
    night: Night,
    opp_hps: list[nightgame.HandPlans],
    u: np.ndarray,
    starts: np.ndarray,
    w: np.ndarray,
    fits: playermodel.HeistFits | None = None,
) -> NightGame:
    """Regret matching+ on the payoff ``u`` within the level's work budget, against the player
    model its knobs give (the one solver of the rival and the debrief; ``fits``: the player
    model's work kept from the heist's earlier nights, playermodel.HeistFits)."""
    iterations = knobs.iterations
    if knobs.budget_ms:
        # The time budget is spent as a deterministic amount of work (matrix entries touched),
        # never by reading the clock: the same observation and stream must give the same plan.
        iterations = max(32, min(iterations, int(knobs.budget_ms * WORK_PER_MS / u.size)))
    model, share = player_model(obs, knobs, night, opp_hps, starts, fits)
    x, y = rm_plus(u, starts, w, iterations, model, share)
    return NightGame(night, list(opp_hps), u, starts, w, x, y, model, share)


def night_game(
    obs: Observation,
    knobs: Knobs,
    stream: Stream,
    fits: playermodel.HeistFits | None = None,
) -> NightGame:
    """The night's game from ``obs.side``'s seat, solved as an equilibrium level with
    ``knobs`` solves it (no persona style: the observer's plans as they are), with its
    outcomes. ``fits``: see :func:`solve_game`."""
    night = read_night(obs)
    hands, w = hand_weights(obs, knobs, stream)
    opp_hps = opponent_plans(night, hands)
    nm = outcomes(night, opp_hps)
    u = utility(night, nm, knobs.value, knobs.heat_weight)
    game = solve_game(obs, knobs, night, opp_hps, u, column_starts(opp_hps), w, fits)
    game.outcomes = nm
    return game


def model_share(knobs: Knobs, trust: float) -> float:
    """Share of the restricted game given to the player model: ``PRIOR_TRUST`` (a base for the
    typical player before any evidence; 0 now) rising with how well the model has been
    predicting this player."""
    base = playermodel.PRIOR_TRUST
    return knobs.model_weight * (base + (1.0 - base) * trust)


def player_model(
    obs: Observation,
    knobs: Knobs,
    night: Night,
    opp_hps: Sequence[nightgame.HandPlans],
    starts: np.ndarray,
    fits: playermodel.HeistFits | None = None,
) -> tuple[np.ndarray | None, float]:
    """The modelled player's plan probabilities per hand (stacked like the columns) and the
    share of the restricted game they fill; (None, 0) without a model."""
    if knobs.model == "none" or knobs.model_weight <= 0:
        return None, 0.0
    if knobs.model in ("learn", "learn-fixed"):
        pm = playermodel.build(obs, fits)
        theta, trust = pm.theta, pm.trust
    else:
        theta, trust = playermodel.PRIOR_MEAN, 0.0
    f = playermodel.tonight_features(obs, list(opp_hps), night.table_opp, night.loot)
    # "learn-fixed" gives the model a fixed share whatever its trust: the lab's measure of the
    # safety / exploitation trade-off, not a level.
    share = knobs.model_weight if knobs.model == "learn-fixed" else model_share(knobs, trust)
    return playermodel.predict(theta, f, starts), share


def plan_from(night: Night, obs: Observation, index: int) -> Plan:
    crew, boost = night.mine.plans[index]
    return nightgame.slug_plan_to_plan(crew, boost, obs.hand, night.rs)


def play(
    obs: Observation,
    knobs: Knobs,
    persona: Persona,
    stream: Stream,
    fits: playermodel.HeistFits | None = None,
) -> Plan:
    night, probs = strategy(obs, knobs, persona, stream, fits)
    if len(probs) == 1:
        return plan_from(night, obs, 0)
    return plan_from(night, obs, pick(probs, stream))


def learns(difficulty: str) -> bool:
    """The level fits a model of the player from the heist's history (its work is worth keeping
    from night to night: playermodel.FitsCache)."""
    knobs = get_difficulty(difficulty).knobs
    return knobs.model in ("learn", "learn-fixed") and knobs.model_weight > 0


def choose_plan(
    obs: Observation,
    *,
    persona: str,
    difficulty: str,
    stream: Stream,
    fits: playermodel.HeistFits | None = None,
) -> Plan:
    """The level's plan for ``obs``. ``fits``: the player model's work kept from this heist's
    earlier nights (playermodel.FitsCache); the plan is the same with it or without it."""
    p = get_persona(persona)
    d = get_difficulty(difficulty)
    if obs.finished:
        raise EngineError("heist_finished", "the heist is over")
    return play(obs, d.knobs, p, stream, fits)


# Baseline bots for the tournament (not offered to players).


def random_legal(obs: Observation, stream: Stream) -> Plan:
    plans = obs.legal_plans()
    return plans[stream.randbelow(len(plans))]


def greedy(obs: Observation, stream: Stream) -> Plan:
    night = read_night(obs)
    return plan_from(night, obs, greedy_index(night.mine, night.table_me, night.loot))
