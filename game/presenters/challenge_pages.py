"""What the challenge pages render (DESIGN.md section 11): a challenge's own page (what the link
promises, then your heist of it, or for its challenger every friend's), the challenge section of
a heist's result and replay pages, and the two heists side by side.

What may be seen is game.presenters.challenges' rule (``original_revealed``, ``answer_revealed``);
these builders only arrange what their callers loaded under it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from game.engine import Ruleset, get_ruleset
from game.models import Challenge, Heist, HeistNight
from game.presenters import words
from game.presenters.catalogue import encounter_data
from game.presenters.challenges import (
    answer_revealed,
    final_score,
    handle_or_neutral,
    original_revealed,
)
from game.presenters.heists import night_result
from game.rivals.personas import get_difficulty, get_persona

_SAID = {"win": "a win", "loss": "a loss", "draw": "a draw"}


def _crew_card(ruleset: Ruleset, slug: str) -> dict[str, Any]:
    crew = ruleset.crew.get(slug)
    if crew is None:  # a type a later ruleset dropped: its name is its slug
        return {"slug": slug, "name": slug, "cost": 0, "power": 0, "set": "base"}
    return {
        "slug": slug,
        "name": crew.name,
        "cost": crew.cost,
        "power": crew.power,
        "set": crew.set,
    }


def _deck(ruleset: Ruleset, deck: list[str]) -> list[dict[str, Any]]:
    """Each crew type of the deck once, with its count, in ruleset order."""
    counts = Counter(deck)
    order = [s for s in ruleset.crew if counts[s]] + [s for s in counts if s not in ruleset.crew]
    return [{**_crew_card(ruleset, s), "count": counts[s]} for s in order]


def _state(challenger: bool, answer: Heist | None) -> str:
    if challenger:
        return "challenger"
    if answer is None:
        return "open"
    return {"active": "playing"}.get(answer.status, answer.status)


def score_line(score: dict[str, Any], rival: str) -> str:
    return f"{score['player']} to {score['rival']} against {rival}, {_SAID[score['outcome']]}"


def challenge_page(
    challenge: Challenge,
    *,
    challenger: bool,
    handle: str | None,
    answer: Heist | None,
    answers: list[Heist],
    nights: dict[Any, list[HeistNight]],
) -> dict[str, Any]:
    """The challenge's page: what it is, and where the viewer stands with it."""
    original = challenge.heist
    ruleset = get_ruleset(original.ruleset)
    persona = get_persona(original.rival)
    difficulty = get_difficulty(original.difficulty)
    encounter = encounter_data(original.encounter) if original.encounter else None
    revealed = original_revealed(challenger=challenger, answer=answer)
    rows = []
    for heist in answers:
        shown = answer_revealed(heist)
        score = final_score(heist, nights[heist.pk]) if shown else None
        rows.append(
            {
                "heist": heist.pk,
                "name": handle_or_neutral(getattr(heist, "handle", None)),
                "status": heist.status,
                "line": score_line(score, persona.name) if score else None,
            }
        )
    score = final_score(original, nights[original.pk]) if revealed else None
    return {
        "slug": challenge.slug,
        "from": handle_or_neutral(handle),
        "state": _state(challenger, answer),
        "answer": answer.pk if answer is not None else None,
        "rival": {"name": persona.name, "tagline": persona.tagline},
        "difficulty": {"name": difficulty.name, "description": difficulty.description},
        "encounter": None
        if encounter is None
        else {
            "name": encounter["name"],
            "description": encounter["description"],
            "lines": words.encounter_lines(encounter["modifiers"], ruleset),
        },
        "deck": _deck(ruleset, list(original.player_deck)),
        "nights": ruleset.nights,
        "their_line": score_line(score, persona.name) if score else None,
        "answers": rows,
    }


def result_section(
    game: Heist,
    *,
    challenge: Challenge | None,
    answered: Challenge | None,
    refusal: str | None,
    url: str | None,
    answers: list[Heist],
    handle: str | None,
) -> dict[str, Any] | None:
    """The challenge section of a heist's result and replay pages: make a challenge of it, its
    link and who answered, or (a heist that answers one) the way to the two side by side."""
    if answered is not None:
        return {
            "kind": "answer",
            "slug": answered.slug,
            "from": handle_or_neutral(handle),
            "url": url,
            "finished": game.status == Heist.Status.FINISHED,
        }
    if refusal == "slot_open":
        return {"kind": "later"}
    if refusal is not None:
        return None
    if challenge is None:
        return {"kind": "make"}
    return {
        "kind": "made",
        "slug": challenge.slug,
        "url": url,
        "answers": [
            {
                "heist": h.pk,
                "name": handle_or_neutral(getattr(h, "handle", None)),
                "status": h.status,
                "finished": answer_revealed(h),
            }
            for h in answers
        ],
    }


def _side(result: dict[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """One side's night, vault by vault: its crew (as card faces), power, the rival's power,
    who took the vault; the loot it took and the score after."""
    vaults = []
    for v in result["vaults"]:
        sent = [c for c in result["you"]["crew"] if c["vault"] == v["slug"]]
        vaults.append(
            {
                "name": ruleset.vault_name(v["slug"]),
                "crew": [{**_crew_card(ruleset, c["crew"]), "now": c["power"]} for c in sent],
                "rival_crew": sum(1 for c in result["rival"]["crew"] if c["vault"] == v["slug"]),
                "you_power": v["you_power"],
                "rival_power": v["rival_power"],
                "winner": v["winner"],
                "won": v["loot"],
            }
        )
    return {
        "vaults": vaults,
        "boost": result["you"]["boost"],
        "took": sum(v["loot"] for v in result["vaults"] if v["winner"] == "you"),
        "score": result["score"],
    }


def compare_page(
    *,
    mine: tuple[Heist, list[HeistNight]],
    theirs: tuple[Heist, list[HeistNight]],
    their_handle: str | None,
    ruleset: Ruleset,
) -> dict[str, Any]:
    """The two heists of a challenge night by night, the viewer's ("mine") on the left: the
    night's loot once (both played the same loot), then each side's plan and what it took."""
    mine_nights = [night_result(n) for n in mine[1] if n.result is not None]
    their_nights = [night_result(n) for n in theirs[1] if n.result is not None]
    name = handle_or_neutral(their_handle)
    rows = []
    for i, night in enumerate(mine_nights):
        sides = [{"who": "You", "kind": "you", **_side(night, ruleset)}]
        if i < len(their_nights):
            sides.append({"who": name, "kind": "them", **_side(their_nights[i], ruleset)})
        rows.append(
            {
                "night": night["night"],
                "loot": [(ruleset.vault_name(s), n) for s, n in night["loot"].items()],
                "closed": [ruleset.vault_name(s) for s in night.get("closed", [])],
                "sides": sides,
            }
        )
    a, b = final_score(mine[0], mine[1]), final_score(theirs[0], theirs[1])
    rival = get_persona(mine[0].rival).name
    return {
        "rival": rival,
        "their_name": name,
        "mine": {**a, "line": score_line(a, rival)},
        "theirs": {**b, "line": score_line(b, rival)},
        "verdict": compare_verdict(a, b, name),
        "rows": rows,
    }


def compare_verdict(mine: dict[str, Any], theirs: dict[str, Any], name: str) -> str:
    """Who played the same heist better: more loot, then the wider margin over the rival."""
    key_a = (mine["player"], mine["player"] - mine["rival"])
    key_b = (theirs["player"], theirs["player"] - theirs["rival"])
    if key_a == key_b:
        return f"Dead level: you and {name} took the same loot from the same heist."
    if key_a[0] == key_b[0]:
        better = "you" if key_a > key_b else name
        return f"The same loot, but {better} left the rival with less."
    loot = f"{abs(key_a[0] - key_b[0])} loot"
    if key_a > key_b:
        return f"You beat {name} by {loot} on the same heist."
    return f"On the same heist, {name} beat you by {loot}."
