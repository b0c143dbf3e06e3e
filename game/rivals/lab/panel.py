"""A panel of player styles: plausible ways people play, none of them one of the rival levels.

The rival ladder was tuned in rival-against-rival play; these styles are how its levels are
measured against the players people are (issue 15). Each style is a function
``(observation, stream) -> Plan`` that sees only its own side's Observation (as a person does)
and draws any randomness from its own stream, so it plays many hands the same way and replays
identically. Every style plays from either seat.

Styles read a plan the way a person sizing up the board would: each crew's power at its vault
as if the other side sent nobody (``power``), the Heat the plan adds, and the loot showing.
A person does not know the other side's power, so most styles turn power into a rough chance of
taking the vault with :func:`take_chance` (a guess at what the other side usually brings).

The habits (:data:`HABITS`) play fixed rules of thumb; the thinking styles (:data:`THINKERS`,
issue 25) reason about the other side: the hands it can hold (its public deck less its discard
pile), what it can send with each, what it would choose, and the best answer to that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from game.engine.night import Plan
from game.engine.rng import Stream
from game.engine.view import Observation
from game.rivals import beliefs, nightgame, policy
from game.rivals.personas import Persona, list_personas

# A person's guess at the power the other side brings to a vault it contests, and how sure of it
# they are: the chance of taking a vault with power p is a logistic around TYPICAL_POWER.
TYPICAL_POWER = 3.5
SPREAD = 1.2


def take_chance(power: np.ndarray) -> np.ndarray:
    """Rough chance of taking a vault with this much power (zero with nobody there)."""
    p = 1.0 / (1.0 + np.exp(-(power - TYPICAL_POWER) / SPREAD))
    return np.where(power > 0, p, 0.0)


@dataclass(slots=True)
class Board:
    """The observer's night as a person reads it: its distinct plans and simple facts of each."""

    night: policy.Night
    power: np.ndarray  # (n, V) power at each vault, as if the other side sent nobody
    heat_added: np.ndarray  # (n,) Heat change of the plan (Boost, quiet cooling, effects)
    boost: np.ndarray  # (n,) bool
    crew: np.ndarray  # (n,) number of crew sent
    vaults: list[tuple[int, ...]]  # sorted vault indices of the crew


def read_board(obs: Observation) -> Board:
    night = policy.read_night(obs)
    arr = nightgame.side_arrays(night.table_me, [night.mine])
    plans = night.mine.plans
    return Board(
        night,
        arr.power[:, 0, :].astype(np.float64),
        arr.heat[:, 0].astype(np.float64),
        np.array([b for _, b in plans], dtype=bool),
        np.array([len(c) for c, _ in plans]),
        [tuple(sorted(v for _, v in c)) for c, _ in plans],
    )


def likely_loot(board: Board) -> np.ndarray:
    return take_chance(board.power) @ board.night.loot


def pick_best(board: Board, obs: Observation, value: np.ndarray, stream: Stream) -> Plan:
    """The best-valued plan; a person does not split hairs, so plans within 0.05 loot of the best
    are equally likely (drawn from the style's stream)."""
    near = np.flatnonzero(value >= value.max() - 0.05)
    i = int(near[stream.randbelow(len(near))]) if len(near) > 1 else int(near[0])
    return policy.plan_from(board.night, obs, i)


def heat_charge(board: Board, obs: Observation, per_heat: float) -> np.ndarray:
    """What a style charges for the Heat a plan adds (only added Heat counts, not cooling),
    more when already hot (less Energy tomorrow)."""
    hot = 1.0 + 0.25 * obs.heat[obs.side]
    return per_heat * hot * np.maximum(board.heat_added, 0.0)


# --- the styles ------------------------------------------------------------------------------


def loot_chaser(obs: Observation, stream: Stream) -> Plan:
    """Values each plan by the loot it would likely take given its power, and charges Boost for
    the Heat it adds (the player of the issue's outside finding)."""
    board = read_board(obs)
    value = likely_loot(board) - heat_charge(board, obs, 0.35)
    return pick_best(board, obs, value, stream)


def cautious(obs: Observation, stream: Stream) -> Plan:
    """Keeps Heat down: rarely Boosts (only when it is worth well over a loot point), sends one
    crew rather than two unless the second clearly pays."""
    board = read_board(obs)
    value = likely_loot(board) - heat_charge(board, obs, 1.2) - 0.3 * board.crew
    return pick_best(board, obs, value, stream)


def boost_happy(obs: Observation, stream: Stream) -> Plan:
    """Boosts whenever it may (power wins vaults, Heat is tomorrow's problem), and sends the
    crew with the most power-weighted loot."""
    board = read_board(obs)
    value = board.power @ board.night.loot + 100.0 * board.boost
    return pick_best(board, obs, value, stream)


def copycat(obs: Observation, stream: Stream) -> Plan:
    """Copies the other side's last plan: its vaults and its Boost, with its own crew (the
    strongest that fit); on the first night, a loot chaser."""
    if not obs.history:
        return loot_chaser(obs, stream)
    board = read_board(obs)
    last = obs.history[-1]
    theirs = last.player if obs.opponent == "player" else last.rival
    vidx = {v: i for i, v in enumerate(board.night.rs.vault_slugs)}
    want = sorted(vidx[c.vault] for c in theirs.crew)
    value = np.zeros(len(board.vaults))
    for i, vs in enumerate(board.vaults):
        rest = list(want)
        overlap = 0
        for v in vs:
            if v in rest:
                rest.remove(v)
                overlap += 1
        value[i] = 10.0 * overlap - 4.0 * (len(vs) - overlap) - 4.0 * len(rest)
    value += 3.0 * (board.boost == theirs.boost)
    value += 0.1 * (board.power.sum(axis=1))
    return pick_best(board, obs, value, stream)


def richest_double(obs: Observation, stream: Stream) -> Plan:
    """Always doubles up on the richest vault: two crew there (one if only one fits), the
    strongest pair, Boosting while Heat is below 3."""
    board = read_board(obs)
    loot = board.night.loot
    richest = int(np.argmax(loot))  # first of equals, as a person reading left to right
    value = np.zeros(len(board.vaults))
    for i, vs in enumerate(board.vaults):
        here = sum(1 for v in vs if v == richest)
        value[i] = 20.0 * here - 20.0 * (len(vs) - here)
    value += 0.5 * board.power[:, richest]
    want_boost = obs.heat[obs.side] < 3
    value += np.where(board.boost == want_boost, 2.0, 0.0)
    return pick_best(board, obs, value, stream)


def _persona_of(obs: Observation) -> Persona | None:
    deck = tuple(obs.decklists[obs.opponent])
    for p in list_personas():
        if tuple(sorted(p.deck)) == tuple(sorted(deck)):
            return p
    return None


# Hands of the other side a counter-player imagines, and the Heat charge it uses.
COUNTER_SAMPLES = 12


def persona_counter(obs: Observation, stream: Stream) -> Plan:
    """Knows the persona's published habits (its style knobs: Boost-heavy, quiet, splitter...)
    and plays the best answer to them: it imagines the rival's likely hands, has each play the
    habit plan (power-weighted loot plus the persona's biases) and picks its own plan with the
    best expected loot margin against those, less a Heat charge. Against an unknown deck it
    assumes no bias."""
    board = read_board(obs)
    night = board.night
    persona = _persona_of(obs)
    dist = beliefs.hand_distribution(beliefs.unseen_pool(obs), obs.hand_count[obs.opponent])
    hands, w = beliefs.sample_hands(dist, COUNTER_SAMPLES, stream)
    w = np.asarray(w) / sum(w)
    opp_hps = policy.opponent_plans(night, hands)
    cols = []
    for hp in opp_hps:
        arr = nightgame.side_arrays(night.table_opp, [hp])
        score = arr.power[:, 0, :].astype(np.float64) @ night.loot
        if persona is not None:
            for j, (crew, boost) in enumerate(hp.plans):
                if boost:
                    score[j] += 3.0 * persona.boost_bias
                if len(crew) == 2:
                    split = crew[0][1] != crew[1][1]
                    score[j] += 3.0 * (persona.split_bias if split else persona.stack_bias)
        cols.append(int(np.argmax(score)))
    u, starts = policy.payoff(night, opp_hps, "margin")
    ev = u[:, starts + np.asarray(cols)] @ w
    value = ev - heat_charge(board, obs, 0.35)
    return pick_best(board, obs, value, stream)


def creature_of_habit(obs: Observation, stream: Stream) -> Plan:
    """Has a favourite vault (the one it has taken the most loot from, the first vault before
    any) and sends its strongest crew there, a second crew to the richest other vault; Boosts
    while Heat is below 2."""
    board = read_board(obs)
    rs = board.night.rs
    taken = np.zeros(len(rs.vault_slugs))
    for res in obs.history:
        for k, vr in enumerate(res.vaults):
            if vr.winner == obs.side:
                taken[k] += vr.loot
    open_v = [i for i, v in enumerate(rs.vault_slugs) if v not in obs.closed]
    fav = max(open_v, key=lambda i: (taken[i], -i)) if open_v else 0
    others = sorted((i for i in open_v if i != fav), key=lambda i: (-board.night.loot[i], i))
    second = others[0] if others else fav
    value = np.zeros(len(board.vaults))
    for i, vs in enumerate(board.vaults):
        value[i] = 10.0 * (fav in vs) + 3.0 * (second in vs and vs.count(fav) <= 1)
        value[i] -= 10.0 * sum(1 for v in vs if v not in (fav, second))
    value += 0.3 * board.power[:, fav]
    value += np.where(board.boost == (obs.heat[obs.side] < 2), 2.0, 0.0)
    return pick_best(board, obs, value, stream)


# --- styles that think ---------------------------------------------------------------------------
# These reason about the other side the way a careful person does: which hands it can hold (its
# public decklist less its discard pile, the cards it kept last night likelier), what it can send
# with each (its Energy, whether it may Boost, its crew's bonuses tonight) and what it would
# choose, then answer that. None of them knows the rival's hand or plan.

# Hands of the other side a thinking style imagines (all of them when there are fewer).
THINK_SAMPLES = 24


def imagined_hands(
    obs: Observation, board: Board, stream: Stream
) -> tuple[list[nightgame.HandPlans], np.ndarray, np.ndarray, np.ndarray]:
    """The other side's possible hands (weighted by how well each explains its last plan), their
    plans stacked, the hand weights, and the loot margin of each of my plans against each of
    theirs (``u[mine, theirs]``, with every crew's bonuses of tonight)."""
    dist = beliefs.hand_distribution(beliefs.unseen_pool(obs), obs.hand_count[obs.opponent])
    dist = beliefs.reweight_by_last_play(obs, dist)
    hands, w = beliefs.sample_hands(dist, THINK_SAMPLES, stream)
    opp_hps = policy.opponent_plans(board.night, hands)
    u, starts = policy.payoff(board.night, opp_hps, "margin")
    w = np.asarray(w, dtype=np.float64)
    return opp_hps, w / w.sum(), u, starts


def their_likely_loot(board: Board, opp_hps: list[nightgame.HandPlans], obs: Observation):
    """Per imagined hand, the other side's plans valued as a loot chaser values its own: the
    loot its crew would likely take, less a charge for the Heat they add."""
    night = board.night
    hot = 1.0 + 0.25 * obs.heat[obs.opponent]
    out = []
    for hp in opp_hps:
        arr = nightgame.side_arrays(night.table_opp, [hp])
        power = arr.power[:, 0, :].astype(np.float64)
        added = np.maximum(arr.heat[:, 0].astype(np.float64), 0.0)
        out.append(take_chance(power) @ night.loot - 0.35 * hot * added)
    return out


def hand_reader(obs: Observation, stream: Stream) -> Plan:
    """Reads the rival's hand: it lists the hands the rival can hold (its deck less its discard
    pile, the cards it kept last night likelier), reckons the rival sends, from each, the plan
    that would likely take it the most loot, and plays its own best answer to that spread of
    plans (loot margin, less a Heat charge)."""
    board = read_board(obs)
    opp_hps, w, u, starts = imagined_hands(obs, board, stream)
    cols = starts + np.array([int(np.argmax(v)) for v in their_likely_loot(board, opp_hps, obs)])
    value = u[:, cols] @ w - heat_charge(board, obs, 0.35)
    return pick_best(board, obs, value, stream)


def second_guesser(obs: Observation, stream: Stream) -> Plan:
    """Thinks one step further: it expects the rival to have read it as a loot chaser, so for
    each hand the rival can hold it works out the rival's best answer to its own most obvious
    plan (the likely-loot one), and plays its best answer to those answers (likely loot breaks
    ties)."""
    board = read_board(obs)
    _, w, u, starts = imagined_hands(obs, board, stream)
    obvious = int(np.argmax(likely_loot(board) - heat_charge(board, obs, 0.35)))
    sizes = np.diff(np.append(starts, u.shape[1]))
    cols = []
    for s, n in zip(starts, sizes, strict=True):
        cols.append(s + int(np.argmin(u[obvious, s : s + n])))  # the rival's best reply
    value = u[:, np.asarray(cols)] @ w - heat_charge(board, obs, 0.35)
    value += 0.1 * likely_loot(board)  # a tie-break, not a habit
    return pick_best(board, obs, value, stream)


def worst_case(obs: Observation, stream: Stream) -> Plan:
    """Plays safe against what the rival could do: for each hand the rival can hold it takes
    the rival's three likeliest plans (by the loot they would likely take), and values its
    own plans half by the average and half by the worst margin against them, so it sends its
    crew where the rival is least able to beat them."""
    board = read_board(obs)
    opp_hps, w, u, starts = imagined_hands(obs, board, stream)
    avg = np.zeros(u.shape[0])
    worst = np.zeros(u.shape[0])
    for s, v, wt in zip(starts, their_likely_loot(board, opp_hps, obs), w, strict=True):
        top = s + np.argsort(-v, kind="stable")[:3]
        avg += wt * u[:, top].mean(axis=1)
        worst += wt * u[:, top].min(axis=1)
    value = 0.5 * avg + 0.5 * worst - heat_charge(board, obs, 0.35)
    return pick_best(board, obs, value, stream)


def switcher(obs: Observation, stream: Stream) -> Plan:
    """Changes style halfway: plays cautious for the first half of the heist, then turns
    Boost-happy (a test of a rival that models the player: what it learned stops being true)."""
    if obs.night <= obs.nights // 2:
        return cautious(obs, stream)
    return boost_happy(obs, stream)


def noisy_mix(obs: Observation, stream: Stream) -> Plan:
    """A player without one habit: each night a fifth of the time a random legal plan, otherwise
    one of the other styles drawn at random."""
    if stream.randbelow(5) == 0:
        return policy.random_legal(obs, stream)
    pool = [s for name, s in STYLES.items() if name in HABITS]
    return pool[stream.randbelow(len(pool))](obs, stream)


Style = Callable[[Observation, Stream], Plan]

STYLES: dict[str, Style] = {
    "loot-chaser": loot_chaser,
    "cautious": cautious,
    "boost-happy": boost_happy,
    "copycat": copycat,
    "richest-double": richest_double,
    "persona-counter": persona_counter,
    "creature-of-habit": creature_of_habit,
    "switcher": switcher,
    "noisy-mix": noisy_mix,
    "hand-reader": hand_reader,
    "second-guesser": second_guesser,
    "worst-case": worst_case,
}

# The styles noisy-mix draws from: the habits, as before the thinking styles were added.
HABITS = (
    "loot-chaser",
    "cautious",
    "boost-happy",
    "copycat",
    "richest-double",
    "persona-counter",
    "creature-of-habit",
)
# The styles that reason about what the other side can hold and send.
THINKERS = ("persona-counter", "hand-reader", "second-guesser", "worst-case")

STYLE_NOTES: dict[str, str] = {
    name: (fn.__doc__ or "").split("\n\n")[0] for name, fn in STYLES.items()
}


def describe(name: str) -> str:
    return " ".join(STYLE_NOTES[name].split())


def is_style(bot: str) -> bool:
    return bot in STYLES


def play(bot: str, obs: Observation, stream: Stream) -> Plan:
    return STYLES[bot](obs, stream)
