"""Presenters of the heist debrief (DESIGN.md sections 5 and 10) and its spoiler-free share grid.

A stored debrief (game.models.HeistDebrief) was worked out from the player's own observations
only, after the end; it is shown to the heist's owner alone (the API and the pages ask
game.services.debriefs.debrief_ready, which checks both).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from game.engine.rules import Ruleset
from game.models import HeistDebrief
from game.presenters.render import present
from game.rivals import debrief as solver

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
# One mark per night by label, in the share text (like a daily puzzle's grid: no plans, no
# vaults, no seed, nothing a later player of the same heist could use).
MARKS = {"best": "🟩", "good": "🟦", "inaccuracy": "🟨", "mistake": "🟧", "blunder": "🟥"}


def whole_accuracy(accuracy: float) -> int:
    """The accuracy as every page shows it (the result page, the share text, the profile): a
    whole number with halves up (72.5 shows 73). Python's ``round`` takes halves to the even
    number, and made the result page say 72 where the profile said 73."""
    return math.floor(accuracy + 0.5)


class DebriefCrewSerializer(serializers.Serializer):
    crew = serializers.CharField()
    vault = serializers.CharField()


class DebriefPlanSerializer(serializers.Serializer):
    crew = DebriefCrewSerializer(many=True)
    boost = serializers.BooleanField()
    expected = serializers.FloatField(
        help_text="Expected loot margin and Heat worth (measure loot), or the chance to win "
        "the heist, 0 to 1 (measure win), against the rival seat's plans in Kingpin's model."
    )


class DebriefLikelySerializer(serializers.Serializer):
    crew = DebriefCrewSerializer(many=True)
    boost = serializers.BooleanField()
    chance = serializers.FloatField(source="expected", help_text="Its chance in the model.")


class DebriefNightSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    label = serializers.ChoiceField(choices=list(LABELS))
    loot_lost = serializers.FloatField(help_text="best - yours, in loot (never below 0).")
    luck = serializers.FloatField(
        help_text="What the rival's revealed plan gave (+) or took (-) against the "
        "expectation of yours, in loot."
    )
    measure = serializers.ChoiceField(
        choices=["loot", "win"], help_text="loot before the last two nights; win on them."
    )
    choices = serializers.IntegerField(help_text="Distinct legal plans of your hand.")
    yours = DebriefPlanSerializer()
    best = DebriefPlanSerializer()
    likely = DebriefLikelySerializer(help_text="The rival's likeliest plan in the model.")
    why = serializers.CharField()


class TurningPointSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    text = serializers.CharField()
    before = serializers.FloatField(help_text="Your chance to win at the night's start.")
    after = serializers.FloatField(help_text="Your chance to win at its end.")


class DebriefSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ready"])
    accuracy = serializers.FloatField(help_text="0 to 100 (the rules page gives the formula).")
    loot_lost = serializers.FloatField()
    luck = serializers.FloatField()
    turning_point = TurningPointSerializer()
    nights = DebriefNightSerializer(many=True)
    grid = serializers.CharField(help_text="One mark per night by label: the share grid.")


class DebriefPendingSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["pending"])


def grid(labels: Iterable[str]) -> str:
    return "".join(MARKS[label] for label in labels)


def debrief_answer(debrief: HeistDebrief) -> dict[str, Any]:
    data = debrief.data
    return present(
        DebriefSerializer,
        {**data, "status": "ready", "grid": grid(n["label"] for n in data["nights"])},
    )


def pending_answer() -> dict[str, Any]:
    return present(DebriefPendingSerializer, {"status": "pending"})


# --- The pages ------------------------------------------------------------------------------

LABEL_TEXT = {
    "best": "Best",
    "good": "Good",
    "inaccuracy": "Inaccuracy",
    "mistake": "Mistake",
    "blunder": "Blunder",
}


def _crew(plan: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((c["crew"], c["vault"]) for c in plan["crew"])


def _worth(measure: str, expected: float) -> str:
    if measure == "win":
        return f"wins {round(100 * expected)}% of the time"
    return f"{solver.signed(expected)} Loot expected"


def debrief_page(found: HeistDebrief, ruleset: Ruleset) -> dict[str, Any]:
    """The debrief as the result and replay pages show it: the accuracy, the turning point,
    and each night's label, your plan and the best one in words, and why."""
    data = found.data
    nights = {}
    for n in data["nights"]:
        yours, best = n["yours"], n["best"]
        nights[n["night"]] = {
            "night": n["night"],
            "label": n["label"],
            "label_text": LABEL_TEXT[n["label"]],
            "mark": MARKS[n["label"]],
            "loot_lost": n["loot_lost"],
            "luck": n["luck"],
            "yours": solver.crew_words(ruleset, _crew(yours), yours["boost"]),
            "yours_worth": _worth(n["measure"], yours["expected"]),
            "best": solver.crew_words(ruleset, _crew(best), best["boost"]),
            "best_worth": _worth(n["measure"], best["expected"]),
            "same": n["label"] == "best",
            "why": n["why"],
        }
    labels = [n["label"] for n in data["nights"]]
    return {
        "accuracy": whole_accuracy(data["accuracy"]),
        "loot_lost": data["loot_lost"],
        "luck": data["luck"],
        "turning_point": data["turning_point"],
        "nights": list(nights.values()),
        "by_night": nights,
        "grid": grid(labels),
        "grid_words": ", ".join(
            f"night {n['night']} {LABEL_TEXT[n['label']].lower()}" for n in data["nights"]
        ),
    }
