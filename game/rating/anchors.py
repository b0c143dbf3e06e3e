"""The rating's numbers as versioned data: game/data/rating.json (DESIGN.md section 11).

Each level of the rival is a fixed anchor: a Glicko rating (and its small deviation) measured
from the rival tournament and written by ``python -m game.rivals.lab.anchors`` from the report
it names (docs/rivals.md), with the formula in that module and docs/rating.md. The file also
holds the Glicko-2 settings: where a new player starts, the system constant tau and the
deviation above which a rating is provisional.

Like the economy's table, the anchors are a version: every rated heist records the version and
the anchor it was rated against (game.models.RatingChange), so a new tournament run makes new
anchors under a new version and the history stays as it was rated. Pure data and checks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

from game.rating.glicko2 import Rating

LEVELS = ("rookie", "hustler", "safecracker", "kingpin")


class AnchorsError(ValueError):
    """A malformed rating file."""


@dataclass(frozen=True, slots=True)
class Anchor:
    level: str
    rating: int
    deviation: int
    strength: float  # the tournament's Bradley-Terry log-strength


@dataclass(frozen=True, slots=True)
class Anchors:
    version: str
    start: Rating  # a new player's rating
    tau: float
    provisional_above: float  # a deviation above this is provisional
    zero: float  # the log-strength rated 1500 (the player-style panel's mean)
    levels: Mapping[str, Anchor]  # difficulty slug -> anchor, weakest first
    ladder: Mapping[str, Anchor]  # every bot of the report's ladder (random and greedy too)
    panel: Mapping[str, int]  # player style -> its rating (what 1500 is the mean of)
    source: Mapping[str, object]

    def anchor(self, level: str) -> Anchor:
        try:
            return self.levels[level]
        except KeyError:
            raise AnchorsError(f"rating {self.version}: no anchor for level {level!r}") from None

    def provisional(self, deviation: float) -> bool:
        return deviation > self.provisional_above


def _number(value: object, where: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AnchorsError(f"{where}: expected a number, got {value!r}")
    if positive and value <= 0:
        raise AnchorsError(f"{where}: expected a positive number, got {value!r}")
    return float(value)


def _anchor(name: str, row: object, where: str) -> Anchor:
    if not isinstance(row, dict):
        raise AnchorsError(f"{where}: expected an object")
    rating, deviation = row.get("rating"), row.get("deviation")
    if type(rating) is not int or type(deviation) is not int or deviation <= 0:
        raise AnchorsError(f"{where}: rating and deviation must be integers (deviation > 0)")
    return Anchor(name, rating, deviation, _number(row.get("strength"), where, positive=False))


def parse(data: object) -> Anchors:
    """Check and freeze the rating file's contents."""
    if not isinstance(data, dict):
        raise AnchorsError("rating: expected an object")
    version = data.get("version")
    if not isinstance(version, str) or not version:
        raise AnchorsError("rating: no version")
    where = f"rating {version}"
    settings = data.get("glicko2")
    if not isinstance(settings, dict):
        raise AnchorsError(f"{where}: no glicko2 settings")
    ladder_rows = data.get("ladder")
    if not isinstance(ladder_rows, dict):
        raise AnchorsError(f"{where}: no ladder")
    ladder = {n: _anchor(n, r, f"{where}: ladder.{n}") for n, r in ladder_rows.items()}
    if missing := [level for level in LEVELS if level not in ladder]:
        raise AnchorsError(f"{where}: the ladder has no anchor for {missing}")
    levels = {level: ladder[level] for level in LEVELS}
    ratings = [a.rating for a in levels.values()]
    if ratings != sorted(set(ratings)):
        raise AnchorsError(f"{where}: the levels' anchors are not in order: {ratings}")
    panel = data.get("panel")
    if not isinstance(panel, dict) or not panel:
        raise AnchorsError(f"{where}: no panel")
    return Anchors(
        version=version,
        start=Rating(
            _number(settings.get("start"), f"{where}: glicko2.start"),
            _number(settings.get("deviation"), f"{where}: glicko2.deviation"),
            _number(settings.get("volatility"), f"{where}: glicko2.volatility"),
        ),
        tau=_number(settings.get("tau"), f"{where}: glicko2.tau"),
        provisional_above=_number(
            settings.get("provisional_above"), f"{where}: glicko2.provisional_above"
        ),
        zero=_number(data.get("zero"), f"{where}: zero", positive=False),
        levels=MappingProxyType(levels),
        ladder=MappingProxyType(ladder),
        panel=MappingProxyType({s: int(r["rating"]) for s, r in panel.items()}),
        source=MappingProxyType(dict(data.get("source") or {})),
    )


@cache
def current() -> Anchors:
    """The packaged anchors (cached: a file of the release, read once per process)."""
    text = resources.files("game").joinpath("data", "rating.json").read_text("utf-8")
    return parse(json.loads(text))
