"""The tournament's games: the bots, their seats and decks, each seed played in duplicate, and
the run over worker processes."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing as mp
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from game.engine import DEFAULT_VERSION, PLAYER, RIVAL, Stream, new_heist, observe, resolve
from game.engine.night import Plan
from game.engine.view import Observation
from game.rivals import policy
from game.rivals.lab import panel
from game.rivals.lab.tournament.statistics import bradley_terry
from game.rivals.personas import Knobs, get_difficulty, get_persona, list_personas

BOTS = ("random", "greedy", "rookie", "hustler", "safecracker", "kingpin")
LEVELS = ("rookie", "hustler", "safecracker", "kingpin")
RULESET = DEFAULT_VERSION  # new heists' ruleset (the rivals' decks are base-set crew)


# Extra bots by name (knob variants for experiments); forked workers inherit them.
# ``kingpin-before`` is Kingpin as it played before it modelled the player (issue 15).
EXTRA_BOTS: dict[str, Knobs] = {
    "kingpin-before": dataclasses.replace(
        get_difficulty("kingpin").knobs, model="none", model_weight=0.0
    )
}

# Who plays the panel: the four levels and Kingpin before opponent modelling.
PANEL_LEVELS = (*LEVELS, "kingpin-before")


def fixed_share_bot(name: str) -> Knobs | None:
    """``kingpin@S``: Kingpin with its player model's share fixed at S whatever the model's
    trust (the exploitation side of the safety trade-off; S = 0 is the equilibrium)."""
    level, sep, share = name.partition("@")
    if not sep:
        return None
    return dataclasses.replace(
        get_difficulty(level).knobs, model="learn-fixed", model_weight=float(share)
    )


def bot_move(bot: str, obs: Observation, persona: str, stream: Stream) -> Plan:
    if "@" in bot and bot not in EXTRA_BOTS:
        EXTRA_BOTS[bot] = fixed_share_bot(bot)  # type: ignore[assignment]
    if panel.is_style(bot):
        return panel.play(bot, obs, stream)
    if bot in EXTRA_BOTS:
        return policy.play(obs, EXTRA_BOTS[bot], get_persona(persona), stream)
    if bot == "random":
        return policy.random_legal(obs, stream)
    if bot == "greedy":
        return policy.greedy(obs, stream)
    return policy.choose_plan(obs, persona=persona, difficulty=bot, stream=stream)


def seat_personas(seed: int) -> tuple[str, str]:
    """The decks for the player seat and the rival seat of a seed (every ordered pair of
    personas, cycling)."""
    ps = [p.slug for p in list_personas()]
    n = len(ps)
    return ps[seed % n], ps[(seed // n) % n]


@dataclass
class GameStats:
    boosts: int = 0
    nights: int = 0
    heat_sum: int = 0
    crew: Counter = field(default_factory=Counter)


@dataclass
class GameRecord:
    pairing: tuple[str, str]
    seed: int
    swapped: bool
    score_a: float  # 1 win, 0.5 draw, 0 loss for bot a
    stats: dict[tuple[str, str], GameStats]  # (bot, persona) -> stats
    times: dict[str, list[float]]


def play_game(a: str, b: str, seed: int, swapped: bool) -> GameRecord:
    """Bot ``a`` against bot ``b`` on seed ``seed``; ``a`` sits in the player seat unless
    ``swapped``. Seat decks are fixed by the seed, so a swap also swaps the decks the bots hold."""
    deck_p, deck_r = seat_personas(seed)
    personas = {p.slug: p for p in list_personas()}
    seat_bot = {PLAYER: b if swapped else a, RIVAL: a if swapped else b}
    seat_persona = {PLAYER: deck_p, RIVAL: deck_r}
    state = new_heist(
        ruleset=RULESET,
        player_deck=personas[deck_p].deck,
        rival_deck=personas[deck_r].deck,
        server_seed=f"veyltak-tournament-{seed}",
    )
    key = hashlib.sha256(f"tournament/{seed}/{int(swapped)}".encode()).digest()
    stats = {(seat_bot[s], seat_persona[s]): GameStats() for s in (PLAYER, RIVAL)}
    times: dict[str, list[float]] = defaultdict(list)
    while not state.finished:
        plans = {}
        for side in (PLAYER, RIVAL):
            obs = observe(state, side)
            stream = Stream(key, f"{side}/{state.night}")
            t0 = time.perf_counter()
            plans[side] = bot_move(seat_bot[side], obs, seat_persona[side], stream)
            times[seat_bot[side]].append(time.perf_counter() - t0)
            st = stats[(seat_bot[side], seat_persona[side])]
            st.nights += 1
            st.boosts += plans[side].boost
            st.heat_sum += obs.heat[side]
            for card, _ in plans[side].crew:
                st.crew[obs.decklists[side][card]] += 1
        state, _ = resolve(state, plans)
    p, r = state.sides[0].score, state.sides[1].score
    a_seat_score = p - r if not swapped else r - p
    score_a = 1.0 if a_seat_score > 0 else 0.5 if a_seat_score == 0 else 0.0
    return GameRecord((a, b), seed, swapped, score_a, stats, dict(times))


def _task(args: tuple[str, str, int]) -> tuple[GameRecord, GameRecord]:
    a, b, seed = args
    return play_game(a, b, seed, False), play_game(a, b, seed, True)


@dataclass
class Results:
    bots: tuple[str, ...]
    seeds: range
    records: list[GameRecord]
    seconds: float
    # The player-style panel (issue 15): levels played against styles on their own seeds.
    panel_levels: tuple[str, ...] = ()
    panel_styles: tuple[str, ...] = ()
    panel_seeds: range = range(0)

    def pair_scores(self) -> dict[tuple[str, str], list[float]]:
        by: dict[tuple[tuple[str, str], int], list[float]] = defaultdict(list)
        for r in self.records:
            by[(r.pairing, r.seed)].append(r.score_a)
        out: dict[tuple[str, str], list[float]] = defaultdict(list)
        for (pairing, _), s in sorted(by.items()):
            out[pairing].append(sum(s) / len(s))
        return out

    def ladder(self, reps: int = 200) -> dict[str, tuple[float, float, float]]:
        # Bots against bots only: the panel's games are reported apart.
        ps = {k: v for k, v in self.pair_scores().items() if set(k) <= set(self.bots)}
        games = {k: 2 * len(v) for k, v in ps.items()}
        point = bradley_terry(self.bots, {k: 2 * sum(v) for k, v in ps.items()}, games)
        rng = np.random.default_rng(12345)
        boot = defaultdict(list)
        arrays = {k: np.asarray(v) for k, v in ps.items()}
        for _ in range(reps):
            wins = {}
            for k, v in arrays.items():
                wins[k] = 2 * float(v[rng.integers(0, len(v), len(v))].sum())
            for name, val in bradley_terry(self.bots, wins, games).items():
                boot[name].append(val)
        return {
            n: (point[n], float(np.percentile(boot[n], 2.5)), float(np.percentile(boot[n], 97.5)))
            for n in self.bots
        }


def run(
    bots: Sequence[str],
    seeds: range,
    workers: int,
    pairings: Sequence[tuple[str, str]] | None = None,
    progress: bool = True,
    panel_levels: Sequence[str] = (),
    panel_styles: Sequence[str] = (),
    panel_seeds: range = range(0),
) -> Results:
    if pairings is None:
        pairings = list(combinations(bots, 2))
    tasks = [(a, b, s) for s in seeds for a, b in pairings]
    tasks += [(lv, st, s) for s in panel_seeds for lv in panel_levels for st in panel_styles]
    records: list[GameRecord] = []
    t0 = time.perf_counter()
    bar: Callable = _bar(progress, len(tasks))
    if workers <= 1:
        for t in tasks:
            records.extend(_task(t))
            bar()
    else:
        ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
        with ctx.Pool(workers) as pool:
            for pair in pool.imap_unordered(_task, tasks, chunksize=4):
                records.extend(pair)
                bar()
    bar(close=True)
    return Results(
        tuple(bots),
        seeds,
        records,
        time.perf_counter() - t0,
        tuple(panel_levels),
        tuple(panel_styles),
        panel_seeds,
    )


def _bar(enabled: bool, total: int) -> Callable:
    if not enabled:
        return lambda close=False: None
    from tqdm import tqdm

    t = tqdm(total=total, unit="seed pair", smoothing=0.05)

    def step(close: bool = False) -> None:
        if close:
            t.close()
        else:
            t.update(1)

    return step
