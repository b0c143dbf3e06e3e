"""The heist debrief: accuracy by rival level, and the CPU one debrief costs.

    .venv/bin/python bench/debrief.py                       # 200 heists per level
    nice -n 19 .venv/bin/python bench/debrief.py --workers 1  # on a shared machine
    .venv/bin/python bench/debrief.py --heists 20           # a quick look, same lines

Each rival level plays the *player's* seat against Kingpin in the rival's seat, on the same
heists (seed i: the decks of ``tournament.seat_personas(i)``, server seed
``bench-debrief-{i}``); every finished heist is debriefed exactly as the site's task does
(``game.rivals.debrief.debrief`` on the player's observations). It prints each level's mean
accuracy (95% interval), loot lost, luck and labels, whether the accuracy rises level by level
(rookie < hustler < safecracker < kingpin), and the CPU time of one debrief (this thread's CPU
clock, so a busy machine does not inflate it): median, p95, max, and a digest of every debrief
worked out (each one's full floats, in level and seed order): a change that only makes the
debrief cheaper keeps it as it was on the same heists. The last line is
``debrief_p95_seconds: N`` (aim: under 1.5 on one core).
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from game.engine import PLAYER, RIVAL, Stream, new_heist, observe, outcome, resolve
from game.engine.rules import DEFAULT_VERSION
from game.rivals import debrief
from game.rivals.lab.tournament import bot_move, seat_personas
from game.rivals.personas import list_personas

LEVELS = ("rookie", "hustler", "safecracker", "kingpin")


def one(
    task: tuple[str, int],
) -> tuple[str, int, float, float, float, list[str], float, float, str]:
    """Play heist ``seed`` with ``level`` in the player's seat against Kingpin and debrief it:
    (level, seed, accuracy, loot lost, luck, labels, player's score, debrief CPU seconds, the
    debrief's repr)."""
    level, seed = task
    personas = {p.slug: p for p in list_personas()}
    deck_p, deck_r = seat_personas(seed)
    state = new_heist(
        ruleset=DEFAULT_VERSION,
        player_deck=personas[deck_p].deck,
        rival_deck=personas[deck_r].deck,
        server_seed=f"bench-debrief-{seed}",
    )
    key = hashlib.sha256(f"bench-debrief/{seed}".encode()).digest()
    seen = []
    while not state.finished:
        mine = observe(state, PLAYER)
        seen.append(mine)
        plans = {
            PLAYER: bot_move(level, mine, deck_p, Stream(key, f"player/{state.night}")),
            RIVAL: bot_move(
                "kingpin", observe(state, RIVAL), deck_r, Stream(key, f"rival/{state.night}")
            ),
        }
        state, _ = resolve(state, plans)
    seen.append(observe(state, PLAYER))
    t0 = time.thread_time()
    d = debrief.debrief(seen)
    cpu = time.thread_time() - t0
    won = outcome(state)
    score = 1.0 if won == PLAYER else 0.5 if won is None else 0.0
    labels = [r.label for r in d.nights]
    return level, seed, d.accuracy, d.loot_lost, d.luck, labels, score, cpu, repr(d)


def mean_ci(x: list[float]) -> tuple[float, float]:
    a = np.asarray(x, dtype=float)
    half = 1.96 * float(a.std(ddof=1)) / np.sqrt(len(a)) if len(a) > 1 else 0.0
    return float(a.mean()), half


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heists", type=int, default=200, help="heists per level")
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--levels", default=",".join(LEVELS))
    args = ap.parse_args()
    levels = tuple(args.levels.split(","))
    tasks = [
        (lv, s) for s in range(args.seed_start, args.seed_start + args.heists) for lv in levels
    ]
    t0 = time.perf_counter()
    if args.workers <= 1:
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
        rows = [one(t) for t in tasks]
    else:
        with mp.get_context("fork").Pool(args.workers) as pool:
            rows = list(pool.imap_unordered(one, tasks, chunksize=2))
    print(
        f"heists per level: {args.heists} (seeds {args.seed_start}..), each level in the "
        f"player's seat against Kingpin; ruleset {DEFAULT_VERSION}; "
        f"{len(rows)} heists in {(time.perf_counter() - t0) / 60:.1f} min"
    )
    means = {}
    for lv in levels:
        mine = [r for r in rows if r[0] == lv]
        acc, half = mean_ci([r[2] for r in mine])
        means[lv] = acc
        labels = Counter(lab for r in mine for lab in r[5])
        nights = sum(labels.values())
        shares = "  ".join(
            f"{name} {labels[name] / nights:.2f}"
            for name in ("best", "good", "inaccuracy", "mistake", "blunder")
        )
        lost, luck, score = (float(np.mean([r[k] for r in mine])) for k in (3, 4, 6))
        print(
            f"{lv:12s} accuracy {acc:5.1f} ± {half:4.1f}  loot lost {lost:5.2f}  luck "
            f"{luck:+5.2f}  score vs kingpin {score:.3f}  labels: {shares}"
        )
    ordered = [lv for lv in LEVELS if lv in means]
    rising = all(means[a] < means[b] for a, b in pairwise(ordered))
    print(
        "accuracy rises level by level "
        + " < ".join(f"{lv} {means[lv]:.1f}" for lv in ordered)
        + f": {'PASS' if rising else 'FAIL'}"
    )
    cpu = np.asarray([r[7] for r in rows])
    p95 = float(np.percentile(cpu, 95))
    print(
        f"CPU per debrief ({len(cpu)} debriefs, thread CPU clock): median {np.median(cpu):.3f} s"
        f"  p95 {p95:.3f} s  max {cpu.max():.3f} s  aim p95 < 1.5 s: "
        f"{'PASS' if p95 < 1.5 else 'FAIL'}"
    )
    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda r: (LEVELS.index(r[0]), r[1])):
        digest.update(row[8].encode())
    print(f"debriefs {digest.hexdigest()[:12]} (a digest of every debrief above)")
    print(f"debrief_p95_seconds: {p95:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
