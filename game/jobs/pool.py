"""The job pool, as versioned data (DESIGN.md section 11): ``game/data/jobs/<version>.json``.

Each job is a condition (a kind of :mod:`game.jobs.conditions` and its parameters), a goal,
the sentence a player reads, and a tier, which the shop's economy table turns into Signs
(``shop/data/economy/<version>.json``, ``jobs``). Three daily jobs and one weekly job are
drawn per player and period (:func:`draw`); a new account also has the one ``starter`` job,
paid once (the first Night Market crew within three heists: docs/economy.md).

Like a ruleset, a version never changes once drawn from: a period keeps the version it was
drawn from, and a new pool is a new file and a new ``CURRENT_VERSION``.

Pure: no Django, no clock (``bench/economy.py`` draws from it too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from game.engine import DEFAULT_VERSION, get_ruleset
from game.jobs import conditions
from game.rivals.personas import list_difficulties, list_personas
from shop.economy import get_economy

CURRENT_VERSION = "2026.12"
DAILY, WEEKLY, STARTER = "daily", "weekly", "starter"
# How many jobs a period holds, by period kind.
PICKS = {DAILY: 3, WEEKLY: 1}
TEXT_MAX = 100


class PoolError(ValueError):
    """A malformed job pool."""


@dataclass(frozen=True, slots=True)
class Job:
    slug: str
    kind: str
    params: Mapping[str, Any]
    goal: int
    tier: str
    text: str


@dataclass(frozen=True, slots=True)
class Pool:
    version: str
    daily: tuple[Job, ...]
    weekly: tuple[Job, ...]
    starter: Job | None

    def jobs(self, period: str) -> tuple[Job, ...]:
        return {DAILY: self.daily, WEEKLY: self.weekly}[period]

    def job(self, slug: str) -> Job | None:
        every = (*self.daily, *self.weekly, *([self.starter] if self.starter else []))
        return next((j for j in every if j.slug == slug), None)


@dataclass(frozen=True, slots=True)
class Known:
    """What a job's parameters may name, by parameter type (conditions.LEVEL...), and the
    reward tiers of the economy."""

    names: Mapping[str, frozenset[str]]
    tiers: frozenset[str]


def _where(version: str, slug: object) -> str:
    return f"job pool {version}, job {slug!r}"


def _job(raw: object, version: str, known: Known) -> Job:
    if not isinstance(raw, dict):
        raise PoolError(f"job pool {version}: each job is an object")
    slug = raw.get("slug")
    where = _where(version, slug)
    if set(raw) - {"slug", "kind", "params", "goal", "tier", "text"}:
        raise PoolError(f"{where}: unknown fields {sorted(set(raw) - {'slug', 'kind'})}")
    if not isinstance(slug, str) or not slug or not slug.replace("-", "").isalnum():
        raise PoolError(f"{where}: a slug is letters, digits and dashes")
    kind = conditions.KINDS.get(raw.get("kind"))  # type: ignore[arg-type]
    if kind is None:
        raise PoolError(f"{where}: unknown kind {raw.get('kind')!r}")
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise PoolError(f"{where}: params must be an object")
    if missing := set(kind.required) - set(params):
        raise PoolError(f"{where}: kind {kind.name} needs {sorted(missing)}")
    types = {**kind.required, **kind.optional}
    for name, value in params.items():
        if name not in types:
            raise PoolError(f"{where}: kind {kind.name} takes no {name!r}")
        if types[name] == conditions.COUNT:
            if type(value) is not int or value < 0:
                raise PoolError(f"{where}: {name} must be a whole number")
        elif value not in known.names[types[name]]:
            raise PoolError(f"{where}: no {types[name]} {value!r}")
    goal = raw.get("goal")
    if type(goal) is not int or goal <= 0:
        raise PoolError(f"{where}: goal must be a positive whole number")
    if raw.get("tier") not in known.tiers:
        raise PoolError(f"{where}: tier {raw.get('tier')!r} is not in the economy's jobs")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > TEXT_MAX:
        raise PoolError(f"{where}: text is 1 to {TEXT_MAX} characters")
    return Job(slug, kind.name, MappingProxyType(dict(params)), goal, raw["tier"], text)


def parse(data: object, *, version: str, known: Known) -> Pool:
    """Check and freeze one pool file's contents."""
    if not isinstance(data, dict) or data.get("version") != version:
        raise PoolError(f'job pool {version}: an object with "version": {version!r}')
    if unknown := set(data) - {"version", "daily", "weekly", "starter"}:
        raise PoolError(f"job pool {version}: unknown fields {sorted(unknown)}")
    lists = {}
    for period, picks in PICKS.items():
        raw = data.get(period)
        if not isinstance(raw, list):
            raise PoolError(f"job pool {version}: {period!r} must be a list")
        lists[period] = tuple(_job(j, version, known) for j in raw)
        if len({j.kind for j in lists[period]}) < picks:
            raise PoolError(
                f"job pool {version}: {period} needs jobs of at least {picks} kinds "
                "(a period's jobs are of different kinds)"
            )
    starter = _job(data["starter"], version, known) if data.get("starter") else None
    slugs = [j.slug for js in lists.values() for j in js] + ([starter.slug] if starter else [])
    if len(slugs) != len(set(slugs)):
        raise PoolError(f"job pool {version}: slugs repeat")
    return Pool(version, lists[DAILY], lists[WEEKLY], starter)


def draw(jobs: Sequence[Job], count: int, seed: str) -> tuple[Job, ...]:
    """``count`` jobs of different kinds from ``jobs``, the same for the same ``seed`` (a
    player and a period) on every machine and Python: jobs in the order of SHA-256 of the
    seed and their slug, each kept unless one of its kind came before."""
    order = sorted(jobs, key=lambda j: hashlib.sha256(f"{seed}/{j.slug}".encode()).digest())
    chosen: list[Job] = []
    for job in order:
        if len(chosen) < count and job.kind not in {c.kind for c in chosen}:
            chosen.append(job)
    return tuple(chosen)


def levels() -> tuple[str, ...]:
    """The difficulty slugs, weakest first (what ``level`` compares)."""
    return tuple(d.slug for d in list_difficulties())


def _encounter_slugs() -> Iterable[str]:
    text = resources.files("game").joinpath("data", "encounters.json").read_text("utf-8")
    return (e["slug"] for e in json.loads(text)["encounters"])


def known_now() -> Known:
    """What jobs may name today: the new heists' ruleset's vaults and base-set crew (free to
    everyone, so every player can do every job), the rivals, the levels, the encounters, and
    the current economy's job tiers."""
    ruleset = get_ruleset(DEFAULT_VERSION)
    base = {slug for slug, crew_set in ruleset.crew_set.items() if crew_set == "base"}
    return Known(
        names={
            conditions.LEVEL: frozenset(levels()),
            conditions.VAULT: frozenset(v.slug for v in ruleset.vaults),
            conditions.CREW: frozenset(base),
            conditions.ENCOUNTER: frozenset(_encounter_slugs()),
            conditions.RIVAL_SLUG: frozenset(p.slug for p in list_personas()),
        },
        tiers=frozenset(get_economy().jobs),
    )


@cache
def get_pool(version: str = CURRENT_VERSION) -> Pool:
    """The packaged pool ``version`` (cached: versions are immutable)."""
    if not version.replace(".", "").isalnum():
        raise PoolError(f"no job pool {version!r}")
    path = resources.files("game").joinpath("data", "jobs", f"{version}.json")
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise PoolError(f"no job pool {version!r}") from None
    return parse(json.loads(text), version=version, known=known_now())


def active() -> Pool:
    """The pool new periods draw from."""
    return get_pool(CURRENT_VERSION)
