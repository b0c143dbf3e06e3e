"""Immutable heist state.

Cards: each side's deck is a tuple of crew slugs (the decklist, in the order given). A card's id is
its index in its side's decklist, so an id is stable while the card is in hand and means the same
thing in every replay. Piles (deck, hand, discard) hold ids; ``deck`` is in draw order, top first.

The heist key lives in :class:`HeistState` because later reshuffles and loot draws need it; it is
hidden from ``repr`` and never copied into an observation (RULES.md "Hidden information").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .crew import PLAYER, RIVAL, SIDES, other
from .errors import EngineError
from .results import NightResult
from .rules import Ruleset

__all__ = [
    "MOD_KINDS",
    "PLAYER",
    "RIVAL",
    "SIDES",
    "SIDE_INDEX",
    "Encounter",
    "EncounterError",
    "HeistState",
    "SideState",
    "VaultMod",
    "other",
]

SIDE_INDEX: Mapping[str, int] = {PLAYER: 0, RIVAL: 1}
MOD_KINDS = ("fixed", "raise", "double", "closed")


class EncounterError(EngineError):
    """An encounter is malformed or does not fit the ruleset (code ``encounter_invalid``)."""

    def __init__(self, message: str) -> None:
        super().__init__("encounter_invalid", message)


@dataclass(frozen=True, slots=True)
class SideState:
    decklist: tuple[str, ...]
    deck: tuple[int, ...]
    hand: tuple[int, ...]
    discard: tuple[int, ...]
    heat: int
    score: int
    shuffles: int  # shuffles done so far; the next one uses stream shuffle/{side}/{shuffles}

    def hand_slugs(self) -> tuple[str, ...]:
        return tuple(self.decklist[c] for c in self.hand)

    def discard_slugs(self) -> tuple[str, ...]:
        return tuple(self.decklist[c] for c in self.discard)


@dataclass(frozen=True, slots=True)
class VaultMod:
    """An encounter's change to one vault on the given nights.

    ``fixed`` sets the loot to ``amount``; ``raise`` adds ``amount``; ``double`` doubles it;
    ``closed`` closes the vault (no loot, no crew may be sent). On one night and vault they apply
    in that order whatever order they are listed in (fixed, then raise, then double), so
    "fixed 2 + double" always means 4; ``closed`` cannot be combined with another kind.
    """

    vault: str
    nights: tuple[int, ...]
    kind: str
    amount: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "vault": self.vault,
            "nights": list(self.nights),
            "kind": self.kind,
            "amount": self.amount,
        }


def _enc_int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise EncounterError(f"{what} must be an integer, got {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True)
class Encounter:
    """A named scenario disclosed in full before play (RULES.md "Encounters")."""

    slug: str
    name: str
    description: str = ""
    start_heat: Mapping[str, int] = field(default_factory=dict, hash=False)
    vault_mods: tuple[VaultMod, ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Encounter:
        if not isinstance(data, Mapping):
            raise EncounterError("an encounter is an object")
        allowed = {"slug", "name", "description", "start_heat", "vault_mods"}
        for key in data:
            if key not in allowed:
                raise EncounterError(f"encounter field '{key}': unknown field")
        for key in ("slug", "name"):
            if not isinstance(data.get(key), str) or not data[key]:
                raise EncounterError(f"encounter field '{key}' must be a non-empty string")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise EncounterError("encounter field 'description' must be a string")
        raw_heat = data.get("start_heat", {}) or {}
        if not isinstance(raw_heat, Mapping):
            raise EncounterError("encounter field 'start_heat' must be an object")
        start_heat: dict[str, int] = {}
        for side, value in raw_heat.items():
            if side not in SIDES:
                raise EncounterError(f"encounter field 'start_heat.{side}': unknown side")
            start_heat[side] = _enc_int(value, f"encounter field 'start_heat.{side}'")
        raw_mods = data.get("vault_mods", []) or []
        if not isinstance(raw_mods, list):
            raise EncounterError("encounter field 'vault_mods' must be a list")
        mods = []
        for i, m in enumerate(raw_mods):
            where = f"encounter field 'vault_mods[{i}]'"
            if not isinstance(m, Mapping):
                raise EncounterError(f"{where} must be an object")
            for key in m:
                if key not in {"vault", "nights", "kind", "amount"}:
                    raise EncounterError(f"{where}.{key}: unknown field")
            if not isinstance(m.get("vault"), str):
                raise EncounterError(f"{where}.vault must be a vault slug")
            if not isinstance(m.get("kind"), str):
                raise EncounterError(f"{where}.kind must be one of {', '.join(MOD_KINDS)}")
            nights = m.get("nights")
            if not isinstance(nights, list):
                raise EncounterError(f"{where}.nights must be a list of night numbers")
            mods.append(
                VaultMod(
                    vault=m["vault"],
                    nights=tuple(_enc_int(n, f"{where}.nights") for n in nights),
                    kind=m["kind"],
                    amount=_enc_int(m.get("amount", 0), f"{where}.amount"),
                )
            )
        return cls(data["slug"], data["name"], description, start_heat, tuple(mods))

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "description": self.description,
            "start_heat": {s: self.start_heat[s] for s in SIDES if s in self.start_heat},
            "vault_mods": [m.to_dict() for m in self.vault_mods],
        }

    def validate(self, ruleset: Ruleset) -> Encounter:
        """Check every modifier against ``ruleset``; returns self for chaining."""
        for side, heat in self.start_heat.items():
            if side not in SIDES:
                raise EncounterError(f"start_heat names unknown side {side!r}")
            if type(heat) is not int or not ruleset.heat_min <= heat <= ruleset.heat_max:
                raise EncounterError(
                    f"start_heat.{side} must be {ruleset.heat_min}..{ruleset.heat_max}, "
                    f"got {heat!r}"
                )
        seen: set[tuple[str, int, str]] = set()
        for i, mod in enumerate(self.vault_mods):
            where = f"vault_mods[{i}]"
            if mod.vault not in ruleset.vault_set:
                raise EncounterError(f"{where}.vault: unknown vault {mod.vault!r}")
            if mod.kind not in MOD_KINDS:
                raise EncounterError(
                    f"{where}.kind: {mod.kind!r} is not one of {', '.join(MOD_KINDS)}"
                )
            if not mod.nights:
                raise EncounterError(f"{where}.nights must name at least one night")
            for n in mod.nights:
                if type(n) is not int or not 1 <= n <= ruleset.nights:
                    raise EncounterError(
                        f"{where}.nights: {n!r} is not a night 1..{ruleset.nights}"
                    )
            if mod.kind == "fixed" and mod.amount < 0:
                raise EncounterError(f"{where}.amount: fixed loot cannot be negative")
            if mod.kind == "raise" and mod.amount < 1:
                raise EncounterError(f"{where}.amount: a raise must be at least 1")
            if mod.kind in ("double", "closed") and mod.amount != 0:
                raise EncounterError(f"{where}.amount: {mod.kind} takes no amount")
            for n in mod.nights:
                key = (mod.vault, n, mod.kind)
                if key in seen:
                    raise EncounterError(
                        f"{where}: two {mod.kind!r} modifiers for {mod.vault} on night {n}"
                    )
                seen.add(key)
        for vault, n, kind in seen:
            if kind == "closed" and any((vault, n, k) in seen for k in MOD_KINDS if k != "closed"):
                raise EncounterError(f"{vault} is closed on night {n} and also modified")
        return self

    def heat_for(self, side: str, default: int) -> int:
        return self.start_heat.get(side, default)

    def apply(self, night: int, vault: str, loot: int) -> tuple[int, bool]:
        """Loot after this encounter's modifiers, and whether the vault is closed."""
        mods = [m for m in self.vault_mods if m.vault == vault and night in m.nights]
        if not mods:
            return loot, False
        kinds = {m.kind: m for m in mods}
        if "closed" in kinds:
            return 0, True
        if "fixed" in kinds:
            loot = kinds["fixed"].amount
        if "raise" in kinds:
            loot += kinds["raise"].amount
        if "double" in kinds:
            loot *= 2
        return loot, False


@dataclass(frozen=True, slots=True)
class HeistState:
    """A heist between nights. ``night`` is 1-based; after the last night it is ``nights + 1``
    and ``finished`` is true (``loot`` is then empty).

    ``loot`` and ``closed`` are for *this* night only (RULES.md ruling: later loot is never
    shown, and is not even drawn until its night starts). ``last_winners`` maps each vault to the
    side that won it last night, or None (tie or closed); it is empty on night 1.
    Mappings held here must be treated as read-only.
    """

    ruleset: Ruleset
    key: bytes = field(repr=False)
    night: int
    sides: tuple[SideState, SideState]
    loot: Mapping[str, int]
    closed: frozenset[str]
    last_winners: Mapping[str, str | None]
    encounter: Encounter | None
    history: tuple[NightResult, ...]

    @property
    def ruleset_version(self) -> str:
        return self.ruleset.version

    @property
    def finished(self) -> bool:
        return self.night > self.ruleset.nights

    @property
    def player(self) -> SideState:
        return self.sides[0]

    @property
    def rival(self) -> SideState:
        return self.sides[1]

    def side(self, side: str) -> SideState:
        try:
            return self.sides[SIDE_INDEX[side]]
        except KeyError:
            raise EngineError(
                "unknown_side", f"a side is 'player' or 'rival', got {side!r}"
            ) from None

    @property
    def start_heat(self) -> dict[str, int]:
        """Each side's Heat at the start of this night (Heat only changes at resolve)."""
        return {PLAYER: self.sides[0].heat, RIVAL: self.sides[1].heat}

    def energy(self, side: str) -> int:
        return self.ruleset.energy_by_heat[self.side(side).heat]

    @property
    def score(self) -> dict[str, int]:
        return {PLAYER: self.sides[0].score, RIVAL: self.sides[1].score}
