"""What the rating does with a player over their heists: the site's own Glicko-2 and anchors
(game.rating), simulated players, no database. Prints figures, asserts nothing.

    .venv-dev/bin/python bench/rating.py                 # 400 players per strength, 60 heists
    .venv-dev/bin/python bench/rating.py --players 100   # quicker, the same lines

A simulated player has a true strength on the rating scale and plays a level drawn at random
each heist (each level as often), scoring 1 with the chance the anchors give that strength
against the level, else 0 (no draws: the spread is a little wider than with them). For each
strength it prints: the median number of heists until the rating is no longer provisional,
and the rating after 12 and after 60 heists (median, and the 10th-90th percentile band). Then
the climb of a new player who wins every heist against Kingpin. And the rating's arithmetic per
heist (one update), on this machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.rating.anchors import current
from game.rating.glicko2 import Game, Rating, expected, update

STRENGTHS = (1200, 1400, 1500, 1600, 1772, 2000)


def _band(values: list[float]) -> str:
    q = statistics.quantiles(values, n=10)
    return f"{statistics.median(values):.0f} [{q[0]:.0f}-{q[-1]:.0f}]"


def simulate(strength: float, *, players: int, heists: int, seed: int) -> dict[str, object]:
    anchors = current()
    levels = list(anchors.levels.values())
    rng = random.Random(seed)
    settled, at_12, at_end = [], [], []
    for _ in range(players):
        rating = anchors.start
        first = None
        for n in range(1, heists + 1):
            level = rng.choice(levels)
            won = rng.random() < expected(strength, level.rating, level.deviation)
            rating = update(
                rating, [Game(level.rating, level.deviation, 1.0 if won else 0.0)], tau=anchors.tau
            )
            if first is None and not anchors.provisional(rating.deviation):
                first = n
            if n == 12:
                at_12.append(rating.value)
        settled.append(first if first is not None else heists + 1)
        at_end.append(rating.value)
    return {"settled": statistics.median(settled), "at_12": _band(at_12), "at_end": _band(at_end)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=400)
    ap.add_argument("--heists", type=int, default=60)
    args = ap.parse_args(argv)
    anchors = current()
    print(
        f"anchors {anchors.version}: "
        + ", ".join(f"{a.level} {a.rating}" for a in anchors.levels.values())
    )
    print(f"{args.players} players per strength, {args.heists} heists each, levels at random")
    print("| true strength | heists to settle (median) | after 12 heists | after 60 heists |")
    print("|---|---|---|---|")
    for k, strength in enumerate(STRENGTHS):
        r = simulate(strength, players=args.players, heists=args.heists, seed=k)
        print(f"| {strength} | {r['settled']:.0f} | {r['at_12']} | {r['at_end']} |")
    kingpin = anchors.anchor("kingpin")
    rating = anchors.start
    climb = []
    for _ in range(10):
        rating = update(rating, [Game(kingpin.rating, kingpin.deviation, 1.0)], tau=anchors.tau)
        climb.append(f"{rating.value:.0f}/{rating.deviation:.0f}")
    print(f"a new player winning every heist against Kingpin ({kingpin.rating}):", " ".join(climb))
    start = Rating(1500, 200, 0.06)
    games = [Game(kingpin.rating, kingpin.deviation, 1.0)]
    count = 20_000
    began = time.perf_counter()
    for _ in range(count):
        update(start, games, tau=anchors.tau)
    per = (time.perf_counter() - began) / count * 1e6
    print(f"one rating update: {per:.1f} us (wall clock, {count} updates)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
