"""Engine benchmark: complete random-play heists on one core.

    python bench/engine.py [--heists N] [--seconds S] [--seed SEED]

Both sides choose uniformly among ``legal_plans`` with a seeded ``random.Random`` that lives in
this script only (the engine itself has no global randomness). Prints heists played, resolve and
legal_plans timings (mean/p50/p99 in microseconds) and, last, ``heists_per_second: N``, measured
on a second run without per-call timers so the timers do not slow the headline figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.engine import (
    PLAYER,
    RIVAL,
    get_ruleset,
    legal_plans,
    new_heist,
    resolve,
)

RULESET = get_ruleset()
POOL = [slug for slug in RULESET.crew for _ in range(RULESET.max_copies)]


def random_deck(rng: random.Random) -> list[str]:
    return rng.sample(POOL, RULESET.deck_size)


def play_timed(rng: random.Random, resolve_ns: list[int], legal_ns: list[int]) -> None:
    perf = time.perf_counter_ns
    state = new_heist(
        ruleset=RULESET,
        player_deck=random_deck(rng),
        rival_deck=random_deck(rng),
        server_seed=f"{rng.getrandbits(256):064x}",
    )
    while not state.finished:
        t0 = perf()
        mine = legal_plans(state, PLAYER)
        t1 = perf()
        theirs = legal_plans(state, RIVAL)
        t2 = perf()
        plans = {PLAYER: rng.choice(mine), RIVAL: rng.choice(theirs)}
        t3 = perf()
        state, _ = resolve(state, plans)
        t4 = perf()
        legal_ns.append(t1 - t0)
        legal_ns.append(t2 - t1)
        resolve_ns.append(t4 - t3)


def play(rng: random.Random) -> None:
    state = new_heist(
        ruleset=RULESET,
        player_deck=random_deck(rng),
        rival_deck=random_deck(rng),
        server_seed=f"{rng.getrandbits(256):064x}",
    )
    choice = rng.choice
    while not state.finished:
        plans = {
            PLAYER: choice(legal_plans(state, PLAYER)),
            RIVAL: choice(legal_plans(state, RIVAL)),
        }
        state, _ = resolve(state, plans)


def stats(label: str, ns: list[int]) -> str:
    us = sorted(n / 1000 for n in ns)
    p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
    return (
        f"{label}: n={len(us)} mean={statistics.fmean(us):.1f}us "
        f"p50={us[len(us) // 2]:.1f}us p99={p99:.1f}us"
    )


def run(heists: int, seconds: float, seed: int, timed: bool) -> tuple[int, float, list, list]:
    rng = random.Random(seed)
    resolve_ns: list[int] = []
    legal_ns: list[int] = []
    played = 0
    start = time.perf_counter()
    deadline = start + seconds
    while played < heists and time.perf_counter() < deadline:
        if timed:
            play_timed(rng, resolve_ns, legal_ns)
        else:
            play(rng)
        played += 1
    return played, time.perf_counter() - start, resolve_ns, legal_ns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heists", type=int, default=5000, help="stop after this many heists")
    parser.add_argument("--seconds", type=float, default=10.0, help="or after this many seconds")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    run(200, 5.0, args.seed + 1, timed=False)  # warm caches and the interpreter
    played, elapsed, resolve_ns, legal_ns = run(args.heists, args.seconds, args.seed, timed=True)
    print(f"ruleset: {RULESET.version}")
    print(f"heists played (timed run): {played} in {elapsed:.2f}s")
    print(stats("resolve per night", resolve_ns))
    print(stats("legal_plans per call", legal_ns))
    played, elapsed, _, _ = run(args.heists, args.seconds, args.seed, timed=False)
    print(f"heists played (untimed run): {played} in {elapsed:.2f}s")
    print(f"heists_per_second: {played / elapsed:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
