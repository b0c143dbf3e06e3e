"""The worked night: one night of VEYLTAK played out by the engine from game/data/lesson.json,
for the one-screen how to play (/how-to-play/) and the board on the home page. The data says
only who holds and sends what; every power, winner, score and Heat shown comes from the
ruleset through ``resolve``, so a new ruleset retells the same night in its own numbers."""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from pathlib import Path
from typing import Any

from game.engine import PLAYER, RIVAL, Plan, Ruleset, new_heist, resolve, text

LESSON = Path(__file__).resolve().parents[1] / "data" / "lesson.json"
SIDES = ((PLAYER, "you"), (RIVAL, "rival"))


@cache
def _lesson() -> dict[str, Any]:
    return json.loads(LESSON.read_text("utf-8"))


def _deck_with(ruleset: Ruleset, hand: list[str]) -> list[str]:
    """A legal deck that holds ``hand`` (the rest of the deck plays no part in one night)."""
    deck = list(hand)
    for slug in ruleset.crew_in_set("base"):
        while deck.count(slug) < ruleset.max_copies and len(deck) < ruleset.deck_size:
            deck.append(slug)
    return deck


def _play(ruleset: Ruleset):
    """The lesson's night through the engine: the state it starts from and its result."""
    lesson = _lesson()
    hands = {side: lesson[key]["hand"] for side, key in SIDES}
    state = new_heist(
        ruleset=ruleset,
        player_deck=_deck_with(ruleset, hands[PLAYER]),
        rival_deck=_deck_with(ruleset, hands[RIVAL]),
        server_seed="the worked night",
    )
    sides = tuple(
        dataclasses.replace(
            held,
            hand=tuple(range(len(hands[side]))),
            deck=tuple(range(len(hands[side]), len(held.decklist))),
        )
        for (side, _), held in zip(SIDES, state.sides, strict=True)
    )
    state = dataclasses.replace(state, sides=sides, loot=dict(lesson["loot"]), closed=frozenset())
    plans = {
        side: Plan(
            tuple((hands[side].index(crew), vault) for crew, vault in lesson[key]["send"]),
            lesson[key]["boost"],
        )
        for side, key in SIDES
    }
    _, result = resolve(state, plans)  # refuses an illegal plan: the lesson must be playable
    return state, result


def _sum(crew_result, *, rival: bool, reasons: dict[str, str]) -> str:
    """A crew's power as its parts: "3 + 2 (you did not Boost) = 5"."""
    terms = []
    for part in crew_result.breakdown:
        if part.kind == "base":
            terms.append(str(part.amount))
        elif part.kind == "boost":
            terms.append(f"{part.amount} (Boost)")
        else:
            why = reasons.get(part.reason, part.reason) if rival else part.reason.split(": ")[-1]
            terms.append(f"{part.amount} ({why})")
    sum_text = " + ".join(terms)
    return sum_text if len(terms) == 1 else f"{sum_text} = {crew_result.power}"


def worked_night(ruleset: Ruleset) -> dict[str, Any]:
    """Everything the pages show of the worked night (see the module's docstring)."""
    state, result = _play(ruleset)
    lesson = _lesson()
    reasons = text.rival_side_reasons(ruleset)
    crew = ruleset.crew

    def card(slug: str, **extra: Any) -> dict[str, Any]:
        c = crew[slug]
        return {"slug": slug, "name": c.name, "cost": c.cost, "power": c.power, "set": c.set,
                "text": c.text, **extra}  # fmt: skip

    sent = {
        key: [
            card(
                r.crew,
                vault=r.vault,
                total=r.power,
                sum=_sum(r, rival=key == "rival", reasons=reasons),
            )
            for r in result.side(side).crew
        ]
        for side, key in SIDES
    }
    vaults = []
    for v in result.vaults:
        winner = {PLAYER: "you", RIVAL: "rival"}.get(v.winner)
        vaults.append(
            {
                "slug": v.slug,
                "name": ruleset.vault_name(v.slug),
                "loot": v.loot,
                "you": [c for c in sent["you"] if c["vault"] == v.slug],
                "rival": [c for c in sent["rival"] if c["vault"] == v.slug],
                "you_power": v.player_power,
                "rival_power": v.rival_power,
                "winner": winner,
                "result": (
                    f"You take {v.loot}"
                    if winner == "you"
                    else f"Rival takes {v.loot}"
                    if winner == "rival"
                    else "Nobody takes it"
                ),
            }
        )
    energy = state.energy(PLAYER)
    spent = sum(crew[c["slug"]].cost for c in sent["you"])
    sides = {}
    for side, key in SIDES:
        r = result.side(side)
        sides[key] = {
            "boost": r.boost,
            "heat_start": r.heat_start,
            "heat_end": r.heat_end,
            "energy_next": ruleset.energy_by_heat[r.heat_end],
        }
    hand = [
        card(slug, sent=any(c["slug"] == slug for c in sent["you"]))
        for slug in lesson["you"]["hand"]
    ]
    return {
        "nights": ruleset.nights,
        "energy": energy,
        "spent": spent,
        "hand": hand,
        "sent": sent,
        "vaults": vaults,
        "score": {"you": result.score[PLAYER], "rival": result.score[RIVAL]},
        "sides": sides,
        "steps": _steps(ruleset, energy, spent, hand, sent, vaults, sides),
    }


def _steps(ruleset, energy, spent, hand, sent, vaults, sides) -> list[dict[str, Any]]:
    """The night told in four steps, with this night's own numbers."""
    names = _and([c["name"] for c in hand])
    sends = "; ".join(
        f"{c['name']} (cost {c['cost']}) to the {_vault(vaults, c['vault'])}" for c in sent["you"]
    )
    you, rival = sides["you"], sides["rival"]
    reveal = []
    for v in vaults:
        sides_said = []
        for key, who in (("you", "your"), ("rival", "the rival's")):
            for c in v[key]:
                sides_said.append(f"{who} {c['name']} {c['sum']}")
        if not sides_said:
            continue
        reveal.append(f"{v['name']}: {' against '.join(sides_said)}. {v['result']}.")
    quiet = not you["boost"]
    return [
        {
            "title": "Plan",
            "line": (
                f"You hold {names}, with {energy} Energy. Send up to {ruleset.max_crew}: "
                f"{sends}. That is {spent} of {energy} Energy."
            ),
        },
        {
            "title": "Seal",
            "line": (
                (
                    "You stay quiet (no Boost). "
                    if quiet
                    else f"You Boost: every crew you sent gets +{ruleset.boost_power} Power. "
                )
                + "The rival sealed first and shows a fingerprint of its plan; "
                + ("it Boosts." if rival["boost"] else "it stays quiet.")
            ),
        },
        {"title": "Reveal", "lines": reveal},
        {
            "title": "Heat",
            "line": (
                f"Boosting adds Heat and a quiet night cools it; more Heat, less Energy. The "
                f"rival's Heat goes {rival['heat_start']} → {rival['heat_end']}: "
                f"{rival['energy_next']} Energy tomorrow. Yours goes {you['heat_start']} → "
                f"{you['heat_end']}: {you['energy_next']} Energy tomorrow."
            ),
        },
    ]


def _and(names: list[str]) -> str:
    """ "A, B and C"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _vault(vaults, slug: str) -> str:
    return next(v["name"] for v in vaults if v["slug"] == slug)
