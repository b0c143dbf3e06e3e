"""Reads of the players' saved decks (issue 6)."""

from __future__ import annotations

from django.db.models.functions import Lower

from game.engine import DeckError, get_ruleset, validate_deck
from game.engine.rules import DEFAULT_VERSION
from game.models import SavedDeck


def saved_decks(*, user) -> list[SavedDeck]:
    """A signed-in player's saved decks, by name; none for a guest (their one deck is in the
    session, game.views.decks.SESSION_DECK)."""
    if user is None or not user.is_authenticated:
        return []
    return list(SavedDeck.objects.filter(user_id=user.pk).order_by(Lower("name"), "name"))


def saved_deck_playable(deck: SavedDeck, *, ruleset: str = DEFAULT_VERSION) -> bool:
    """Whether a saved deck is legal under ``ruleset`` (it was when saved, perhaps under an
    older one): pages offer only these to play."""
    try:
        validate_deck(get_ruleset(ruleset), deck.cards)
    except DeckError:
        return False
    return True
