"""What one night's reveal shows: frozen records with a JSON-friendly ``to_dict``.

RULES.md "Hidden information": every earlier night's full reveal is public to both sides, so a
:class:`NightResult` holds nothing secret and is copied whole into observations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .crew import PLAYER, RIVAL


@dataclass(frozen=True, slots=True)
class PowerPart:
    """One term of a power (or Heat) sum.

    Power kinds: ``base``, ``boost``, ``bonus``. Heat kinds: ``boost``, ``quiet``, ``effect``.
    ``reason`` is ``"<crew-slug>: <condition>"`` for effect terms, else empty.
    """

    kind: str
    amount: int
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "amount": self.amount, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PowerPart:
        return cls(data["kind"], data["amount"], data["reason"])


@dataclass(frozen=True, slots=True)
class CrewResult:
    card: int
    crew: str
    vault: str
    power: int
    breakdown: tuple[PowerPart, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "crew": self.crew,
            "vault": self.vault,
            "power": self.power,
            "breakdown": [p.to_dict() for p in self.breakdown],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CrewResult:
        return cls(
            data["card"],
            data["crew"],
            data["vault"],
            data["power"],
            tuple(PowerPart.from_dict(p) for p in data["breakdown"]),
        )


@dataclass(frozen=True, slots=True)
class SideResult:
    heat_start: int
    heat_end: int
    boost: bool
    crew: tuple[CrewResult, ...]
    heat_parts: tuple[PowerPart, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "heat_start": self.heat_start,
            "heat_end": self.heat_end,
            "boost": self.boost,
            "crew": [c.to_dict() for c in self.crew],
            "heat_parts": [p.to_dict() for p in self.heat_parts],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SideResult:
        return cls(
            data["heat_start"],
            data["heat_end"],
            data["boost"],
            tuple(CrewResult.from_dict(c) for c in data["crew"]),
            tuple(PowerPart.from_dict(p) for p in data["heat_parts"]),
        )


@dataclass(frozen=True, slots=True)
class VaultResult:
    slug: str
    player_power: int
    rival_power: int
    winner: str | None
    loot: int
    closed: bool = False

    def power(self, side: str) -> int:
        return self.player_power if side == PLAYER else self.rival_power

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "player_power": self.player_power,
            "rival_power": self.rival_power,
            "winner": self.winner,
            "loot": self.loot,
            "closed": self.closed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VaultResult:
        return cls(
            data["slug"],
            data["player_power"],
            data["rival_power"],
            data["winner"],
            data["loot"],
            data["closed"],
        )


@dataclass(frozen=True, slots=True)
class NightResult:
    """One night's reveal. ``loot`` is every vault's loot that night (0 when closed); ``score`` is
    each side's total after this night."""

    night: int
    loot: Mapping[str, int]
    closed: tuple[str, ...]
    player: SideResult
    rival: SideResult
    vaults: tuple[VaultResult, ...]
    score: Mapping[str, int]

    def side(self, side: str) -> SideResult:
        if side == PLAYER:
            return self.player
        if side == RIVAL:
            return self.rival
        raise KeyError(side)

    def winners(self) -> dict[str, str | None]:
        return {v.slug: v.winner for v in self.vaults}

    def to_dict(self) -> dict[str, Any]:
        return {
            "night": self.night,
            "loot": dict(self.loot),
            "closed": list(self.closed),
            PLAYER: self.player.to_dict(),
            RIVAL: self.rival.to_dict(),
            "vaults": [v.to_dict() for v in self.vaults],
            "score": {PLAYER: self.score[PLAYER], RIVAL: self.score[RIVAL]},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NightResult:
        """The inverse of :meth:`to_dict` (a stored reveal read back; raises KeyError or
        TypeError on a malformed one, which callers turn into their own error)."""
        return cls(
            night=data["night"],
            loot=dict(data["loot"]),
            closed=tuple(data["closed"]),
            player=SideResult.from_dict(data[PLAYER]),
            rival=SideResult.from_dict(data[RIVAL]),
            vaults=tuple(VaultResult.from_dict(v) for v in data["vaults"]),
            score={PLAYER: data["score"][PLAYER], RIVAL: data["score"][RIVAL]},
        )

    def plan(self, side: str) -> tuple[tuple[tuple[int, str], ...], bool]:
        """The plan ``side`` sealed that night, as (card id, vault) pairs and Boost."""
        sr = self.side(side)
        return tuple((c.card, c.vault) for c in sr.crew), sr.boost
