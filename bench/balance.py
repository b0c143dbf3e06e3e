"""Balance of the Night Market crew: mirror matches of the strongest rival level.

    .venv-dev/bin/python bench/balance.py                 # 500 seed pairs (1,000 games) per card
    .venv-dev/bin/python bench/balance.py --quick         # 20 seed pairs per card, same lines
    .venv-dev/bin/python bench/balance.py --cards fence --pairs 100

For each Night Market crew of the ruleset (its ``set`` is ``night-market``; no slug is written
here), Kingpin plays Kingpin. Both decks are the same persona deck, except that one of them (the
"swapped" deck) has its two Mirror Couriers replaced by two copies of the card. Mirror Courier is
the base set's plain card (cost 1, power 2, no effect) and every persona deck holds two, so the
swap asks one question of every card: is it worth more than a plain crew in a deck built around
something else? The base deck cycles through the four persona decks (seed mod 4), and each
Kingpin plays with that persona's style.

Every seed is played twice with the same server seed (same shuffles, same loot): once with the
swapped deck in the player seat and once in the rival seat. Score of the swapped deck = wins +
draws / 2; the 95% interval comes from the spread of the seed-pair scores (as the rival
tournament does). RULES.md asks every card to land in 0.45-0.60.

Results are kept per (card, seed pair) in ``var/balance/games.jsonl``, keyed by a digest of
everything the games depend on (the ruleset's numbers for the crew in play, the base deck, the
rival code's version is not part of it: delete the file after changing the rival), so an
interrupted run resumes and a card whose numbers changed is replayed. Last line
``balance_cards_in_band: K/N``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from game.engine import PLAYER, RIVAL, Stream, new_heist, observe, resolve
from game.engine.rules import get_ruleset
from game.rivals.personas import list_personas
from game.rivals.policy import choose_plan

ROOT = Path(__file__).resolve().parent.parent
LEVEL = "kingpin"
SET = "night-market"
SWAPPED_OUT = "mirror-courier"
BAND = (0.45, 0.60)
CACHE = ROOT / "var" / "balance" / "games.jsonl"


def base_deck(seed: int) -> tuple[str, tuple[str, ...]]:
    """The persona (style) and deck of a seed pair: every persona deck in turn."""
    ps = list_personas()
    p = ps[seed % len(ps)]
    return p.slug, tuple(p.deck)


def swap(deck: tuple[str, ...], card: str) -> tuple[str, ...]:
    out = list(deck)
    for _ in range(2):
        out[out.index(SWAPPED_OUT)] = card
    return tuple(out)


def digest(version: str, card: str) -> str:
    """What a card's games depend on: the ruleset's rules and the rows of every crew in play."""
    d = get_ruleset(version).to_dict()
    used = {card, *(c for p in list_personas() for c in p.deck)}
    d["crew"] = [c for c in d["crew"] if c["slug"] in used]
    blob = json.dumps([d, SWAPPED_OUT, LEVEL], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def play(version: str, card: str, seed: int, swapped_seat: str) -> tuple[float, list[float]]:
    """One game; the swapped deck's score (1, 0.5, 0) and Kingpin's decision times (s)."""
    persona, deck = base_deck(seed)
    with_card = swap(deck, card)
    decks = {swapped_seat: with_card, (RIVAL if swapped_seat == PLAYER else PLAYER): deck}
    state = new_heist(
        ruleset=version,
        player_deck=decks[PLAYER],
        rival_deck=decks[RIVAL],
        server_seed=f"veyltak-balance-{seed}",
    )
    key = hashlib.sha256(f"balance/{card}/{seed}/{swapped_seat}".encode()).digest()
    times = []
    while not state.finished:
        plans = {}
        for side in (PLAYER, RIVAL):
            obs = observe(state, side)
            t0 = time.perf_counter()
            plans[side] = choose_plan(
                obs, persona=persona, difficulty=LEVEL, stream=Stream(key, f"{side}/{state.night}")
            )
            times.append(time.perf_counter() - t0)
        state, _ = resolve(state, plans)
    me = 0 if swapped_seat == PLAYER else 1
    diff = state.sides[me].score - state.sides[1 - me].score
    return (1.0 if diff > 0 else 0.5 if diff == 0 else 0.0), times


def task(args: tuple[str, str, int]) -> dict:
    version, card, seed = args
    a, ta = play(version, card, seed, PLAYER)
    b, tb = play(version, card, seed, RIVAL)
    return {
        "card": card,
        "seed": seed,
        "scores": [a, b],
        "decisions": len(ta) + len(tb),
        "seconds": sum(ta) + sum(tb),
    }


def summary(pair_scores: list[float]) -> tuple[float, float, float]:
    x = np.asarray(pair_scores, dtype=float)
    m = float(x.mean())
    if len(x) < 2:
        return m, m, m
    half = 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return m, max(0.0, m - half), min(1.0, m + half)


def load_cache(path: Path) -> dict[tuple[str, str, int], dict]:
    out = {}
    if path.exists():
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                out[(r["digest"], r["card"], r["seed"])] = r
    return out


def plot(rows: list[tuple[str, str, float, float, float, int]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.4), dpi=120)
    ys = range(len(rows))
    m = np.array([r[2] for r in rows])
    lo = np.array([r[3] for r in rows])
    hi = np.array([r[4] for r in rows])
    ax.axvspan(*BAND, color="tab:green", alpha=0.12, label="band 0.45-0.60")
    ax.axvline(0.5, color="grey", lw=0.6)
    ax.errorbar(m, ys, xerr=[m - lo, hi - m], fmt="o", capsize=4)
    ax.set_yticks(list(ys), [r[1] for r in rows])
    ax.set_xlim(min(0.3, float(lo.min()) - 0.05), max(0.8, float(hi.max()) + 0.05))
    ax.set_xlabel("score of the deck with two copies (95% interval)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ruleset", default="2026.12")
    ap.add_argument("--pairs", type=int, default=500, help="seed pairs per card (2 games each)")
    ap.add_argument("--quick", action="store_true", help="20 seed pairs per card")
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--cards", default="", help="comma list (default: every Night Market crew)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--plot", default="", help="write the plot here (PNG)")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument(
        "--no-play", action="store_true", help="only report what the cache holds for these seeds"
    )
    args = ap.parse_args(argv)
    rs = get_ruleset(args.ruleset)
    market = rs.crew_in_set(SET)
    cards = tuple(args.cards.split(",")) if args.cards else market
    for c in cards:
        if c not in market:
            ap.error(f"{c!r} is not a {SET} crew of {args.ruleset}: {', '.join(market)}")
    pairs = 20 if args.quick else args.pairs
    seeds = range(args.seed_start, args.seed_start + pairs)
    cache_path = Path(args.cache)
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = load_cache(cache_path)
    digests = {c: digest(args.ruleset, c) for c in cards}
    # Seed-major, so every card's figure grows together and an interrupted run is even.
    todo = [
        (args.ruleset, c, s)
        for s in seeds
        for c in cards
        if (digests[c], c, s) not in cache and not args.no_play
    ]
    print(
        f"ruleset {args.ruleset}; {LEVEL} mirror matches; base decks: the persona decks in turn; "
        f"swapped: 2 x {SWAPPED_OUT}; seeds {seeds.start}..{seeds.stop - 1} "
        f"({pairs} seed pairs, {2 * pairs} games per card); {len(todo)} seed pairs to play",
        flush=True,
    )
    t0 = time.perf_counter()
    done = 0
    with cache_path.open("a", encoding="utf-8") as out:

        def keep(r: dict) -> None:
            nonlocal done
            r["digest"] = digests[r["card"]]
            out.write(json.dumps(r) + "\n")
            out.flush()
            cache[(r["digest"], r["card"], r["seed"])] = r
            done += 1
            if done % 25 == 0 or done == len(todo):
                el = time.perf_counter() - t0
                print(
                    f"  {done}/{len(todo)} seed pairs, {el / 60:.1f} min, "
                    f"eta {el / done * (len(todo) - done) / 60:.1f} min",
                    file=sys.stderr,
                    flush=True,
                )

        if args.workers <= 1:
            for t in todo:
                keep(task(t))
        else:
            with mp.get_context("fork").Pool(args.workers) as pool:
                for r in pool.imap_unordered(task, todo, chunksize=2):
                    keep(r)
    rows = []
    decisions, seconds = 0, 0.0
    by = defaultdict(list)
    for c in cards:
        for s in seeds:
            r = cache.get((digests[c], c, s))
            if r is None:
                continue
            by[c].append(sum(r["scores"]) / 2)
            decisions += r["decisions"]
            seconds += r["seconds"]
    print()
    print("| card | name | cost | power | effect | games | score | 95% interval | in band |")
    print("|---|---|---|---|---|---|---|---|---|")
    in_band = 0
    for c in cards:
        if not by[c]:
            print(f"| {c} | | | | | 0 | | | |")
            continue
        m, lo, hi = summary(by[c])
        ok = BAND[0] <= m <= BAND[1]
        in_band += ok
        crew = rs.crew[c]
        rows.append((c, crew.name, m, lo, hi, 2 * len(by[c])))
        print(
            f"| {c} | {crew.name} | {crew.cost} | {crew.power} | {crew.text} | {2 * len(by[c])} | "
            f"{m:.3f} | {lo:.3f} - {hi:.3f} | {'yes' if ok else '**no**'} |"
        )
    print()
    print(
        f"{decisions} {LEVEL} decisions, mean {1000 * seconds / max(1, decisions):.1f} ms "
        f"(summed over every game, this run and cached)"
    )
    if args.plot:
        plot(
            rows,
            Path(args.plot),
            f"Night Market crew, {LEVEL} mirror matches, ruleset {args.ruleset}",
        )
        print(f"plot: {args.plot}")
    short = [c for c in cards if len(by[c]) < pairs]
    if short:
        print(f"PARTIAL: fewer than {pairs} seed pairs for {', '.join(short)}")
    print(f"balance_cards_in_band: {in_band}/{len(cards)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
