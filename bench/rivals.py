"""Per-decision time of each rival level, on one core.

    .venv-dev/bin/python bench/rivals.py            # 2,000 decisions per level
    .venv-dev/bin/python bench/rivals.py --quick    # 300 per level, same lines
    .venv-dev/bin/python bench/rivals.py --quick --clock cpu   # CPU time, for a busy machine

Positions come from heists played a random number of nights by random legal plans, across every
ordered pair of persona decks and both seats; each level decides every position once. They are
played under the default ruleset (``--ruleset`` for another); where it has Night Market crew, the
player seat's deck swaps its two Mirror Couriers for two of one of them (each in turn), so the
rival decides against them (and, from the player seat, with them). The last
line is ``kingpin_p99_ms: N``. Each level's line ends with a digest of every plan it chose
(its first 12 hex digits): a change that must not change the rival's play (a faster solver, a
cache) keeps every digest as it was, on the same positions.
Gates (issue 4): every level median < 100 ms, p99 < 500 ms;
(issue 15) Kingpin p99 <= 150 ms. ``kingpin-before`` is Kingpin without its player model, timed on
the same positions in the same run, so the model's cost is read on equal terms.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from game.engine import PLAYER, RIVAL, Stream, legal_plans, new_heist, observe, resolve
from game.engine.rules import DEFAULT_VERSION, get_ruleset
from game.rivals.personas import get_difficulty, get_persona, list_difficulties, list_personas
from game.rivals.policy import choose_plan, play


def player_deck(deck: tuple[str, ...], market: tuple[str, ...], i: int) -> tuple[str, ...]:
    """The persona deck, or with its two Mirror Couriers swapped for two of a Night Market crew."""
    if not market or "mirror-courier" not in deck:
        return tuple(deck)
    card = market[i % len(market)]
    return tuple(card if c == "mirror-courier" else c for c in deck)


def positions(n: int, seed: int = 0, ruleset: str = DEFAULT_VERSION):
    rnd = random.Random(seed)
    ps = list_personas()
    market = get_ruleset(ruleset).crew_in_set("night-market")
    out = []
    i = 0
    while len(out) < n:
        i += 1
        state = new_heist(
            ruleset=ruleset,
            player_deck=player_deck(ps[i % len(ps)].deck, market, i // len(ps)),
            rival_deck=ps[(i // len(ps)) % len(ps)].deck,
            server_seed=f"bench-{seed}-{i}",
        )
        for _ in range(rnd.randrange(state.ruleset.nights)):
            plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
            state, _ = resolve(state, plans)
        side = RIVAL if i % 2 else PLAYER
        out.append((observe(state, side), ps[i % len(ps)].slug))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--decisions", type=int, default=0)
    ap.add_argument("--ruleset", default=DEFAULT_VERSION)
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: elapsed time (the gate's figure, on an idle core); cpu: this thread's CPU "
        "time, which a machine shared with other work does not inflate",
    )
    args = ap.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.thread_time
    n = args.decisions or (300 if args.quick else 2000)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    obs_list = positions(n, ruleset=args.ruleset)
    market = get_ruleset(args.ruleset).crew_in_set("night-market")
    print(
        f"decisions per level: {n} (one core, positions from random-play heists, both seats); "
        f"ruleset {args.ruleset}; {args.clock} clock"
        + (f", player decks with Night Market crew ({len(market)} types)" if market else "")
    )
    p99s = {}
    before = dataclasses.replace(get_difficulty("kingpin").knobs, model="none", model_weight=0)
    for slug in [d.slug for d in list_difficulties()] + ["kingpin-before"]:
        times = []
        digest = hashlib.sha256()
        for k, (obs, persona) in enumerate(obs_list):
            stream = Stream(bytes(32), f"bench/{k}")
            t0 = clock()
            if slug == "kingpin-before":
                plan = play(obs, before, get_persona(persona), stream)
            else:
                plan = choose_plan(obs, persona=persona, difficulty=slug, stream=stream)
            times.append(clock() - t0)
            digest.update(repr(plan.to_dict()).encode())
        ms = np.asarray(times) * 1000
        med, p99 = float(np.median(ms)), float(np.percentile(ms, 99))
        p99s[slug] = p99
        ok = med < 100 and p99 < 500 and (slug != "kingpin" or p99 <= 150)
        print(
            f"{slug:14s} median {med:6.2f} ms  p99 {p99:7.2f} ms  mean {ms.mean():6.2f} ms  "
            f"max {ms.max():7.2f} ms  gate {'PASS' if ok else 'FAIL'}  "
            f"plans {digest.hexdigest()[:12]}"
        )
    print(f"kingpin_p99_ms: {p99s['kingpin']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
