"""The numbers of the Signs economy, as versioned data (DESIGN.md section 6).

One ``data/economy/<version>.json`` per version: the welcome grant, the daily limit on earning
heists, the earning table by outcome and difficulty, and (from 2026.12) what jobs pay by tier
(DESIGN.md section 11: the game's job pool names a tier for each job, this table its Signs).
Like a ruleset, a version never changes once players have earned under it: a new table is a new
file and a new ``CURRENT_VERSION``, and every heist earning (and every period of jobs) records
the version it was paid under.

Pure data and checks: no database. The difficulty slugs are the game's (``game.rivals``); the
shop does not import the game, so a test checks that the table covers exactly those.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

CURRENT_VERSION = "2026.12"
OUTCOMES = ("win", "draw", "loss")


class EconomyError(ValueError):
    """A malformed economy file, or a question the table has no answer for."""


@dataclass(frozen=True, slots=True)
class Economy:
    version: str
    welcome: int
    daily_heist_limit: int
    # outcome -> difficulty -> Signs
    heist: Mapping[str, Mapping[str, int]]
    # job tier (the game's job pool names one per job) -> Signs; empty before jobs existed.
    jobs: Mapping[str, int] = MappingProxyType({})

    @property
    def difficulties(self) -> tuple[str, ...]:
        return tuple(self.heist[OUTCOMES[0]])

    def heist_signs(self, *, outcome: str, difficulty: str) -> int:
        try:
            return self.heist[outcome][difficulty]
        except KeyError:
            raise EconomyError(
                f"economy {self.version}: no earning for outcome {outcome!r} at difficulty "
                f"{difficulty!r}"
            ) from None

    def job_reward(self, tier: str) -> int:
        try:
            return self.jobs[tier]
        except KeyError:
            raise EconomyError(f"economy {self.version}: no job reward for tier {tier!r}") from None


def _positive_int(value: object, where: str) -> int:
    # bool is an int in Python; a table cell of `true` is a typo, not 1 Sign.
    if type(value) is not int or value <= 0:
        raise EconomyError(f"{where}: expected a positive integer, got {value!r}")
    return value


def parse(data: object, *, version: str) -> Economy:
    """Check and freeze one economy file's contents."""
    if not isinstance(data, dict):
        raise EconomyError(f"economy {version}: expected an object")
    unknown = set(data) - {"version", "welcome", "daily_heist_limit", "heist", "jobs"}
    if unknown:
        raise EconomyError(f"economy {version}: unknown fields {sorted(unknown)}")
    if data.get("version") != version:
        raise EconomyError(f"economy {version}: the file says version {data.get('version')!r}")
    table = data.get("heist")
    if not isinstance(table, dict) or set(table) != set(OUTCOMES):
        raise EconomyError(f"economy {version}: 'heist' needs exactly the outcomes {OUTCOMES}")
    difficulties: list[str] | None = None
    frozen: dict[str, Mapping[str, int]] = {}
    for outcome in OUTCOMES:
        row = table[outcome]
        if not isinstance(row, dict) or not row:
            raise EconomyError(f"economy {version}: heist.{outcome} must be a non-empty object")
        if difficulties is None:
            difficulties = list(row)
        elif list(row) != difficulties:
            raise EconomyError(
                f"economy {version}: heist.{outcome} lists {list(row)}, not {difficulties}"
            )
        frozen[outcome] = MappingProxyType(
            {d: _positive_int(v, f"economy {version}: heist.{outcome}.{d}") for d, v in row.items()}
        )
    return Economy(
        version=version,
        welcome=_positive_int(data.get("welcome"), f"economy {version}: welcome"),
        daily_heist_limit=_positive_int(
            data.get("daily_heist_limit"), f"economy {version}: daily_heist_limit"
        ),
        heist=MappingProxyType(frozen),
        jobs=_jobs(data.get("jobs", {}), version),
    )


def _jobs(table: object, version: str) -> Mapping[str, int]:
    if not isinstance(table, dict):
        raise EconomyError(f"economy {version}: 'jobs' must be an object of tier: Signs")
    return MappingProxyType(
        {
            str(tier): _positive_int(v, f"economy {version}: jobs.{tier}")
            for tier, v in table.items()
        }
    )


@cache
def get_economy(version: str = CURRENT_VERSION) -> Economy:
    """The packaged economy ``version`` (cached: versions are immutable)."""
    if not version.replace(".", "").isalnum():
        raise EconomyError(f"no economy version {version!r}")
    path = resources.files("shop").joinpath("data", "economy", f"{version}.json")
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise EconomyError(f"no economy version {version!r}") from None
    return parse(json.loads(text), version=version)
