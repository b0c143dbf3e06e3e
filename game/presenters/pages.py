"""What the server-rendered pages show, built from engine and model objects: deck summaries,
crew rows, the board's ruleset data, the result's nights and the replay's vault rows."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from game.engine import Ruleset, text
from game.models import SavedDeck

SAVED = "saved:"  # the picker's value for a saved deck: "saved:<id>"


def crew_rows(ruleset: Ruleset) -> list[dict[str, Any]]:
    return [
        {"slug": c.slug, "name": c.name, "cost": c.cost, "power": c.power, "text": c.text}
        for c in ruleset.crew.values()
    ]


def deck_summary(ruleset: Ruleset, deck: Iterable[str]) -> list[tuple[int, str]]:
    """[(count, name)] in ruleset order: how a public decklist is shown."""
    counts = Counter(deck)
    return [(counts[s], c.name) for s, c in ruleset.crew.items() if counts[s]]


def saved_deck_rows(
    decks: Iterable[SavedDeck], ruleset: Ruleset, playable: dict[int, bool]
) -> list[dict[str, Any]]:
    """A signed-in player's saved decks for a page: each with its summary and whether the
    current ruleset still accepts it."""
    return [
        {
            "id": d.pk,
            "name": d.name,
            "cards": list(d.cards),
            "choice": f"{SAVED}{d.pk}",
            "summary": deck_summary(ruleset, d.cards),
            "legal": playable[d.pk],
            "updated_at": d.updated_at,
        }
        for d in decks
    ]


def board_rules(ruleset: Ruleset) -> str:
    """The ruleset numbers, names and words the board needs, for its data-rules attribute."""
    return json.dumps(
        {
            "version": ruleset.version,
            "nights": ruleset.nights,
            "max_crew": ruleset.max_crew,
            "heat_max": ruleset.heat_max,
            "boost_lock_heat": ruleset.boost_lock_heat,
            "boost_power": ruleset.boost_power,
            "boost_heat": ruleset.boost_heat,
            "energy_by_heat": list(ruleset.energy_by_heat),
            "vaults": [{"slug": v.slug, "name": v.name} for v in ruleset.vaults],
            "crew": {
                c.slug: {"name": c.name, "cost": c.cost, "power": c.power, "text": c.text}
                for c in ruleset.crew.values()
            },
            # Words from the one table: the board fills the templates, never words its own.
            "text": dict(text.BOARD),
            "rival_reasons": text.rival_side_reasons(ruleset),
        },
        separators=(",", ":"),
    )


OUTCOME_TEXT = {"win": "You win", "loss": "The rival wins", "draw": "A draw"}


def result_nights(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each night's loot per side and the score after it, from the view's history."""
    return [
        {
            "night": n["night"],
            "you": sum(v["loot"] for v in n["vaults"] if v["winner"] == "you"),
            "rival": sum(v["loot"] for v in n["vaults"] if v["winner"] == "rival"),
            "score": n["score"],
        }
        for n in history
    ]


def replay_night(
    result: dict[str, Any], ruleset: Ruleset, engine: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One night of a finished heist, arranged per vault for the replay page. ``engine`` is the
    replay record's copy of the night (with each crew's power breakdown), when there is one."""
    name = {c.slug: c.name for c in ruleset.crew.values()}
    reasons = text.rival_side_reasons(ruleset)
    engine_crew = {
        side: (engine or {}).get(key, {}).get("crew", [])
        for side, key in (("you", "player"), ("rival", "rival"))
    }

    def rows(side: str, vault: str) -> list[dict[str, Any]]:
        out = []
        for i, c in enumerate(result[side]["crew"]):
            if c["vault"] != vault:
                continue
            detail = engine_crew[side][i] if i < len(engine_crew[side]) else {}
            out.append(
                {
                    "name": name.get(c["crew"], c["crew"]),
                    "power": c["power"],
                    "parts": text.breakdown_line(
                        detail.get("breakdown", []), rival=side == "rival", reasons=reasons
                    ),
                }
            )
        return out

    vaults = [
        {
            "name": ruleset.vault_name(v["slug"]),
            "loot": result["loot"].get(v["slug"], v["loot"]),
            "you_power": v["you_power"],
            "rival_power": v["rival_power"],
            "winner": v["winner"],
            "won": v["loot"],
            "you": rows("you", v["slug"]),
            "rival": rows("rival", v["slug"]),
        }
        for v in result["vaults"]
    ]
    return dict(result, vault_rows=vaults)


def rules_context(ruleset: Ruleset) -> dict[str, Any]:
    """The rules page: every sentence from the one table, every number from ``ruleset``."""
    return {
        "ruleset": ruleset,
        **text.rules_page(ruleset),
        "vaults": [v.name for v in ruleset.vaults],
        "energy": [
            {"heat": heat, "energy": energy} for heat, energy in enumerate(ruleset.energy_by_heat)
        ],
        "crew": [
            {
                "slug": c.slug,
                "name": c.name,
                "cost": c.cost,
                "power": c.power,
                "text": c.text,
                "set": c.set,
                "effects": [text.effect_text(c.slug, e) for e in c.effects],
            }
            for c in ruleset.crew.values()
        ],
    }
