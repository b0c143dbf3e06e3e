"""Round-robin tournament between the rival levels and two baseline bots.

    python -m game.rivals.lab.tournament --pairs 1000 --workers 2

Every seed is played in duplicate: the same heist seed (same shuffles, same loot) twice, with the
two bots swapping seats and decks, so deck and seat luck cancel within a seed pair. Score = wins +
half draws; 95% intervals come from the spread of seed-pair scores. A Bradley-Terry ladder is
fitted over all pairings with bootstrap intervals (seed pairs resampled). Writes a Markdown report
and a PNG plot of the ladder.

Both seats are played by policies, each given only ``observe(state, its side)``.
"""

from __future__ import annotations

import argparse
import dataclasses
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

from game.engine import DEFAULT_VERSION, PLAYER, RIVAL, Stream, new_heist, observe, resolve
from game.engine.night import Plan
from game.engine.view import Observation
from game.rivals import policy
from game.rivals.lab import panel
from game.rivals.personas import (
    Knobs,
    get_difficulty,
    get_persona,
    list_difficulties,
    list_personas,
)

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


# --- report -------------------------------------------------------------------------------


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


# Issue 15 (and 25, which raised the floor to 0.70 and added the thinking styles): against
# every panel style the score rises level by level, Kingpin at least
# KINGPIN_VS_STYLE against each and KINGPIN_PANEL_MEAN on average.
KINGPIN_VS_STYLE = 0.70
KINGPIN_PANEL_MEAN = 0.75


def panel_gates(res: Results) -> list[tuple[str, bool, str]]:
    ps = res.pair_scores()
    out = []
    levels = [lv for lv in LEVELS if lv in res.panel_levels]
    kingpin = []
    for st in res.panel_styles:
        sc = [score_of(ps, lv, st) for lv in levels]
        if any(x is None for x in sc):
            continue
        rising = all(a[0] < b[0] for a, b in pairwise(sc))
        out.append(
            (
                f"vs {st}: score rises level by level",
                rising,
                " < ".join(f"{x[0]:.3f}" for x in sc),
            )
        )
        if "kingpin" in levels:
            k = sc[levels.index("kingpin")]
            kingpin.append(k[0])
            out.append(
                (
                    f"kingpin >= {KINGPIN_VS_STYLE} vs {st}",
                    k[0] >= KINGPIN_VS_STYLE,
                    f"{k[0]:.3f} [{k[1]:.3f} - {k[2]:.3f}]",
                )
            )
    if kingpin:
        mean = float(np.mean(kingpin))
        out.append(
            (
                f"kingpin >= {KINGPIN_PANEL_MEAN} on average over the panel",
                mean >= KINGPIN_PANEL_MEAN,
                f"{mean:.3f}",
            )
        )
    return out


def gates(res: Results) -> list[tuple[str, bool, str]]:
    ps = res.pair_scores()

    def score(a: str, b: str) -> tuple[float, float, float] | None:
        return score_of(ps, a, b)

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
    if not any(set(k) <= set(res.bots) for k in ps):
        return out + panel_gates(res)
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
    return out + panel_gates(res)


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
    "hands, mixed half and half with uniform play; values end Heat at half the hand-set worth; "
    "softmax noise 0.6 over near-best plans",
    "safecracker": "regret-matching+ equilibrium of the night's Bayesian game (its plans vs the "
    "player's plans for each sampled hand), loot margin + hand-set worth of both end Heats; "
    "plays the mixed strategy, with a little near-best noise; a light touch of the player model "
    "(restricted game, share up to the model weight times its trust)",
    "kingpin": "the same game over every hand the player can hold (sampled only when there are "
    "more than 64), hand beliefs re-weighted by the player's last revealed plan, Heat worth "
    "fitted from self-play (value.json), exact win/draw/loss on the last night, a fixed work "
    "budget instead of a clock so play stays deterministic; no noise. Models how this player "
    "chooses from the plans revealed in this heist (playermodel.py) and answers the model in a "
    "restricted game: the player is held to the model for a share that grows with how well "
    "the model has been predicting (prequential trust), and best-responds with the rest",
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
        "beliefs | noise | player model (max share) | how it plays |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in list_difficulties():
        k = d.knobs
        model = "none" if k.model == "none" else f"{k.model} ({k.model_weight})"
        lines.append(
            f"| {d.name} | {k.capability} | {k.samples} | {k.opponent} | {k.value} | "
            f"{k.iterations} | {k.budget_ms} | {'yes' if k.beliefs else 'no'} | {k.noise} | "
            f"{model} | {LEVEL_NOTES.get(d.slug, '')} |"
        )
    lines += [
        "",
        "Baselines: `random` plays a uniformly random legal plan; `greedy` sends the plan with the "
        "most power-weighted loot as if the other side sent nobody.",
        "",
    ]
    return lines


def panel_section(res: Results) -> list[str]:
    """The panel: what each style does, each level against each style, old and new Kingpin."""
    if not res.panel_styles:
        return []
    ps = res.pair_scores()
    n = len(res.panel_seeds)
    lines = [
        "## Against the player-style panel",
        "",
        f"Seeds {res.panel_seeds.start}..{res.panel_seeds.stop - 1} ({n} seed pairs, {2 * n} "
        "games per cell), played in duplicate like the pairings above; the style holds the "
        "other seat's persona deck. Styles live in `game/rivals/lab/panel.py`; each sees only "
        "its own Observation and draws from its own stream, so it plays many hands the same "
        "way.",
        "",
        "| style | how it plays |",
        "|---|---|",
    ]
    for st in res.panel_styles:
        lines.append(f"| {st} | {panel.describe(st)} |")
    lines += [
        "",
        "Score of the level (row) against the style (column), 95% interval below it:",
        "",
        "| level | " + " | ".join(res.panel_styles) + " | mean |",
        "|---|" + "---|" * (len(res.panel_styles) + 1),
    ]
    for lv in res.panel_levels:
        cells = []
        means = []
        for st in res.panel_styles:
            sc = score_of(ps, lv, st)
            if sc is None:
                cells.append("")
                continue
            means.append(sc[0])
            cells.append(f"{sc[0]:.3f}<br>{sc[1]:.2f}-{sc[2]:.2f}")
        mean = f"{np.mean(means):.3f}" if means else ""
        lines.append(f"| {lv} | " + " | ".join(cells) + f" | {mean} |")
    old, new = "kingpin-before", "kingpin"
    if old in res.panel_levels and new in res.panel_levels:
        lines += [
            "",
            f"Kingpin before and after opponent modelling (`{old}` is the 2026-11 Kingpin, "
            "kept as a knob setting: no player model), same seeds:",
            "",
            "| style | Kingpin before | 95% interval | Kingpin now | 95% interval | change |",
            "|---|---|---|---|---|---|",
        ]
        for st in res.panel_styles:
            a, b = score_of(ps, old, st), score_of(ps, new, st)
            if a and b:
                lines.append(
                    f"| {st} | {a[0]:.3f} | {a[1]:.3f} - {a[2]:.3f} | {b[0]:.3f} | "
                    f"{b[1]:.3f} - {b[2]:.3f} | {b[0] - a[0]:+.3f} |"
                )
    lines += ["", "![panel](rivals-panel.png)", ""]
    return lines


def plot_panel(res: Results, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ps = res.pair_scores()
    styles = list(res.panel_styles)
    levels = list(res.panel_levels)
    fig, ax = plt.subplots(figsize=(8, 3.8), dpi=120)
    width = 0.8 / max(1, len(levels))
    for k, lv in enumerate(levels):
        xs, ms, los, his = [], [], [], []
        for i, st in enumerate(styles):
            sc = score_of(ps, lv, st)
            if sc:
                xs.append(i + (k - (len(levels) - 1) / 2) * width)
                ms.append(sc[0])
                los.append(sc[0] - sc[1])
                his.append(sc[2] - sc[0])
        ax.errorbar(xs, ms, yerr=[los, his], fmt="o", capsize=3, label=lv, markersize=4)
    ax.axhline(KINGPIN_VS_STYLE, color="grey", lw=0.8, ls="--")
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set_xticks(range(len(styles)), styles, rotation=25, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("rival score (95% interval)")
    ax.set_title("VEYLTAK rival levels against the player-style panel")
    ax.legend(fontsize=7, ncol=len(levels), loc="lower center")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_report(res: Results, out_dir: Path, command: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    ps = {k: v for k, v in res.pair_scores().items() if set(k) <= set(res.bots)}
    lad = res.ladder() if ps else {}
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
    for name in res.panel_levels:
        if name not in lad and times[name]:
            ms = 1000 * float(np.median(times[name]))
            lines.append(f"| {name} (panel games only) | | | {ms:.1f} |")
    lines += ["", "![ladder](rivals-ladder.png)", ""]
    lines += panel_section(res)
    lines += ["## Personas (all four levels)", ""]
    lines += persona_table(res)
    lines += extra_sections(out_dir)
    path = out_dir / "rivals.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if lad:
        plot_ladder(lad, out_dir / "rivals-ladder.png")
    if res.panel_styles:
        plot_panel(res, out_dir / "rivals-panel.png")
    return path


def extra_sections(out_dir: Path) -> list[str]:
    """Hand-written parts of the report (speed, exploitability, notes) kept in
    ``rivals-notes.md`` beside it, so regenerating the tables does not lose them."""
    notes = out_dir / "rivals-notes.md"
    if not notes.exists():
        return []
    return ["", notes.read_text("utf-8").rstrip(), ""]


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
    ap = argparse.ArgumentParser(prog="python -m game.rivals.lab.tournament", description=__doc__)
    ap.add_argument("--pairs", type=int, default=1000, help="seed pairs per pairing (2 games)")
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--bots", default=",".join(BOTS))
    ap.add_argument("--only", default="", help="comma list of a:b pairings to play")
    ap.add_argument(
        "--panel-pairs", type=int, default=0, help="seed pairs per (level, style) panel cell"
    )
    ap.add_argument("--panel-levels", default=",".join(PANEL_LEVELS))
    ap.add_argument("--styles", default=",".join(panel.STYLES))
    ap.add_argument("--out", default="docs")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    bots = tuple(args.bots.split(","))
    for bot in (*bots, *args.panel_levels.split(",")):
        known = bot in ("random", "greedy") or bot in EXTRA_BOTS
        if not known and fixed_share_bot(bot) is None:
            get_difficulty(bot)  # raises for an unknown level
    pairings = [tuple(p.split(":")) for p in args.only.split(",")] if args.only else None
    seeds = range(args.seed_start, args.seed_start + args.pairs)
    panel_levels = tuple(args.panel_levels.split(",")) if args.panel_pairs else ()
    styles = tuple(args.styles.split(",")) if args.panel_pairs else ()
    for st in styles:
        if not panel.is_style(st):
            ap.error(f"unknown style {st!r}; styles: {', '.join(panel.STYLES)}")
    res = run(
        bots,
        seeds,
        args.workers,
        pairings,
        progress=not args.no_progress,
        panel_levels=panel_levels,
        panel_styles=styles,
        panel_seeds=range(args.seed_start, args.seed_start + args.panel_pairs),
    )
    cmd = "python -m game.rivals.lab.tournament " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    path = write_report(res, Path(args.out), cmd.strip())
    for name, ok, fig in gates(res):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {fig}")
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
