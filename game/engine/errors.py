"""Typed engine errors.

Every illegal input raises an :class:`EngineError` carrying a stable snake_case ``code`` (the API
turns it into ``{"error": {"code": ..., "message": ...}}``, DESIGN.md section 5), its ``params``
and a ``message`` for a person, worded by the engine's one table of words (``text.ERRORS``,
under ``key``, the code unless one code has several messages). Errors a player never meets
(a malformed ruleset or encounter) may give their message directly.
"""

from __future__ import annotations

from typing import Any

from . import text


class EngineError(Exception):
    """Base class: ``code`` is machine-readable, ``message`` is for a person."""

    code: str
    message: str
    params: dict[str, Any]

    def __init__(
        self, code: str, message: str | None = None, *, key: str | None = None, **params: Any
    ) -> None:
        if message is None:
            message = text.error(key or code, params)
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.params = params


class RulesetError(EngineError):
    """A ruleset (or an encounter checked against one) is malformed; the message names the field."""


class DeckError(EngineError):
    """A decklist breaks the ruleset's deck rules (size, copies, unknown crew)."""


class PlanError(EngineError):
    """A sealed plan is illegal in the current position."""


class ReplayError(EngineError):
    """A replay record is malformed or names something the engine does not know."""


# Plan error codes, in the order validate_plan checks them (DESIGN.md section 5 lists the same set).
PLAN_ERROR_CODES = (
    "unknown_vault",
    "vault_closed",
    "card_not_in_hand",
    "duplicate_card",
    "too_many_crew",
    "over_energy",
    "boost_without_crew",
    "boost_locked",
)

DECK_ERROR_CODES = ("deck_wrong_size", "deck_too_many_copies", "deck_unknown_card")
