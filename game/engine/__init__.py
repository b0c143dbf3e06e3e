"""VEYLTAK's pure rules engine: no Django, no clock, no global randomness, no I/O beyond
reading its packaged ruleset data. Same seeds + same plans = same heist, always."""

from .crew import PLAYER, RIVAL, SIDES, Condition, CrewType, Effect, other
from .errors import DeckError, EngineError, PlanError, ReplayError, RulesetError
from .night import (
    Plan,
    energy,
    legal_plans,
    legal_plans_for,
    outcome,
    plan_canonical,
    plan_slugs,
    resolve,
    validate_plan,
)
from .position import heist_from_position, position_of
from .results import CrewResult, NightResult, PowerPart, SideResult, VaultResult
from .rng import Stream, canonical_plan, commit_plan, heist_key, rival_stream, seed_commitment
from .rules import (
    DEFAULT_VERSION,
    Ruleset,
    Vault,
    available_versions,
    get_ruleset,
    load_ruleset,
    validate_deck,
)
from .setup import new_heist
from .state import Encounter, EncounterError, HeistState, SideState, VaultMod
from .view import Observation, observe

__all__ = [
    "DEFAULT_VERSION",
    "PLAYER",
    "RIVAL",
    "SIDES",
    "Condition",
    "CrewResult",
    "CrewType",
    "DeckError",
    "Effect",
    "Encounter",
    "EncounterError",
    "EngineError",
    "HeistState",
    "NightResult",
    "Observation",
    "Plan",
    "PlanError",
    "PowerPart",
    "ReplayError",
    "Ruleset",
    "RulesetError",
    "SideResult",
    "SideState",
    "Stream",
    "Vault",
    "VaultMod",
    "VaultResult",
    "available_versions",
    "canonical_plan",
    "commit_plan",
    "energy",
    "get_ruleset",
    "heist_from_position",
    "heist_key",
    "legal_plans",
    "legal_plans_for",
    "load_ruleset",
    "new_heist",
    "observe",
    "other",
    "outcome",
    "plan_canonical",
    "plan_slugs",
    "position_of",
    "resolve",
    "rival_stream",
    "seed_commitment",
    "validate_deck",
    "validate_plan",
]
