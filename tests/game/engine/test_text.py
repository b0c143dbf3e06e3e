"""One table of player-facing words (game/engine/text.py): every condition kind and every plan
and deck error code has its words there, and the engine's errors carry their parameters."""

from __future__ import annotations

import pytest

from game.engine import (
    PLAYER,
    DeckError,
    Plan,
    PlanError,
    get_ruleset,
    text,
    validate_deck,
    validate_plan,
)
from game.engine.crew import CONDITION_KINDS
from game.engine.errors import DECK_ERROR_CODES, PLAN_ERROR_CODES
from game.presenters import words
from tests.support.engine import position


def test_every_condition_kind_and_error_code_has_words():
    assert set(text.CONDITIONS) == set(CONDITION_KINDS)
    assert set(PLAN_ERROR_CODES) | set(DECK_ERROR_CODES) <= set(text.ERRORS)


def test_errors_carry_their_code_and_parameters_and_the_table_words_them():
    rules = get_ruleset()
    with pytest.raises(DeckError) as caught:
        validate_deck(rules, ["spark"] * 11)
    assert caught.value.code == "deck_wrong_size"
    assert caught.value.params == {"size": rules.deck_size, "count": 11}
    assert caught.value.message == f"a deck has exactly {rules.deck_size} cards, got 11"
    state = position()
    card = state.player.hand[0]
    with pytest.raises(PlanError) as caught:
        validate_plan(state, PLAYER, Plan(((card, "attic"),)))
    assert caught.value.params == {"vault": "attic"}
    assert caught.value.message == text.error("unknown_vault", {"vault": "attic"})


def test_the_rival_side_words_of_each_condition():
    reasons = text.rival_side_reasons(get_ruleset())
    assert reasons["spark: you Boosted"] == "it Boosted"
    assert reasons["paper-decoy: the rival Boosted"] == "you Boosted"
    assert reasons["signal-thief: the rival's Heat started at 4 or more"] == (
        "your Heat started at 4 or more"
    )
    line = words.breakdown_line(
        [
            {"kind": "base", "amount": 1, "reason": ""},
            {"kind": "boost", "amount": 2, "reason": ""},
            {"kind": "bonus", "amount": 2, "reason": "spark: you Boosted"},
        ],
        rival=True,
        reasons=reasons,
    )
    assert line == "base 1 · Boost +2 · bonus +2 (it Boosted)"
