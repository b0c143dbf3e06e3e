"""What the shop sells, as data (DESIGN.md sections 5-7): ``data/catalogue.json``.

Pure data and checks, no database: :func:`get_catalogue` reads and checks the file once per
process; ``services.shop_catalogue_load`` (run by ``manage.py load_catalogue``) copies it into
the ShopItem table. Prices are data like the rest of the economy: a new price is an edit of the
file and a load, never code.

Night Market crew are crew types of the rulesets (the engine's data says which are in the set
``night-market``); this file only prices them. A crew item must not be a base-set type (those
are free to everyone), and the tests check that every Night Market type of the default ruleset
is on sale here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from game.engine import available_versions, get_ruleset

KINDS = ("crew", "card_back", "board_theme", "title")
COSMETICS = ("card_back", "board_theme", "title")
NIGHT_MARKET = "night-market"
# DESIGN.md section 6: each kind's price range, inclusive.
PRICES = {"crew": (150, 250), "card_back": (80, 80), "board_theme": (200, 200), "title": (50, 120)}
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FIELDS = {"slug", "kind", "name", "description", "price", "active"}
LIMITS = {"slug": 40, "name": 60, "description": 300, "art": 60}


class CatalogueError(ValueError):
    """A malformed catalogue file."""


@dataclass(frozen=True, slots=True)
class Item:
    slug: str
    kind: str
    name: str
    description: str
    price: int
    active: bool
    art: str  # empty for crew


@dataclass(frozen=True, slots=True)
class Catalogue:
    version: str
    items: tuple[Item, ...]

    def get(self, slug: str) -> Item | None:
        return next((i for i in self.items if i.slug == slug), None)


def _text(value: object, where: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise CatalogueError(f"{where}: expected 1 to {limit} characters, got {value!r}")
    return value


@cache
def crew_sets() -> dict[str, str]:
    """Every crew type of every packaged ruleset -> its set (``base`` or ``night-market``).
    A type keeps its set across rulesets; a later ruleset wins if one ever moved it."""
    sets: dict[str, str] = {}
    for version in available_versions():
        for slug, crew in get_ruleset(version).crew.items():
            sets[slug] = crew.set
    return sets


def night_market_crew() -> frozenset[str]:
    """The crew types a player must own before a deck may hold them (RULES.md 2026.12)."""
    return frozenset(s for s, crew_set in crew_sets().items() if crew_set == NIGHT_MARKET)


def parse(data: object) -> Catalogue:
    """Check and freeze the catalogue file's contents; a bad file fails with where and why."""
    if not isinstance(data, dict) or set(data) != {"version", "items"}:
        raise CatalogueError("catalogue: expected an object with exactly 'version' and 'items'")
    version = _text(data["version"], "catalogue.version", 32)
    rows = data["items"]
    if not isinstance(rows, list) or not rows:
        raise CatalogueError("catalogue.items: expected a non-empty list")
    sets = crew_sets()
    items: list[Item] = []
    seen: set[str] = set()
    for n, row in enumerate(rows):
        where = f"catalogue.items[{n}]"
        if not isinstance(row, dict):
            raise CatalogueError(f"{where}: expected an object")
        kind = row.get("kind")
        if kind not in KINDS:
            raise CatalogueError(f"{where}.kind: expected one of {KINDS}, got {kind!r}")
        allowed = _FIELDS | ({"art"} if kind in COSMETICS else set())
        if missing := _FIELDS - set(row):
            raise CatalogueError(f"{where}: missing {sorted(missing)}")
        if unknown := set(row) - allowed:
            raise CatalogueError(f"{where}: unknown fields {sorted(unknown)}")
        slug = _text(row["slug"], f"{where}.slug", LIMITS["slug"])
        if not _SLUG.match(slug):
            raise CatalogueError(f"{where}.slug: {slug!r} is not a lower-case slug")
        if slug in seen:
            raise CatalogueError(f"{where}.slug: {slug!r} appears twice")
        seen.add(slug)
        price = row["price"]
        low, high = PRICES[kind]
        # bool is an int in Python: a price of `true` is a typo, not 1 Sign.
        if type(price) is not int or not low <= price <= high:
            raise CatalogueError(f"{where}.price: a {kind} costs {low} to {high}, got {price!r}")
        if type(row["active"]) is not bool:
            raise CatalogueError(f"{where}.active: expected true or false")
        art = ""
        if kind in COSMETICS:
            art = _text(row.get("art"), f"{where}.art", LIMITS["art"])
            if not _SLUG.match(art):
                raise CatalogueError(f"{where}.art: {art!r} is not a lower-case slug")
        elif sets.get(slug) == "base":
            raise CatalogueError(f"{where}: {slug!r} is a base-set crew type, free to everyone")
        items.append(
            Item(
                slug=slug,
                kind=kind,
                name=_text(row["name"], f"{where}.name", LIMITS["name"]),
                description=_text(
                    row["description"], f"{where}.description", LIMITS["description"]
                ),
                price=price,
                active=row["active"],
                art=art,
            )
        )
    return Catalogue(version=version, items=tuple(items))


@cache
def get_catalogue() -> Catalogue:
    """The packaged catalogue (``shop/data/catalogue.json``), checked once per process."""
    raw = resources.files("shop").joinpath("data", "catalogue.json").read_text(encoding="utf-8")
    return parse(json.loads(raw))
