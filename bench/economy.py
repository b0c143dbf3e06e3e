"""Pacing of the Signs economy (DESIGN.md section 11): how many heists a player needs for their
first Night Market crew, and for the whole Night Market plus one cosmetic of each kind.

    .venv-dev/bin/python bench/economy.py              # 300 careers per kind of player
    .venv-dev/bin/python bench/economy.py --quick      # a small library of heists, 60 careers
    .venv-dev/bin/python bench/economy.py --workers 2  # play the library on two processes

Everything is the site's own: the heists are played by the engine against the real rival
levels (``game.rivals.policy.choose_plan``), the player's seat by a style of the rival's test
panel (``game.rivals.lab.panel``: the same styles docs/rivals.md measures the levels against);
what a heist earns is the economy's table (``shop/data/economy/<version>.json``), each day's
and week's jobs are drawn from the job pool (``game/data/jobs/<version>.json``) with the
service's draw, and counted with the service's conditions; the prices are the shop catalogue's
(``shop/data/catalogue.json``). Nothing is invented here but the players:

- **newcomer**: plays Rookie only, 3 heists a day, with the starter deck; the panel's
  ``noisy-mix`` (a player without one habit: a fifth of the nights a random plan).
- **mixed**: 5 heists a day at every level (Rookie 20%, Hustler 45%, Safecracker 30%, Kingpin
  5%), the featured heist once a day, a quarter of its heists with an encounter; the panel's
  ``loot-chaser`` (plays the loot it can likely take).
- **kingpin**: 8 heists a day at Kingpin, the featured heist once a day, a quarter with an
  encounter; the panel's ``hand-reader`` (reads the rival's possible hands).

Each kind's heists come from a library played once and kept in ``var/economy/heists.jsonl``
(keyed by everything a heist depends on, so an interrupted run resumes); a career draws its
heists from it at random, day after day from a random weekday, and buys as soon as it can.
Every player starts with the welcome grant. ``heists_to_first_crew`` is the most heists any
career of any kind needed before it held the cheapest Night Market crew's price;
``heists_to_full_market`` is the mixed player's median to have earned the whole Night Market
plus the cheapest cosmetic of each kind. Last lines ``heists_to_first_crew: N`` and
``heists_to_full_market: N``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.engine import PLAYER, RIVAL, NightResult, Stream, new_heist, observe, outcome, resolve
from game.engine.rules import DEFAULT_VERSION
from game.jobs import conditions
from game.jobs import pool as job_pool
from game.jobs.conditions import HeistFacts
from game.rivals.lab import panel
from game.rivals.personas import get_persona, list_personas
from game.rivals.policy import choose_plan
from shop.catalogue import COSMETICS, get_catalogue
from shop.economy import get_economy

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "var" / "economy" / "heists.jsonl"
DATA = ROOT / "game" / "data"


@dataclass(frozen=True)
class Kind:
    name: str
    style: str
    per_day: int
    levels: dict[str, float]  # level -> share of the heists it plays
    featured: bool  # plays the day's featured heist first
    note: str


KINDS = (
    Kind("newcomer", "noisy-mix", 3, {"rookie": 1.0}, False, "Rookie only"),
    Kind(
        "mixed",
        "loot-chaser",
        5,
        {"rookie": 0.2, "hustler": 0.45, "safecracker": 0.3, "kingpin": 0.05},
        True,
        "every level, featured daily",
    ),
    Kind("kingpin", "hand-reader", 8, {"kingpin": 1.0}, True, "Kingpin, featured daily"),
)
# One library heist in four is played with an encounter (the picker's other choices).
ENCOUNTER_EVERY = 4


def _json(name: str) -> dict:
    return json.loads((DATA / name).read_text("utf-8"))


def starter_deck() -> tuple[str, ...]:
    return tuple(next(d for d in _json("decks.json")["decks"] if d["slug"] == "starter")["deck"])


def encounters() -> list[dict]:
    return _json("encounters.json")["encounters"]


def rotation() -> list[dict]:
    decks = {d["slug"]: d["deck"] for d in _json("decks.json")["decks"]}
    by_slug = {e["slug"]: e for e in encounters()}
    return [
        {**f, "deck": decks[f["deck"]], "encounter": by_slug[f["encounter"]]}
        for f in _json("featured.json")["rotation"]
    ]


# --- The library: heists played once -----------------------------------------------------------


def spec_key(spec: dict) -> str:
    blob = json.dumps(spec, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def library_specs(style: str, level_counts: dict[str, int], featured_each: int) -> list[dict]:
    """What to play for one style: ``n`` heists per level (rivals in turn, one in
    ENCOUNTER_EVERY with an encounter) and ``featured_each`` of every featured rotation entry."""
    personas = [p.slug for p in list_personas()]
    encs = encounters()
    specs = []
    for level, n in level_counts.items():
        for i in range(n):
            enc = encs[(i // ENCOUNTER_EVERY) % len(encs)] if i % ENCOUNTER_EVERY == 0 else None
            specs.append(
                {
                    "ruleset": DEFAULT_VERSION,
                    "style": style,
                    "level": level,
                    "rival": personas[i % len(personas)],
                    "deck": list(starter_deck()),
                    "encounter": enc,
                    "featured": False,
                    "seed": i,
                }
            )
    for k, slot in enumerate(rotation()):
        for i in range(featured_each):
            specs.append(
                {
                    "ruleset": DEFAULT_VERSION,
                    "style": style,
                    "level": slot["difficulty"],
                    "rival": slot["rival"],
                    "deck": list(slot["deck"]),
                    "encounter": slot["encounter"],
                    "featured": True,
                    "slot": slot["name"],
                    "seed": 1000 * (k + 1) + i,
                }
            )
    return specs


def play(spec: dict) -> dict:
    """One heist of the library: the style in the player's seat, the level in the rival's."""
    state = new_heist(
        ruleset=spec["ruleset"],
        player_deck=spec["deck"],
        rival_deck=get_persona(spec["rival"]).deck,
        server_seed=f"veyltak-economy-{spec_key(spec)}",
        encounter=spec["encounter"],
    )
    key = hashlib.sha256(f"economy/{spec_key(spec)}".encode()).digest()
    nights = []
    while not state.finished:
        plans = {
            PLAYER: panel.play(
                spec["style"], observe(state, PLAYER), Stream(key, f"player/{state.night}")
            ),
            RIVAL: choose_plan(
                observe(state, RIVAL),
                persona=spec["rival"],
                difficulty=spec["level"],
                stream=Stream(key, f"rival/{state.night}"),
            ),
        }
        state, result = resolve(state, plans)
        nights.append(result.to_dict())
    won = outcome(state)
    return {
        "key": spec_key(spec),
        "level": spec["level"],
        "rival": spec["rival"],
        "encounter": spec["encounter"]["slug"] if spec["encounter"] else "",
        "featured": spec["featured"],
        "slot": spec.get("slot", ""),
        "outcome": {PLAYER: "win", RIVAL: "loss", None: "draw"}[won],
        "nights": nights,
    }


def load_library(specs: list[dict], workers: int) -> list[dict]:
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    have: dict[str, dict] = {}
    if CACHE.exists():
        for line in CACHE.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                have[row["key"]] = row
    todo = [s for s in specs if spec_key(s) not in have]
    if todo:
        print(f"playing {len(todo)} heists for the library ({len(specs) - len(todo)} kept)")
        started = time.perf_counter()
        with CACHE.open("a", encoding="utf-8") as out:
            if workers > 1:
                with mp.get_context("fork").Pool(workers) as pool:
                    rows = pool.imap_unordered(play, todo, chunksize=4)
                    for row in rows:
                        out.write(json.dumps(row) + "\n")
                        have[row["key"]] = row
            else:
                for spec in todo:
                    row = play(spec)
                    out.write(json.dumps(row) + "\n")
                    have[row["key"]] = row
        print(f"played in {time.perf_counter() - started:.0f} s")
    return [have[spec_key(s)] for s in specs]


def facts(row: dict) -> HeistFacts:
    return HeistFacts(
        difficulty=row["level"],
        outcome=row["outcome"],
        rival=row["rival"],
        encounter=row["encounter"],
        featured=row["featured"],
        nights=tuple(NightResult.from_dict(n) for n in row["nights"]),
    )


# --- Careers ------------------------------------------------------------------------------------


@dataclass
class Career:
    first_crew: int | None = None
    full_set: int | None = None
    heists: int = 0
    from_heists: int = 0
    from_jobs: int = 0
    jobs_done: int = 0
    days: int = 0


def career(kind: Kind, library: dict, run: int, prices: dict, cap: int) -> Career:
    """One player of ``kind`` from sign-up until they own everything (or ``cap`` heists)."""
    rng = random.Random(f"economy/{kind.name}/{run}")
    economy = get_economy()
    pool = job_pool.active()
    levels = job_pool.levels()
    slots = rotation()
    weekday = rng.randrange(7)
    income = economy.welcome
    c = Career()
    starter_left = pool.starter is not None
    week: list = []
    week_progress: Counter = Counter()
    first_heists: list[HeistFacts] = []

    def pay(amount: int, *, job: bool) -> None:
        nonlocal income
        income += amount
        if job:
            c.from_jobs += amount
            c.jobs_done += 1
        else:
            c.from_heists += amount

    def check() -> None:
        if c.first_crew is None and income >= prices["first_crew"]:
            c.first_crew = c.heists
        if c.full_set is None and income >= prices["full_set"]:
            c.full_set = c.heists

    day = 0
    while c.full_set is None and c.heists < cap:
        if day == 0 or (weekday + day) % 7 == 0:
            week = [
                (j, False)
                for j in job_pool.draw(
                    pool.weekly, job_pool.PICKS["weekly"], f"{kind.name}/{run}/w{day}"
                )
            ]
            week_progress = Counter()
        today = [(j, False) for j in job_pool.draw(pool.daily, 3, f"{kind.name}/{run}/d{day}")]
        progress: Counter = Counter()
        for n in range(kind.per_day):
            if kind.featured and n == 0:
                slot = slots[day % len(slots)]
                row = rng.choice(library[("featured", slot["name"])])
            else:
                level = rng.choices(list(kind.levels), weights=list(kind.levels.values()))[0]
                row = rng.choice(library[level])
            heist = facts(row)
            c.heists += 1
            if n < economy.daily_heist_limit:  # (no kind plays more than the limit a day)
                pay(
                    economy.heist_signs(outcome=heist.outcome, difficulty=heist.difficulty),
                    job=False,
                )
            for jobs, counts in ((today, progress), (week, week_progress)):
                for i, (job, paid) in enumerate(jobs):
                    counts[job.slug] += conditions.steps(job.kind, job.params, heist, levels)
                    if not paid and counts[job.slug] >= job.goal:
                        pay(economy.job_reward(job.tier), job=True)
                        jobs[i] = (job, True)
            if starter_left:
                first_heists.append(heist)
                job = pool.starter
                done = sum(conditions.steps(job.kind, job.params, h, levels) for h in first_heists)
                if done >= job.goal:
                    pay(economy.job_reward(job.tier), job=True)
                    starter_left = False
            check()
            if c.full_set is not None:
                break
        day += 1
    c.days = day
    return c


def targets() -> dict:
    items = get_catalogue().items
    crew = sorted(i.price for i in items if i.kind == "crew" and i.active)
    cosmetics = {k: min(i.price for i in items if i.kind == k and i.active) for k in COSMETICS}
    return {
        "first_crew": crew[0],
        "full_set": sum(crew) + sum(cosmetics.values()),
        "crew": crew,
        "cosmetics": cosmetics,
    }


# --- Report -------------------------------------------------------------------------------------

# docs/rivals.md, "Against the player-style panel": each level's score against the style; the
# player's score is one minus it (wins + half draws; the panel played the persona decks).
PANEL = {
    "noisy-mix": {"rookie": 0.485, "hustler": 0.710, "safecracker": 0.797, "kingpin": 0.848},
    "loot-chaser": {"rookie": 0.168, "hustler": 0.458, "safecracker": 0.627, "kingpin": 0.797},
    "hand-reader": {"rookie": 0.200, "hustler": 0.505, "safecracker": 0.632, "kingpin": 0.805},
}


def pct(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--careers", type=int, default=300, help="careers per kind of player")
    ap.add_argument("--per-level", type=int, default=80, help="library heists per style and level")
    ap.add_argument("--featured", type=int, default=6, help="library heists per featured entry")
    ap.add_argument(
        "--quick", action="store_true", help="20 heists per level, 2 per entry, 60 careers"
    )
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cap", type=int, default=1000, help="heists at most per career")
    args = ap.parse_args(argv)
    if args.quick:
        args.per_level, args.featured, args.careers = 20, 2, 60
    economy, pool, prices = get_economy(), job_pool.active(), targets()
    print(
        f"economy {economy.version}; job pool {pool.version}; ruleset {DEFAULT_VERSION}; "
        f"load average {os.getloadavg()[0]:.2f} (a shared machine: times are not the point)"
    )
    print(
        f"prices: first crew {prices['first_crew']}; the Night Market {sum(prices['crew'])} "
        f"({', '.join(map(str, prices['crew']))}) + the cheapest cosmetic of each kind "
        f"{sum(prices['cosmetics'].values())} ({prices['cosmetics']}) = {prices['full_set']}; "
        f"welcome {economy.welcome}; jobs pay {dict(economy.jobs)}"
    )
    specs = []
    for kind in KINDS:
        specs += library_specs(
            kind.style,
            {level: args.per_level for level in kind.levels},
            args.featured if kind.featured else 0,
        )
    unique = list({spec_key(s): s for s in specs}.values())
    rows = {r["key"]: r for r in load_library(unique, args.workers)}

    print()
    print(
        "kind      style        level        heists  win   draw  loss  "
        "| panel score (docs/rivals.md)"
    )
    libraries = {}
    for kind in KINDS:
        lib: dict = defaultdict(list)
        for spec in library_specs(
            kind.style,
            {level: args.per_level for level in kind.levels},
            args.featured if kind.featured else 0,
        ):
            row = rows[spec_key(spec)]
            if spec["featured"]:
                lib[("featured", row["slot"])].append(row)
            else:
                lib[row["level"]].append(row)
        libraries[kind.name] = lib
        for level in kind.levels:
            tally = Counter(r["outcome"] for r in lib[level])
            n = len(lib[level])
            score = (tally["win"] + tally["draw"] / 2) / n
            ref = 1 - PANEL[kind.style][level]
            print(
                f"{kind.name:9} {kind.style:12} {level:12} {n:6}  {tally['win'] / n:.2f}  "
                f"{tally['draw'] / n:.2f}  {tally['loss'] / n:.2f}  | player {score:.2f}, "
                f"panel {ref:.2f}"
            )

    print()
    print(
        "kind      heists/day  first crew: median max  full set: median p10-p90  days  "
        "Signs/heist: heists jobs  jobs/day"
    )
    firsts, fulls = {}, {}
    for kind in KINDS:
        runs = [
            career(kind, libraries[kind.name], run, prices, args.cap) for run in range(args.careers)
        ]
        first = [r.first_crew if r.first_crew is not None else args.cap for r in runs]
        full = [r.full_set if r.full_set is not None else args.cap for r in runs]
        firsts[kind.name], fulls[kind.name] = first, full
        heists = sum(r.heists for r in runs)
        days = sum(r.days for r in runs)
        print(
            f"{kind.name:9} {kind.per_day:10}  {statistics.median(first):>18} {max(first):>3}  "
            f"{statistics.median(full):>16} {pct(full, 0.1):>3}-{pct(full, 0.9):<3} "
            f"{statistics.median([r.days for r in runs]):>5}  "
            f"{sum(r.from_heists for r in runs) / heists:>13.1f} "
            f"{sum(r.from_jobs for r in runs) / heists:>4.1f}  "
            f"{sum(r.jobs_done for r in runs) / days:>8.2f}"
        )
    print()
    print(f"heists_to_first_crew: {max(max(v) for v in firsts.values())}")
    print(f"heists_to_full_market: {round(statistics.median(fulls['mixed']))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
