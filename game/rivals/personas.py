"""Rival personas and difficulty levels, read from personas.json (data, not code)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from game.engine.errors import EngineError
from game.engine.rules import DEFAULT_VERSION, get_ruleset, validate_deck


@dataclass(frozen=True, slots=True)
class Knobs:
    """A difficulty's two monotone knobs and what the capability knob switches on.

    ``capability`` (0..3) orders the levels; ``samples`` (opponent hands considered),
    ``iterations`` (regret-matching rounds) and ``budget_ms`` grow with it, while ``noise``
    (softmax temperature / share of near-best deviations) shrinks.
    """

    capability: int
    samples: int
    opponent: str  # "uniform" | "greedy" | "equilibrium": the model of the opponent's play
    value: str  # "margin" | "heuristic" | "fitted": what a night's outcome is worth
    iterations: int
    budget_ms: int
    beliefs: bool  # update the opponent's hand distribution from its revealed plays
    noise: float
    heat_weight: float = 1.0  # scale of the hand-set worth of end Heat ("heuristic" value)
    # Player model (issue 15): "none"; "prior" (a typical player, never updated); "learn" (fitted
    # on this heist's revealed plans, playermodel.py). ``model_weight`` is the largest share of
    # the restricted game the model may fill (0 = the plain equilibrium); the share grows with
    # how well the model has been predicting ("learn-fixed": always the largest, lab only).
    model: str = "none"
    model_weight: float = 0.0
    # Share of uniform play mixed into the "greedy" opponent model.
    uniform_share: float = 0.25


@dataclass(frozen=True, slots=True)
class Difficulty:
    slug: str
    name: str
    description: str
    knobs: Knobs


@dataclass(frozen=True, slots=True)
class Persona:
    slug: str
    name: str
    tagline: str
    bio: str
    style: str
    deck: tuple[str, ...]
    # Style knobs, in loot units added to the rival's own plans: Boost plans, two crew split
    # across vaults, two crew stacked in one vault.
    boost_bias: float = 0.0
    split_bias: float = 0.0
    stack_bias: float = 0.0


class UnknownRival(EngineError):
    def __init__(self, what: str, slug: str) -> None:
        super().__init__(f"unknown_{what}", slug=slug)


@cache
def _data() -> tuple[tuple[Persona, ...], tuple[Difficulty, ...]]:
    raw = json.loads(resources.files(__package__).joinpath("personas.json").read_text("utf-8"))
    ruleset = get_ruleset(DEFAULT_VERSION)
    personas = tuple(
        Persona(
            slug=p["slug"],
            name=p["name"],
            tagline=p["tagline"],
            bio=p["bio"],
            style=p["style"],
            # A persona's deck must be legal under the current ruleset: refuse it at load.
            deck=validate_deck(ruleset, p["deck"]),
            **{k: float(v) for k, v in p.get("style_knobs", {}).items()},
        )
        for p in raw["personas"]
    )
    difficulties = tuple(
        Difficulty(d["slug"], d["name"], d["description"], Knobs(**d["knobs"]))
        for d in raw["difficulties"]
    )
    return personas, difficulties


def list_personas() -> tuple[Persona, ...]:
    return _data()[0]


def list_difficulties() -> tuple[Difficulty, ...]:
    return _data()[1]


def get_persona(slug: str) -> Persona:
    for persona in list_personas():
        if persona.slug == slug:
            return persona
    raise UnknownRival("rival", slug)


def get_difficulty(slug: str) -> Difficulty:
    for difficulty in list_difficulties():
        if difficulty.slug == slug:
            return difficulty
    raise UnknownRival("difficulty", slug)
