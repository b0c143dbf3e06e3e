"""Fit Kingpin's value function from self-play and store it in ``value.json``.

    python -m game.rivals.lab.fit_value --games 800 --workers 2

Self-play: Safecracker against Safecracker over every ordered pair of persona decks. At the start
of every night after the first, from both seats, we record the nights left, both Heats and the
loot that side went on to win minus the loot the other side went on to win from there on. A
least-squares fit per number of nights left gives the worth of each Heat (antisymmetric: my Heat
h counts +w[h], theirs -w[h], w[0] = 0), in loot. The data file is small and versioned with the
package; re-run this after a ruleset change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
from pathlib import Path

import numpy as np

from game.engine import (
    PLAYER,
    RIVAL,
    Stream,
    available_versions,
    get_ruleset,
    new_heist,
    observe,
    resolve,
)
from game.rivals import policy
from game.rivals.lab.tournament import RULESET, seat_personas
from game.rivals.personas import get_difficulty, get_persona, list_personas

OUT = Path(__file__).resolve().parent.parent / "value.json"


def same_games(version: str) -> list[str]:
    """The other packaged rulesets under which this self-play plays the very same games: every
    number but the crew list equal, and every crew of the personas' decks the same card."""
    rs = get_ruleset(version)
    numbers = {k: v for k, v in rs.to_dict().items() if k not in ("version", "crew")}
    used = {s for p in list_personas() for s in p.deck}
    out = []
    for other in available_versions():
        o = get_ruleset(other)
        if (
            other == version
            or {k: v for k, v in o.to_dict().items() if k not in ("version", "crew")} != numbers
        ):
            continue
        if all(s in o.crew and o.crew[s] == rs.crew[s] for s in used):
            out.append(other)
    return out


def _selfplay(seed: int, first: bool = False) -> list[tuple[int, int, int, int, int]]:
    """Rows (nights left, my Heat, their Heat, my future margin, my margin so far) for one
    game, from the start of every night after the first (and of the first with ``first``)."""
    deck_p, deck_r = seat_personas(seed)
    ps = {p.slug: p for p in list_personas()}
    knobs = get_difficulty("safecracker").knobs
    state = new_heist(
        ruleset=RULESET,
        player_deck=ps[deck_p].deck,
        rival_deck=ps[deck_r].deck,
        server_seed=f"veyltak-selfplay-{seed}",
    )
    key = hashlib.sha256(f"selfplay/{seed}".encode()).digest()
    seat = {PLAYER: deck_p, RIVAL: deck_r}
    snaps = []
    while not state.finished:
        if state.night > 1 or first:
            snaps.append(
                (
                    state.ruleset.nights - state.night + 1,
                    state.sides[0].heat,
                    state.sides[1].heat,
                    state.sides[0].score - state.sides[1].score,
                )
            )
        plans = {
            side: policy.play(
                observe(state, side),
                knobs,
                get_persona(seat[side]),
                Stream(key, f"{side}/{state.night}"),
            )
            for side in (PLAYER, RIVAL)
        }
        state, _ = resolve(state, plans)
    final = state.sides[0].score - state.sides[1].score
    rows = []
    for nl, hp, hr, d in snaps:
        rows.append((nl, hp, hr, final - d, d))
        rows.append((nl, hr, hp, d - final, -d))
    return rows


def _selfplay_all(seed: int) -> list[tuple[int, int, int, int, int]]:
    return _selfplay(seed, first=True)


def fit_win_spread(rows: list[tuple[int, int, int, int, int]], model: dict) -> dict[str, float]:
    """The spread of the logistic chance to win per nights left (the debrief's win chance,
    ``value.win_chance``): P(win) + P(draw) / 2 = sigma((d + w[mine] - w[theirs]) / s), with
    ``w`` the stored Heat worth, by maximum likelihood over a grid of ``s`` (a draw counts as
    half a win)."""
    data = np.asarray(rows, dtype=float)
    table = model["heat_worth"]
    top = max(int(k) for k in table)
    grid = np.arange(0.5, 20.0, 0.05)
    out: dict[str, float] = {}
    for nl in sorted({int(r[0]) for r in rows}):
        sel = data[data[:, 0] == nl]
        w = np.asarray(table[str(min(nl, top))])
        x = sel[:, 4] + w[sel[:, 1].astype(int)] - w[sel[:, 2].astype(int)]
        if np.ptp(x) == 0:
            continue  # nothing to fit (night 1 without an encounter: level margins, level Heat)
        final = sel[:, 4] + sel[:, 3]
        y = np.where(final > 0, 1.0, np.where(final == 0, 0.5, 0.0))
        best, best_ll = grid[0], -np.inf
        for spread in grid:
            p = np.clip(1.0 / (1.0 + np.exp(-x / spread)), 1e-9, 1 - 1e-9)
            ll = float(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))
            if ll > best_ll:
                best, best_ll = spread, ll
        out[str(nl)] = round(float(best), 2)
    return out


def fit(rows: list[tuple[int, int, int, int, int]], heat_levels: int) -> dict[str, list[float]]:
    data = np.asarray(rows, dtype=float)
    out: dict[str, list[float]] = {}
    for nl in sorted({int(r[0]) for r in rows}):
        sel = data[data[:, 0] == nl]
        x = np.zeros((len(sel), heat_levels))
        x[np.arange(len(sel)), sel[:, 1].astype(int)] += 1
        x[np.arange(len(sel)), sel[:, 2].astype(int)] -= 1
        x = x[:, 1:]  # w[0] = 0
        # Ridge towards 0 so rarely seen Heats keep a small worth.
        lam = 20.0
        w = np.linalg.solve(x.T @ x + lam * np.eye(x.shape[1]), x.T @ sel[:, 3])
        out[str(nl)] = [0.0, *(round(float(v), 4) for v in w)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m game.rivals.lab.fit_value")
    ap.add_argument("--games", type=int, default=800)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--win-spread",
        action="store_true",
        help="fit only the debrief's win-chance spread and add it to value.json (the Heat "
        "worth, and so Kingpin's play, unchanged)",
    )
    args = ap.parse_args()
    if args.win_spread:
        return main_win_spread(args.games, args.workers)
    seeds = range(100_000, 100_000 + args.games)
    with mp.get_context("fork").Pool(args.workers) as pool:
        rows = [r for game in pool.imap_unordered(_selfplay, seeds, chunksize=8) for r in game]
    rs_levels = 7
    model = {
        "ruleset": RULESET,
        "rulesets": same_games(RULESET),
        "games": args.games,
        "source": "Safecracker self-play, seeds 100000..",
        "heat_worth": fit(rows, rs_levels),
    }
    OUT.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(model["heat_worth"], indent=1))
    return 0


def main_win_spread(games: int, workers: int) -> int:
    model = json.loads(OUT.read_text("utf-8"))
    seeds = range(200_000, 200_000 + games)
    if workers <= 1:
        rows = [r for seed in seeds for r in _selfplay_all(seed)]
    else:
        with mp.get_context("fork").Pool(workers) as pool:
            rows = [r for g in pool.imap_unordered(_selfplay_all, seeds, chunksize=8) for r in g]
    model["win_spread"] = fit_win_spread(rows, model)
    model["win_spread_source"] = f"Safecracker self-play, {games} games, seeds 200000.."
    OUT.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(model["win_spread"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
