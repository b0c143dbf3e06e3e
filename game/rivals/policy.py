"""Choosing the rival's plan for one night.

The single entry point other code calls is `choose_plan`. It receives the rival's Observation and
a random stream of its own, never the heist state, so it cannot see the player's hand, either
deck's order or future loot.
"""

from __future__ import annotations

from game.engine.night import Plan
from game.engine.rng import Stream
from game.engine.view import Observation
from game.rivals.personas import get_difficulty, get_persona


def choose_plan(obs: Observation, *, persona: str, difficulty: str, stream: Stream) -> Plan:
    get_persona(persona)
    get_difficulty(difficulty)
    plans = obs.legal_plans()
    # Uniformly random legal play until the difficulty levels land (issue 4).
    return plans[stream.randbelow(len(plans))]
