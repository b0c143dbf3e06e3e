"""Jobs in tests: the suite's default job pool (out of reach), a player's periods read back, and
heists played by plain strategies through the API.

**The default pool.** Every test but those marked ``jobs`` plays with :func:`out_of_reach_pool`
(tests/conftest.py): jobs no heist of a test can complete, so the balances, ledger counts and
result pages that other tests check exactly are never moved by a job a random draw happened to
give their player. Tests marked ``jobs`` play the real pool (``game/data/jobs/``) or one of
their own (:func:`pool_of`).
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from django.test import Client

from game.jobs import pool as job_pool
from tests.support.heists import crew_costs, seal, start


@cache
def out_of_reach_pool() -> job_pool.Pool:
    far = 10**6
    daily = [
        {"slug": "far-finish", "kind": "finish", "goal": far, "tier": "easy", "text": "Far"},
        {"slug": "far-win", "kind": "win", "goal": far, "tier": "easy", "text": "Farther"},
        {"slug": "far-loot", "kind": "loot", "goal": far, "tier": "easy", "text": "Farthest"},
    ]
    weekly = [{"slug": "far-week", "kind": "vaults", "goal": far, "tier": "weekly", "text": "Far"}]
    return pool_of(daily=daily, weekly=weekly)


def pool_of(
    *, daily: list[dict], weekly: list[dict], starter: dict | None = None, version: str = "t"
) -> job_pool.Pool:
    """A pool checked as the packaged ones are."""
    data: dict[str, Any] = {"version": version, "daily": daily, "weekly": weekly}
    if starter:
        data["starter"] = starter
    return job_pool.parse(data, version=version, known=job_pool.known_now())


def use_pool(monkeypatch, pool: job_pool.Pool) -> None:
    """New periods draw from ``pool`` (and the starter job is its)."""
    monkeypatch.setattr(job_pool, "active", lambda: pool)


# --- Heists played by strategies --------------------------------------------------------------


def plan_for(view: dict, strategy: str, rng: random.Random) -> dict:
    """The plan ``strategy`` seals, worked out from the heist view alone:

    - ``idle``: sends nobody;
    - ``greedy``: the strongest crew it can pay for, one to each of the richest open vaults,
      never Boosting; ``greedy-boost``: the same, Boosting whenever it may;
    - ``boost-early``: ``greedy``, Boosting on the first two nights only; ``boost-late``: on
      the last two nights only;
    - ``pair``: its two strongest affordable crew together at the richest open vault;
    - ``random``: a random legal plan (tests.support.heists.legal_plan's way).
    """
    you = view["you"]
    costs = crew_costs()
    vaults = sorted(
        (v for v in view["vaults"] if not v["closed"]), key=lambda v: (-v["loot"], v["slug"])
    )
    if strategy == "idle" or not vaults:
        return {"night": view["night"], "crew": [], "boost": False}
    hand = list(you["hand"])
    if strategy == "random":
        rng.shuffle(hand)
    else:
        from game.engine import get_ruleset

        power = {slug: crew.power for slug, crew in get_ruleset().crew.items()}
        hand.sort(key=lambda c: (-power[c["crew"]], costs[c["crew"]], c["card"]))
    chosen, spent = [], 0
    limit = rng.randint(0, 2) if strategy == "random" else 2
    for card in hand:
        if len(chosen) == limit:
            break
        if spent + costs[card["crew"]] <= you["energy"]:
            at = vaults[0] if strategy == "pair" else vaults[len(chosen) % len(vaults)]
            if strategy == "random":
                at = rng.choice(vaults)
            chosen.append({"card": card["card"], "vault": at["slug"]})
            spent += costs[card["crew"]]
    may_boost = bool(chosen) and you["heat"] < 6
    boost = may_boost and (
        strategy == "greedy-boost"
        or (strategy == "boost-early" and view["night"] <= 2)
        or (strategy == "boost-late" and view["night"] >= view["nights"] - 1)
        or (strategy == "random" and rng.random() < 0.4)
    )
    return {"night": view["night"], "crew": chosen, "boost": boost}


def play(client: Client, strategy: str = "greedy", *, seed: int = 0, view=None, **body) -> dict:
    """Start a heist (``body`` as the start route takes it) unless ``view`` is one in play,
    and seal ``strategy``'s plans until it is over; returns its last view."""
    rng = random.Random(seed)
    view = view or start(client, **body)
    while view["status"] == "active":
        response = seal(client, view["id"], plan_for(view, strategy, rng))
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    return view
