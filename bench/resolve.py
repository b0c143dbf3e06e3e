"""resolve() alone: CPU time per night over a fixed set of positions, best of several passes.

    .venv-dev/bin/python bench/resolve.py [--repeats N] [--root PATH]

The positions come from 300 random-play heists (seeded, so every run resolves the same nights).
CPU time of this process (``time.process_time``), not wall time, and the best pass: on a shared
machine the other processes slow a pass down but never speed one up. ``--root`` runs the engine
of another checkout (an older commit in a ``git worktree``), so two versions can be compared
back to back. The last line is ``resolve_us_per_night: N``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from game.engine import PLAYER, RIVAL, get_ruleset, legal_plans, new_heist, resolve

    ruleset = get_ruleset()
    rng = random.Random(7)
    pool = [slug for slug in ruleset.crew for _ in range(ruleset.max_copies)]
    nights = []
    for i in range(300):
        state = new_heist(
            ruleset=ruleset,
            player_deck=rng.sample(pool, ruleset.deck_size),
            rival_deck=rng.sample(pool, ruleset.deck_size),
            server_seed=f"bench-resolve-{i}",
        )
        while not state.finished:
            plans = {side: rng.choice(legal_plans(state, side)) for side in (PLAYER, RIVAL)}
            nights.append((state, plans))
            state, _ = resolve(state, plans)
    best = float("inf")
    for _ in range(args.repeats):
        started = time.process_time()
        for state, plans in nights:
            resolve(state, plans)
        best = min(best, time.process_time() - started)
    print(f"nights: {len(nights)}, best of {args.repeats} passes, engine at {args.root}")
    print(f"resolve_us_per_night: {best / len(nights) * 1e6:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
