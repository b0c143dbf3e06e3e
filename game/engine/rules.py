"""Rulesets: every number of the game as versioned data.

RULES.md: the rules "will change as the game is tested", so nothing in the engine hard-codes a
number from the rules table. A :class:`Ruleset` is loaded from ``rulesets/<version>.json`` (package
data), validated strictly by :func:`load_ruleset`, and every heist records the version it was played
under so an old heist still replays after the default changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from .crew import CONDITION_KINDS, Bound, Check, Condition, CrewType, Effect
from .errors import DeckError, RulesetError
from .results import PowerPart

DEFAULT_VERSION = "2026.12"

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True, slots=True)
class Vault:
    slug: str
    name: str


@dataclass(frozen=True, slots=True)
class CompiledEffect:
    """An :class:`Effect` flattened for the hot path of ``resolve`` (no attribute chains), with
    its breakdown entries built once per ruleset instead of once per night."""

    check: Check
    param: int | None
    power: int
    heat: int
    reason: str
    power_part: PowerPart
    heat_part: PowerPart
    reads: frozenset[str]  # the NightContext fields the check reads (ConditionKind.reads)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every parameter of RULES.md's table, plus the crew catalogue in table order.

    Derived read-only lookups, built once per ruleset for the hot paths (and for rival search
    code that evaluates many positions): ``vault_slugs`` (table order), ``vault_set``,
    ``cost[slug]``, ``base_power[slug]``, ``crew_set[slug]`` (the crew's set, e.g. ``base`` or
    ``night-market``), ``sets`` (every set, in table order) and ``compiled[slug]`` (a tuple of
    :class:`CompiledEffect`, whose ``check(ctx, side, vault, param)`` is the condition).
    """

    version: str
    nights: int
    vaults: tuple[Vault, ...]
    loot_min: int
    loot_max: int
    hand_size: int
    max_crew: int
    deck_size: int
    max_copies: int
    boost_power: int
    boost_heat: int
    quiet_cooling: int
    heat_min: int
    heat_max: int
    boost_lock_heat: int
    energy_by_heat: tuple[int, ...]
    crew: Mapping[str, CrewType] = field(hash=False)

    # Lookups derived once per ruleset so legal_plans/resolve do no repeated work.
    vault_slugs: tuple[str, ...] = field(init=False, repr=False, compare=False, hash=False)
    vault_set: frozenset[str] = field(init=False, repr=False, compare=False, hash=False)
    cost: Mapping[str, int] = field(init=False, repr=False, compare=False, hash=False)
    base_power: Mapping[str, int] = field(init=False, repr=False, compare=False, hash=False)
    compiled: Mapping[str, tuple[CompiledEffect, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    crew_set: Mapping[str, str] = field(init=False, repr=False, compare=False, hash=False)
    sets: tuple[str, ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.crew, MappingProxyType):
            object.__setattr__(self, "crew", MappingProxyType(dict(self.crew)))
        object.__setattr__(self, "vault_slugs", tuple(v.slug for v in self.vaults))
        object.__setattr__(self, "vault_set", frozenset(v.slug for v in self.vaults))
        object.__setattr__(self, "cost", {s: c.cost for s, c in self.crew.items()})
        object.__setattr__(self, "base_power", {s: c.power for s, c in self.crew.items()})
        object.__setattr__(self, "crew_set", {s: c.set for s, c in self.crew.items()})
        object.__setattr__(self, "sets", tuple(dict.fromkeys(c.set for c in self.crew.values())))
        object.__setattr__(
            self,
            "compiled",
            {
                s: tuple(
                    CompiledEffect(
                        CONDITION_KINDS[e.condition.kind].check,
                        e.condition.param,
                        e.power,
                        e.heat,
                        f"{s}: {e.condition.describe()}",
                        PowerPart("bonus", e.power, f"{s}: {e.condition.describe()}"),
                        PowerPart("effect", e.heat, f"{s}: {e.condition.describe()}"),
                        CONDITION_KINDS[e.condition.kind].reads,
                    )
                    for e in c.effects
                )
                for s, c in self.crew.items()
            },
        )

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Pickle as data (the crew mapping is a read-only proxy, which pickle refuses); a
        # packaged ruleset comes back as the cached object for its version.
        return _restore, (self.to_dict(),)

    def vault_name(self, slug: str) -> str:
        for v in self.vaults:
            if v.slug == slug:
                return v.name
        raise KeyError(slug)

    def crew_in_set(self, name: str) -> tuple[str, ...]:
        """The crew slugs of set ``name`` (``base``, ``night-market``, ...), in table order."""
        return tuple(s for s, c in self.crew.items() if c.set == name)

    def energy_at(self, heat: int) -> int:
        return self.energy_by_heat[heat]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form :func:`load_ruleset` reads (round-trips exactly)."""
        return {
            "version": self.version,
            "nights": self.nights,
            "vaults": [{"slug": v.slug, "name": v.name} for v in self.vaults],
            "loot_min": self.loot_min,
            "loot_max": self.loot_max,
            "hand_size": self.hand_size,
            "max_crew": self.max_crew,
            "deck_size": self.deck_size,
            "max_copies": self.max_copies,
            "boost_power": self.boost_power,
            "boost_heat": self.boost_heat,
            "quiet_cooling": self.quiet_cooling,
            "heat_min": self.heat_min,
            "heat_max": self.heat_max,
            "boost_lock_heat": self.boost_lock_heat,
            "energy_by_heat": list(self.energy_by_heat),
            "crew": [c.to_dict() for c in self.crew.values()],
        }


# --- strict loading -------------------------------------------------------------------------

_TOP_KEYS = frozenset(
    {
        "version",
        "nights",
        "vaults",
        "loot_min",
        "loot_max",
        "hand_size",
        "max_crew",
        "deck_size",
        "max_copies",
        "boost_power",
        "boost_heat",
        "quiet_cooling",
        "heat_min",
        "heat_max",
        "boost_lock_heat",
        "energy_by_heat",
        "crew",
    }
)
_CREW_KEYS = frozenset({"slug", "name", "cost", "power", "text", "set", "effects"})


def _fail(path: str, problem: str) -> RulesetError:
    return RulesetError("ruleset_invalid", f"ruleset field '{path}': {problem}")


def _obj(value: Any, path: str, required: Iterable[str], optional: Iterable[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise _fail(path, f"must be an object, got {type(value).__name__}")
    req = frozenset(required)
    allowed = req | frozenset(optional)
    for key in value:
        if key not in allowed:
            raise _fail(f"{path}.{key}" if path else str(key), "unknown field")
    for key in sorted(req):
        if key not in value:
            raise _fail(f"{path}.{key}" if path else key, "missing")
    return value


def _int(value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    # bool is an int subclass in Python; a ruleset saying `true` for a number is a mistake.
    if type(value) is not int:
        raise _fail(path, f"must be an integer, got {type(value).__name__}")
    if lo is not None and value < lo:
        raise _fail(path, f"must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise _fail(path, f"must be at most {hi}, got {value}")
    return value


def _str(value: Any, path: str, pattern: re.Pattern[str] | None = None, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _fail(path, f"must be a string, got {type(value).__name__}")
    if not empty and not value.strip():
        raise _fail(path, "must not be empty")
    if pattern is not None and not pattern.match(value):
        raise _fail(path, f"{value!r} is not a valid slug")
    return value


def _list(value: Any, path: str, nonempty: bool = False) -> list:
    if not isinstance(value, list):
        raise _fail(path, f"must be a list, got {type(value).__name__}")
    if nonempty and not value:
        raise _fail(path, "must not be empty")
    return value


def _bound(bound: Bound, numbers: Mapping[str, int]) -> int | None:
    return numbers[bound] if isinstance(bound, str) else bound


def _condition(value: Any, path: str, numbers: Mapping[str, int]) -> Condition:
    _obj(value, path, ("kind",), ("param",))
    kind = _str(value["kind"], f"{path}.kind")
    spec = CONDITION_KINDS.get(kind)
    if spec is None:
        raise _fail(
            f"{path}.kind",
            f"unknown condition kind {kind!r} (known: {', '.join(sorted(CONDITION_KINDS))})",
        )
    if spec.needs_param:
        if "param" not in value:
            raise _fail(f"{path}.param", f"condition {kind!r} needs an integer param")
        least = _bound(spec.param_min, numbers)
        return Condition(kind, _int(value["param"], f"{path}.param", least))
    if "param" in value:
        raise _fail(f"{path}.param", f"condition {kind!r} takes no param")
    return Condition(kind)


def _effect(value: Any, path: str, numbers: Mapping[str, int]) -> Effect:
    _obj(value, path, ("condition",), ("power", "heat"))
    cond = _condition(value["condition"], f"{path}.condition", numbers)
    power = _int(value.get("power", 0), f"{path}.power")
    heat = _int(value.get("heat", 0), f"{path}.heat")
    if power == 0 and heat == 0:
        raise _fail(path, "an effect must change power or Heat")
    return Effect(cond, power, heat)


def _crew(value: Any, path: str, numbers: Mapping[str, int]) -> CrewType:
    _obj(value, path, _CREW_KEYS)
    return CrewType(
        slug=_str(value["slug"], f"{path}.slug", _SLUG),
        name=_str(value["name"], f"{path}.name"),
        cost=_int(value["cost"], f"{path}.cost", 0),
        power=_int(value["power"], f"{path}.power", 0),
        text=_str(value["text"], f"{path}.text", empty=True),
        set=_str(value["set"], f"{path}.set", _SLUG),
        effects=tuple(
            _effect(e, f"{path}.effects[{i}]", numbers)
            for i, e in enumerate(_list(value["effects"], f"{path}.effects"))
        ),
    )


def load_ruleset(data: dict) -> Ruleset:
    """Build a :class:`Ruleset` from its JSON form, refusing anything malformed.

    Raises :class:`RulesetError` (code ``ruleset_invalid``) whose message names the bad field,
    e.g. ``ruleset field 'crew[3].effects[0].condition.kind': unknown condition kind 'x'``.
    """
    _obj(data, "", _TOP_KEYS)
    version = _str(data["version"], "version", _VERSION)
    nights = _int(data["nights"], "nights", 1)

    vaults: list[Vault] = []
    for i, v in enumerate(_list(data["vaults"], "vaults", nonempty=True)):
        _obj(v, f"vaults[{i}]", ("slug", "name"))
        vaults.append(
            Vault(_str(v["slug"], f"vaults[{i}].slug", _SLUG), _str(v["name"], f"vaults[{i}].name"))
        )
        if v["slug"] in {x.slug for x in vaults[:-1]}:
            raise _fail(f"vaults[{i}].slug", f"duplicate vault slug {v['slug']!r}")

    loot_min = _int(data["loot_min"], "loot_min", 0)
    loot_max = _int(data["loot_max"], "loot_max", loot_min)
    hand_size = _int(data["hand_size"], "hand_size", 1)
    max_crew = _int(data["max_crew"], "max_crew", 1, hand_size)
    deck_size = _int(data["deck_size"], "deck_size", hand_size)
    max_copies = _int(data["max_copies"], "max_copies", 1)
    boost_power = _int(data["boost_power"], "boost_power", 0)
    boost_heat = _int(data["boost_heat"], "boost_heat", 0)
    quiet_cooling = _int(data["quiet_cooling"], "quiet_cooling", 0)
    heat_min = _int(data["heat_min"], "heat_min", 0)
    heat_max = _int(data["heat_max"], "heat_max", heat_min)
    # heat_max + 1 means "never locked"; anything else must be a reachable Heat.
    boost_lock_heat = _int(data["boost_lock_heat"], "boost_lock_heat", heat_min, heat_max + 1)
    energy = _list(data["energy_by_heat"], "energy_by_heat")
    if len(energy) != heat_max + 1:
        raise _fail(
            "energy_by_heat",
            f"needs one entry per Heat 0..{heat_max} ({heat_max + 1}), got {len(energy)}",
        )
    energy_by_heat = tuple(_int(e, f"energy_by_heat[{i}]", 0) for i, e in enumerate(energy))

    # The numbers a condition's least param may name (ConditionKind.param_min).
    numbers = {"heat_min": heat_min, "loot_min": loot_min}
    crew: dict[str, CrewType] = {}
    for i, c in enumerate(_list(data["crew"], "crew", nonempty=True)):
        ct = _crew(c, f"crew[{i}]", numbers)
        if ct.slug in crew:
            raise _fail(f"crew[{i}].slug", f"duplicate crew slug {ct.slug!r}")
        crew[ct.slug] = ct
    if len(crew) * max_copies < deck_size:
        raise _fail(
            "crew",
            f"{len(crew)} types x {max_copies} copies cannot fill a {deck_size}-card deck",
        )

    return Ruleset(
        version=version,
        nights=nights,
        vaults=tuple(vaults),
        loot_min=loot_min,
        loot_max=loot_max,
        hand_size=hand_size,
        max_crew=max_crew,
        deck_size=deck_size,
        max_copies=max_copies,
        boost_power=boost_power,
        boost_heat=boost_heat,
        quiet_cooling=quiet_cooling,
        heat_min=heat_min,
        heat_max=heat_max,
        boost_lock_heat=boost_lock_heat,
        energy_by_heat=energy_by_heat,
        crew=crew,
    )


def _package() -> Any:
    return resources.files(__package__).joinpath("rulesets")


@cache
def available_versions() -> tuple[str, ...]:
    """Versions shipped as package data, sorted."""
    return tuple(
        sorted(
            p.name[: -len(".json")]
            for p in _package().iterdir()
            if p.name.endswith(".json") and p.is_file()
        )
    )


def get_ruleset(version: str = DEFAULT_VERSION) -> Ruleset:
    """The packaged ruleset ``version`` (cached; rulesets are immutable, one object per version)."""
    return _load_packaged(version)


@cache
def _load_packaged(version: str) -> Ruleset:
    if version not in available_versions():
        raise RulesetError(
            "ruleset_unknown",
            f"no ruleset version {version!r} (available: {', '.join(available_versions())})",
        )
    raw = json.loads(_package().joinpath(f"{version}.json").read_text(encoding="utf-8"))
    ruleset = load_ruleset(raw)
    if ruleset.version != version:
        raise _fail("version", f"file {version}.json declares version {ruleset.version!r}")
    return ruleset


def validate_deck(ruleset: Ruleset, slugs: Iterable[str]) -> tuple[str, ...]:
    """Check a decklist against the ruleset; return it as a tuple (order kept: ids are indices)."""
    if isinstance(slugs, (str, bytes)) or not isinstance(slugs, Iterable):
        raise DeckError("deck_wrong_size", key="deck_not_a_list")
    deck = tuple(slugs)
    if len(deck) != ruleset.deck_size:
        raise DeckError("deck_wrong_size", size=ruleset.deck_size, count=len(deck))
    counts: dict[str, int] = {}
    for slug in deck:
        if not isinstance(slug, str) or slug not in ruleset.crew:
            raise DeckError("deck_unknown_card", slug=slug)
        counts[slug] = counts.get(slug, 0) + 1
    for slug, n in counts.items():
        if n > ruleset.max_copies:
            raise DeckError(
                "deck_too_many_copies", max_copies=ruleset.max_copies, count=n, slug=slug
            )
    return deck


def _restore(data: dict[str, Any]) -> Ruleset:
    version = data.get("version")
    if isinstance(version, str) and version in available_versions():
        packaged = get_ruleset(version)
        if packaged.to_dict() == data:
            return packaged
    return load_ruleset(data)
