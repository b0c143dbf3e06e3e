"""Round-robin tournament between the rival levels and two baseline bots.

    python -m game.rivals.tournament --pairs 1000 --workers 2

Every seed is played in duplicate: the same heist seed (same shuffles, same loot) twice, with the
two bots swapping seats and decks, so deck and seat luck cancel within a seed pair. Score = wins +
half draws; 95% intervals come from the spread of seed-pair scores. A Bradley-Terry ladder is
fitted over all pairings with bootstrap intervals (seed pairs resampled). Writes a Markdown report
and a PNG plot of the ladder.

Both seats are played by policies, each given only ``observe(state, its side)``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import multiprocessing as mp
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np

from game.engine import PLAYER, RIVAL, Stream, new_heist, observe, resolve
from game.engine.night import Plan
from game.engine.view import Observation
from game.rivals import policy
from game.rivals.personas import (
    Knobs,
    get_difficulty,
    get_persona,
    list_difficulties,
    list_personas,
)

BOTS = ("random", "greedy", "rookie", "hustler", "safecracker", "kingpin")
LEVELS = ("rookie", "hustler", "safecracker", "kingpin")
RULESET = "2026.11"


# Extra bots by name (knob variants for experiments); forked workers inherit them.
EXTRA_BOTS: dict[str, Knobs] = {}


def bot_move(bot: str, obs: Observation, persona: str, stream: Stream) -> Plan:
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


# --- statistics ---------------------------------------------------------------------------


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


@dataclass
class Results:
    bots: tuple[str, ...]
    seeds: range
    records: list[GameRecord]
    seconds: float

    def pair_scores(self) -> dict[tuple[str, str], list[float]]:
        by: dict[tuple[tuple[str, str], int], list[float]] = defaultdict(list)
        for r in self.records:
            by[(r.pairing, r.seed)].append(r.score_a)
        out: dict[tuple[str, str], list[float]] = defaultdict(list)
        for (pairing, _), s in sorted(by.items()):
            out[pairing].append(sum(s) / len(s))
        return out

    def ladder(self, reps: int = 200) -> dict[str, tuple[float, float, float]]:
        ps = self.pair_scores()
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
) -> Results:
    if pairings is None:
        pairings = list(combinations(bots, 2))
    tasks = [(a, b, s) for s in seeds for a, b in pairings]
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
    return Results(tuple(bots), seeds, records, time.perf_counter() - t0)


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


# --- report -------------------------------------------------------------------------------


def gates(res: Results) -> list[tuple[str, bool, str]]:
    ps = res.pair_scores()

    def score(a: str, b: str) -> tuple[float, float, float] | None:
        if (a, b) in ps:
            return pair_summary(ps[(a, b)])
        if (b, a) in ps:
            m, lo, hi = pair_summary(ps[(b, a)])
            return 1 - m, 1 - hi, 1 - lo
        return None

    out = []
    for lower, upper in pairwise(LEVELS):
        s = score(upper, lower)
        if s:
            ok = s[0] >= 0.55 and s[1] > 0.52
            out.append(
                (f"{upper} >= 0.55 vs {lower}, lower bound > 0.52", ok, f"{s[0]:.3f} [{s[1]:.3f}]")
            )
    s = score("kingpin", "rookie")
    if s:
        out.append(("kingpin >= 0.65 vs rookie", s[0] >= 0.65, f"{s[0]:.3f}"))
    for lv in LEVELS:
        s = score(lv, "random")
        if s:
            out.append((f"{lv} >= 0.75 vs random-legal", s[0] >= 0.75, f"{s[0]:.3f}"))
    lad = res.ladder(reps=100)
    order = [lv for lv in LEVELS if lv in lad]
    strict = all(lad[a][0] < lad[b][0] for a, b in pairwise(order))
    out.append(
        (
            "ladder strictly ordered rookie < hustler < safecracker < kingpin",
            strict,
            " < ".join(f"{lv} {lad[lv][0]:+.2f}" for lv in order),
        )
    )
    return out


def persona_table(res: Results) -> list[str]:
    agg: dict[str, GameStats] = defaultdict(GameStats)
    for r in res.records:
        for (bot, persona), st in r.stats.items():
            if bot in LEVELS:
                a = agg[persona]
                a.boosts += st.boosts
                a.nights += st.nights
                a.heat_sum += st.heat_sum
                a.crew.update(st.crew)
    names = {p.slug: p.name for p in list_personas()}
    lines = [
        "| persona | nights played | Boost rate | average Heat | most-played crew |",
        "|---|---|---|---|---|",
    ]
    for slug in names:
        a = agg.get(slug)
        if not a or not a.nights:
            continue
        top = ", ".join(f"{c} ({n})" for c, n in a.crew.most_common(2))
        lines.append(
            f"| {names[slug]} | {a.nights} | {a.boosts / a.nights:.2f} | "
            f"{a.heat_sum / a.nights:.2f} | {top} |"
        )
    return lines


LEVEL_NOTES = {
    "rookie": "expected loot margin against a uniformly random opponent over a few sampled "
    "hands; softmax noise over plans within 2 x noise loot of the best",
    "hustler": "best response to a greedy opponent (most power-weighted loot) over more sampled "
    "hands, mixed with a quarter of uniform play; values end Heat at half the hand-set worth",
    "safecracker": "regret-matching+ equilibrium of the night's Bayesian game (its plans vs the "
    "player's plans for each sampled hand), loot margin + hand-set worth of both end Heats; "
    "plays the mixed strategy, with a little near-best noise",
    "kingpin": "the same game over every hand the player can hold (sampled only when there are "
    "more than 64), hand beliefs re-weighted by the player's last revealed plan, Heat worth "
    "fitted from self-play (value.json), exact win/draw/loss on the last night, a fixed work "
    "budget instead of a clock so play stays deterministic; no noise",
}


def levels_section() -> list[str]:
    lines = [
        "## The levels",
        "",
        "Every level sees only its own `Observation` and its own random stream (a test resamples "
        "the player's hand, both draw orders and all future loot for 1,000 positions and gets "
        "the same plan). Knobs live in `game/rivals/personas.json`; capability (samples, "
        "regret-matching rounds, budget) rises and noise falls with the level.",
        "",
        "| level | capability | samples | opponent model | value | RM+ rounds | budget ms | "
        "beliefs | noise | how it plays |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in list_difficulties():
        k = d.knobs
        lines.append(
            f"| {d.name} | {k.capability} | {k.samples} | {k.opponent} | {k.value} | "
            f"{k.iterations} | {k.budget_ms} | {'yes' if k.beliefs else 'no'} | {k.noise} | "
            f"{LEVEL_NOTES.get(d.slug, '')} |"
        )
    lines += [
        "",
        "Baselines: `random` plays a uniformly random legal plan; `greedy` sends the plan with the "
        "most power-weighted loot as if the other side sent nobody.",
        "",
    ]
    return lines


def write_report(res: Results, out_dir: Path, command: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    ps = res.pair_scores()
    lad = res.ladder()
    times: dict[str, list[float]] = defaultdict(list)
    for r in res.records:
        for bot, ts in r.times.items():
            times[bot].extend(ts)
    lines = [
        "# The rival: tournament report",
        "",
        f"Command: `{command}`",
        "",
        f"Date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}; seeds "
        f"{res.seeds.start}..{res.seeds.stop - 1} ({len(res.seeds)} seed pairs, "
        f"{2 * len(res.seeds)} games per pairing); ruleset {RULESET}; "
        f"{len(res.records)} games in {res.seconds / 60:.1f} min.",
        "",
        "Each seed is played twice with seats (and decks) swapped; decks cycle through every "
        "ordered pair of personas. Score = wins + half draws for the row bot; 95% interval from "
        "the spread of seed-pair scores.",
        "",
        *levels_section(),
        "## Pairings",
        "",
        "| bot A | bot B | games | score A | 95% interval |",
        "|---|---|---|---|---|",
    ]
    for (a, b), v in ps.items():
        m, lo, hi = pair_summary(v)
        lines.append(f"| {a} | {b} | {2 * len(v)} | {m:.3f} | {lo:.3f} - {hi:.3f} |")
    lines += [
        "",
        "## Gates",
        "",
        "| gate | pass | figure |",
        "|---|---|---|",
    ]
    for name, ok, fig in gates(res):
        lines.append(f"| {name} | {'yes' if ok else '**no**'} | {fig} |")
    lines += [
        "",
        "## Bradley-Terry ladder",
        "",
        "Log-strength (mean 0) with 95% bootstrap intervals (seed pairs resampled, 200 times).",
        "",
        "| bot | strength | 95% interval | median ms / decision |",
        "|---|---|---|---|",
    ]
    for name, (m, lo, hi) in sorted(lad.items(), key=lambda kv: kv[1][0]):
        ms = 1000 * float(np.median(times[name])) if times[name] else float("nan")
        lines.append(f"| {name} | {m:+.2f} | {lo:+.2f} .. {hi:+.2f} | {ms:.1f} |")
    lines += ["", "![ladder](rivals-ladder.png)", "", "## Personas (all four levels)", ""]
    lines += persona_table(res)
    path = out_dir / "rivals.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plot_ladder(lad, out_dir / "rivals-ladder.png")
    return path


def plot_ladder(lad: dict[str, tuple[float, float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = sorted(lad.items(), key=lambda kv: kv[1][0])
    names = [k for k, _ in items]
    m = np.array([v[0] for _, v in items])
    lo = np.array([v[1] for _, v in items])
    hi = np.array([v[2] for _, v in items])
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=120)
    ax.errorbar(m, range(len(names)), xerr=[m - lo, hi - m], fmt="o", capsize=4)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("Bradley-Terry log-strength (95% bootstrap interval)")
    ax.set_title("VEYLTAK rival ladder")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m game.rivals.tournament", description=__doc__)
    ap.add_argument("--pairs", type=int, default=1000, help="seed pairs per pairing (2 games)")
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--bots", default=",".join(BOTS))
    ap.add_argument("--only", default="", help="comma list of a:b pairings to play")
    ap.add_argument("--out", default="docs")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    bots = tuple(args.bots.split(","))
    for bot in bots:
        if bot not in ("random", "greedy"):
            get_difficulty(bot)
    pairings = [tuple(p.split(":")) for p in args.only.split(",")] if args.only else None
    seeds = range(args.seed_start, args.seed_start + args.pairs)
    res = run(bots, seeds, args.workers, pairings, progress=not args.no_progress)
    cmd = "python -m game.rivals.tournament " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    path = write_report(res, Path(args.out), cmd.strip())
    for name, ok, fig in gates(res):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {fig}")
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
