"""What the server-rendered pages show, built from engine and model objects: deck summaries,
crew rows, the board's ruleset data, the result's nights and the replay's vault rows."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from game.engine import (
    PLAYER,
    RIVAL,
    NightResult,
    Plan,
    Ruleset,
    get_ruleset,
    new_heist,
    resolve,
    text,
)
from game.models import SavedDeck
from game.presenters import board, words
from game.rivals.personas import list_difficulties, list_personas
from shop.models import Entry, Reason

SAVED = "saved:"  # the picker's value for a saved deck: "saved:<id>"


def quick_heist(
    chosen: dict[str, str], names: dict[str, dict[str, str]], deck_name: str
) -> dict[str, Any]:
    """The Play page's one-tap start: the choices it posts and the line that names them."""
    encounter = names["encounter"].get(chosen["encounter"] or "", "Standard heist")
    parts = [
        names["rival"].get(chosen["rival"], chosen["rival"]),
        names["difficulty"].get(chosen["difficulty"], chosen["difficulty"]),
        encounter,
        deck_name,
    ]
    return {**chosen, "summary": " · ".join(p for p in parts if p)}


def in_play_card(heist: Any, *, rival_name: str, nights: int, url: str) -> dict[str, Any]:
    """ "Continue your heist": where it stands and the board's address."""
    return {
        "url": url,
        "rival": rival_name,
        "night": min(heist.night, nights),
        "nights": nights,
        "difficulty": heist.difficulty,
    }


def crew_rows(ruleset: Ruleset) -> list[dict[str, Any]]:
    return [
        {
            "slug": c.slug,
            "name": c.name,
            "cost": c.cost,
            "power": c.power,
            "text": c.text,
            "set": c.set,
        }
        for c in ruleset.crew.values()
    ]


# The deck builder's words about crew sold in the shop (deck.js fills the same templates).
LOCKED_TEXT = {
    "locked": "{name} is Night Market crew: buy it in the shop to put it in your decks.",
    "locked_guest": "{name} is Night Market crew: sign in and buy it in the shop to play it.",
    "unowned_deck": (
        "Can't be used: it holds Night Market crew you don't own ({names}). "
        "Buy them in the shop, or load the deck and take them out."
    ),
}


def crew_locks(
    rows: list[dict[str, Any]], *, locked: Iterable[str], prices: dict[str, int]
) -> None:
    """Mark each crew row the player may not put in a deck yet (Night Market crew they do not
    own, ``shop.selectors.unowned_crew``) with its price in the shop."""
    locked = set(locked)
    for row in rows:
        row["locked"] = row["slug"] in locked
        row["price"] = prices.get(row["slug"])


def deck_summary(ruleset: Ruleset, deck: Iterable[str]) -> list[tuple[int, str]]:
    """[(count, name)] in ruleset order: how a public decklist is shown."""
    counts = Counter(deck)
    return [(counts[s], c.name) for s, c in ruleset.crew.items() if counts[s]]


def saved_deck_rows(
    decks: Iterable[SavedDeck],
    ruleset: Ruleset,
    playable: dict[int, bool],
    unowned: dict[int, list[str]] | None = None,
) -> list[dict[str, Any]]:
    """A signed-in player's saved decks for a page: each with its summary and whether it can
    be played: the current ruleset accepts it and the player owns every crew in it
    (``unowned``: the Night Market crew they do not own, by deck; after a refund, say)."""
    unowned = unowned or {}
    names = {slug: c.name for slug, c in ruleset.crew.items()}
    rows = []
    for d in decks:
        missing = [names.get(s, s) for s in unowned.get(d.pk, [])]
        rows.append(
            {
                "id": d.pk,
                "name": d.name,
                "cards": list(d.cards),
                "choice": f"{SAVED}{d.pk}",
                "summary": deck_summary(ruleset, d.cards),
                "legal": playable[d.pk] and not missing,
                "rules_legal": playable[d.pk],
                "unowned": missing,
                "unowned_text": (
                    LOCKED_TEXT["unowned_deck"].format(names=", ".join(missing)) if missing else ""
                ),
                "updated_at": d.updated_at,
            }
        )
    return rows


@cache
def board_data(version: str) -> tuple[bytes, str]:
    """The board's data for ruleset ``version`` as served (``board_rules``), and a digest of it
    for the address it is cached under."""
    body = board_rules(get_ruleset(version)).encode()
    return body, hashlib.sha256(body).hexdigest()[:16]


def board_rules(ruleset: Ruleset) -> str:
    """The ruleset numbers, names and words the board needs (the same for every player: the
    board fetches them from ``board_data``'s address, cached)."""
    when = board.crew_when(ruleset)
    return json.dumps(
        {
            "version": ruleset.version,
            "nights": ruleset.nights,
            "max_crew": ruleset.max_crew,
            "heat_min": ruleset.heat_min,
            "heat_max": ruleset.heat_max,
            "boost_lock_heat": ruleset.boost_lock_heat,
            "boost_power": ruleset.boost_power,
            "boost_heat": ruleset.boost_heat,
            "energy_by_heat": list(ruleset.energy_by_heat),
            "vaults": [{"slug": v.slug, "name": v.name} for v in ruleset.vaults],
            "crew": {
                c.slug: {
                    "name": c.name,
                    "cost": c.cost,
                    "power": c.power,
                    "text": c.text,
                    "when": when[c.slug],
                }
                for c in ruleset.crew.values()
            },
            "rival_reasons": text.rival_side_reasons(ruleset),
            # The board's "?" panel: the night's steps and Boost and Heat, from the same table.
            "steps": [{"title": t, "text": d} for t, d in words.night_steps(ruleset)],
            "boost_and_heat": words.boost_and_heat(ruleset),
            "quiet_cooling": ruleset.quiet_cooling,
            "rivals": {p.slug: {"name": p.name, "tagline": p.tagline} for p in list_personas()},
            "difficulties": {
                d.slug: {"name": d.name, "description": d.description} for d in list_difficulties()
            },
            "art": list(board.sprite_symbols()),
            # The board's own words and the terms it defines where they appear.
            **board.board_words(ruleset),
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
                    "parts": words.breakdown_line(
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
    """The rules page: every sentence from game.presenters.words, every number from ``ruleset``."""
    return {
        "ruleset": ruleset,
        **words.rules_page(ruleset),
        "vaults": [v.name for v in ruleset.vaults],
        "energy": [
            {"heat": heat, "energy": energy} for heat, energy in enumerate(ruleset.energy_by_heat)
        ],
        "crew": [
            {**row, "effects": [text.effect_text(c.slug, e) for e in c.effects]}
            for row, c in zip(crew_rows(ruleset), ruleset.crew.values(), strict=True)
        ],
    }


def result_highlights(
    history: Sequence[dict[str, Any]], vault_names: dict[str, str]
) -> dict[str, Any]:
    """What the result page celebrates: the player's best night (most loot taken; the earliest
    of equals) and how many vaults each side took, in all and per vault."""
    nights = result_nights(history)
    best = max(nights, key=lambda n: (n["you"], -n["night"]), default=None)
    per_vault: dict[str, dict[str, int]] = {}
    taken = {"you": 0, "rival": 0}
    for n in history:
        for v in n["vaults"]:
            row = per_vault.setdefault(v["slug"], {"you": 0, "rival": 0})
            if v["winner"] in taken:
                taken[v["winner"]] += 1
                row[v["winner"]] += 1
    return {
        "best_night": best if best and best["you"] > 0 else None,
        "taken": taken,
        "per_vault": [
            {"name": vault_names.get(slug, slug), **row} for slug, row in per_vault.items()
        ],
    }


def next_level(difficulties: Sequence[Any], current: str) -> Any | None:
    """The difficulty after ``current`` in the catalogue's order, or None at the top."""
    slugs = [d.slug for d in difficulties]
    if current not in slugs:
        return None
    i = slugs.index(current)
    return difficulties[i + 1] if i + 1 < len(difficulties) else None


def share_text(
    outcome: str,
    rival: str,
    you: int,
    rival_score: int,
    grid: str = "",
    accuracy: int | None = None,
) -> str:
    """The shareable summary's line (the replay's address goes beside it), with the debrief's
    grid when there is one: a mark per night by label and the accuracy, spoiler-free (no plan,
    no vault, no seed)."""
    said = {"win": "I beat", "loss": "I lost to", "draw": "I drew with"}.get(outcome, "I played")
    marks = f" {grid} (accuracy {accuracy})" if grid else ""
    return (
        f"{said} {rival} {you} to {rival_score} in VEYLTAK{marks}. Watch the heist night by night:"
    )


def replay_hands(record: dict[str, Any], ruleset: Ruleset) -> dict[int, dict[str, list]]:
    """Both hands as they were when each night was planned, rebuilt from the replay record the
    way its verifier does (the seeds, both decks, every sealed plan): {night: {"you": [...],
    "rival": [...]}}, each card ``{"name", "vault"}`` (the vault's name when it was sent, else
    None). Empty while the record has no server seed (a featured slot still open: its heists
    share the seed, so the draws stay hidden until it closes)."""
    if not record.get("server_seed"):
        return {}
    state = new_heist(
        ruleset=ruleset,
        player_deck=record["decks"][PLAYER],
        rival_deck=record["decks"][RIVAL],
        server_seed=record["server_seed"],
        client_seed=record.get("client_seed") or "",
        encounter=record.get("encounter"),
    )
    names = {c.slug: c.name for c in ruleset.crew.values()}
    hands: dict[int, dict[str, list]] = {}
    # A practice retry's record starts later: its start's history holds the earlier nights,
    # whose reveals show both plans.
    plays = []
    for stored in (record.get("start") or {}).get("history", []):
        result = NightResult.from_dict(stored)
        plays.append((result.night, {side: Plan(*result.plan(side)) for side in (PLAYER, RIVAL)}))
    for e in record.get("nights", []):
        plays.append(
            (e["night"], {side: Plan.from_dict(e["plans"][side]) for side in (PLAYER, RIVAL)})
        )
    for number, plans in plays:
        night: dict[str, list] = {}
        for side, key in ((PLAYER, "you"), (RIVAL, "rival")):
            held = state.side(side)
            sent = dict(plans[side].crew)
            night[key] = [
                {
                    "name": names.get(held.decklist[card], held.decklist[card]),
                    "vault": ruleset.vault_name(sent[card]) if card in sent else None,
                }
                for card in held.hand
            ]
        hands[number] = night
        state, _ = resolve(state, plans)
    return hands


_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def signs_paid(
    entries: Iterable[Entry], *, place: dict[str, Any] | None, slot_name: str
) -> dict[str, Any]:
    """What a heist paid, line by line, as the ledger holds it (``entries``: the player's
    wallet entries about the heist and, for a prize-winning ranked heist, its slot's prize),
    each with the words the result page says: the outcome's award, the featured bonus, the
    place, the jobs it completed ("Job done: +30 Signs", and the job)."""
    lines = []
    for entry in entries:
        tx = entry.transaction
        label = tx.memo or Reason(tx.reason).label
        if tx.reference.startswith("featured:") and place is not None:
            rank = _ORDINALS.get(place["rank"], f"{place['rank']}th")
            label = f"{rank} place in the featured heist “{slot_name}”"
        elif tx.reason == Reason.FEATURED:
            label = "Featured bonus: a ranked featured heist finished"
        elif tx.reason == Reason.JOB:
            label = tx.memo.removeprefix("Job done: ")
        lines.append({"amount": entry.amount, "reason": tx.reason, "label": label})
    return {"lines": lines, "total": sum(line["amount"] for line in lines)}
