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
from .replay import ReplayReport, replay
from .results import CrewResult, NightResult, PowerPart, SideResult, VaultResult
from .rng import Stream, canonical_plan, commit_plan, heist_key, seed_commitment
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
    "PLAYER",
    "RIVAL",
    "SIDES",
    "other",
    "Condition",
    "CrewType",
    "Effect",
    "EngineError",
    "RulesetError",
    "DeckError",
    "PlanError",
    "ReplayError",
    "Plan",
    "energy",
    "legal_plans",
    "legal_plans_for",
    "validate_plan",
    "resolve",
    "outcome",
    "plan_canonical",
    "plan_slugs",
    "replay",
    "ReplayReport",
    "NightResult",
    "SideResult",
    "CrewResult",
    "VaultResult",
    "PowerPart",
    "Stream",
    "heist_key",
    "seed_commitment",
    "canonical_plan",
    "commit_plan",
    "DEFAULT_VERSION",
    "Ruleset",
    "Vault",
    "available_versions",
    "get_ruleset",
    "load_ruleset",
    "validate_deck",
    "new_heist",
    "Encounter",
    "EncounterError",
    "VaultMod",
    "HeistState",
    "SideState",
    "Observation",
    "observe",
]
