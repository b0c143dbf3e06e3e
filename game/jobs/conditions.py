"""The conditions jobs ask for, checked from what a finished heist stored (DESIGN.md section 11).

Pure: no Django, no clock. A heist is seen as :class:`HeistFacts`, built by the job service
from the heist's row and the results of its stored nights (``NightResult.from_dict`` of each
``HeistNight.result``), and by ``bench/economy.py`` from heists it plays with the engine. Each
kind of condition turns one heist into a number of steps towards a goal (a job's progress is
the sum over the heists of its period): 1 for a heist that qualifies, or a count (the vaults
taken, the loot).

Every kind also takes ``level``: only heists at that difficulty or harder count.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from game.engine import PLAYER, RIVAL, NightResult


@dataclass(frozen=True, slots=True)
class HeistFacts:
    """What a job may read of one finished heist: how it was set up and every night's reveal,
    in order."""

    difficulty: str
    outcome: str  # "win", "draw" or "loss"
    rival: str  # persona slug
    encounter: str  # slug, "" for none
    featured: bool
    nights: tuple[NightResult, ...]
    finished_at: dt.datetime | None = None  # which period it falls in; no condition reads it

    @property
    def won(self) -> bool:
        return self.outcome == "win"

    @property
    def score(self) -> Mapping[str, int]:
        return self.nights[-1].score if self.nights else {PLAYER: 0, RIVAL: 0}


# A parameter's type: what the pool's checker compares it against.
LEVEL, VAULT, CREW, ENCOUNTER, RIVAL_SLUG, COUNT = (
    "level",
    "vault",
    "crew",
    "encounter",
    "rival",
    "count",
)


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of condition: its parameters (name -> type; ``optional`` may be left out) and
    the steps one heist makes."""

    name: str
    steps: Callable[[HeistFacts, Mapping[str, Any]], int]
    required: Mapping[str, str]
    optional: Mapping[str, str]
    text: str  # what it counts, for the pool's docs and the checker's errors


def _taken(night: NightResult):
    """The vaults the player took that night."""
    return [v for v in night.vaults if v.winner == PLAYER]


def _crew_at(night: NightResult, vault: str) -> list[str]:
    return [c.crew for c in night.player.crew if c.vault == vault]


def _boosts(f: HeistFacts) -> int:
    return sum(n.player.boost for n in f.nights)


def _finish(f, p):
    return 1


def _win(f, p):
    return 1 if f.won else 0


def _vault(f, p):
    return sum(1 for n in f.nights for v in _taken(n) if v.slug == p["vault"])


def _crew(f, p):
    return sum(1 for n in f.nights for v in _taken(n) if p["crew"] in _crew_at(n, v.slug))


def _encounter(f, p):
    if not f.encounter:
        return 0
    return 1 if p.get("encounter") in (None, f.encounter) else 0


def _featured(f, p):
    return 1 if f.featured else 0


def _boost_win(f, p):
    return 1 if f.won and _boosts(f) >= p.get("boosts", 1) else 0


def _quiet_win(f, p):
    return 1 if f.won and _boosts(f) == 0 else 0


def _margin(f, p):
    return 1 if f.won and f.score[PLAYER] - f.score[RIVAL] >= p["margin"] else 0


def _spread(f, p):
    # Two crew at most a night (RULES.md): two vaults is the most one night can take.
    return sum(1 for n in f.nights if len(_taken(n)) >= p["vaults"])


def _loot(f, p):
    return f.score[PLAYER]


def _big_night(f, p):
    return sum(1 for n in f.nights if sum(v.loot for v in _taken(n)) >= p["loot"])


def _vaults(f, p):
    return sum(len(_taken(n)) for n in f.nights)


def _every_night(f, p):
    return 1 if f.nights and all(_taken(n) for n in f.nights) else 0


def _comeback(f, p):
    behind = [n for n in f.nights if n.night == p["night"]]
    return 1 if f.won and behind and behind[0].score[PLAYER] < behind[0].score[RIVAL] else 0


def _cool_win(f, p):
    return 1 if f.won and f.nights and f.nights[-1].player.heat_end <= p["heat"] else 0


def _rival(f, p):
    return 1 if f.won and f.rival == p["rival"] else 0


def _double_up(f, p):
    return sum(1 for n in f.nights for v in _taken(n) if len(_crew_at(n, v.slug)) >= 2)


def _hold(f, p):
    return 1 if f.won and f.score[RIVAL] <= p["loot"] else 0


_LEVEL = {"level": LEVEL}
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("finish", _finish, {}, _LEVEL, "heists finished"),
        Kind("win", _win, {}, _LEVEL, "heists won"),
        Kind("vault", _vault, {"vault": VAULT}, _LEVEL, "nights that vault was taken"),
        Kind("crew", _crew, {"crew": CREW}, _LEVEL, "vaults taken with that crew there"),
        Kind("encounter", _encounter, {}, {**_LEVEL, "encounter": ENCOUNTER}, "encounters"),
        Kind("featured", _featured, {}, _LEVEL, "featured heists finished"),
        Kind("boost_win", _boost_win, {}, {**_LEVEL, "boosts": COUNT}, "wins with Boost"),
        Kind("quiet_win", _quiet_win, {}, _LEVEL, "wins without a Boost"),
        Kind("margin", _margin, {"margin": COUNT}, _LEVEL, "wins by that margin"),
        Kind("spread", _spread, {"vaults": COUNT}, _LEVEL, "nights that many vaults were taken"),
        Kind("loot", _loot, {}, _LEVEL, "loot taken"),
        Kind("big_night", _big_night, {"loot": COUNT}, _LEVEL, "nights with that much loot"),
        Kind("vaults", _vaults, {}, _LEVEL, "vaults taken"),
        Kind("every_night", _every_night, {}, _LEVEL, "heists with a vault every night"),
        Kind("comeback", _comeback, {"night": COUNT}, _LEVEL, "wins from behind"),
        Kind("cool_win", _cool_win, {"heat": COUNT}, _LEVEL, "wins ending cool"),
        Kind("rival", _rival, {"rival": RIVAL_SLUG}, _LEVEL, "wins against that rival"),
        Kind("double_up", _double_up, {}, _LEVEL, "vaults taken by two crew together"),
        Kind("hold", _hold, {"loot": COUNT}, _LEVEL, "wins holding the rival to that loot"),
    )
}


def steps(kind: str, params: Mapping[str, Any], facts: HeistFacts, levels: tuple[str, ...]) -> int:
    """How far one heist takes a job of ``kind`` with ``params``; ``levels`` are the
    difficulty slugs, weakest first (``level`` counts heists at that one or harder)."""
    level = params.get("level")
    if level is not None and levels.index(facts.difficulty) < levels.index(level):
        return 0
    return KINDS[kind].steps(facts, params)
