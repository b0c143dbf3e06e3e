"""Writes of saved decks (issue 6: signed-in players save named decks)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from game.engine import DeckError, get_ruleset, validate_deck
from game.engine.rules import DEFAULT_VERSION
from game.models import SavedDeck
from shop.selectors import unowned_crew
from veyltak_site.exceptions import ApplicationError

SAVED_DECKS_MAX = 20
DECK_NAME_MAX = SavedDeck._meta.get_field("name").max_length


def deck_owned_check(
    *, user_id: int | None, cards: Sequence[str], ruleset: str = DEFAULT_VERSION, field: str
) -> None:
    """Refuse a deck holding Night Market crew the player does not own (a guest owns none):
    400 ``crew_not_owned``, naming them. The shop answers which (shop.selectors.unowned_crew);
    the set of each type is the ruleset's data, never a list here."""
    missing = unowned_crew(user_id, cards)
    if not missing:
        return
    crew = get_ruleset(ruleset).crew
    names = ", ".join(crew[s].name if s in crew else s for s in missing)
    message = (
        f"This deck holds Night Market crew you do not own: {names}. "
        "Buy them in the shop, or take them out of the deck."
    )
    raise ApplicationError("crew_not_owned", message, fields={field: [message]})


def _deck_name(name: str) -> str:
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > DECK_NAME_MAX:
        message = f"Give the deck a name of 1 to {DECK_NAME_MAX} characters."
        raise ApplicationError("deck_name_invalid", message, fields={"name": [message]})
    return name


@transaction.atomic
def deck_save(
    *, user: AbstractBaseUser, name: str, cards: Sequence[str], ruleset: str = DEFAULT_VERSION
) -> tuple[SavedDeck, bool]:
    """Save ``cards`` as the player's deck called ``name`` (stripped, 1 to 40 characters).
    Returns (the deck, True if it is new). A name the player already uses is saved over.

    Refused with the engine's deck codes (``deck_wrong_size``, ``deck_too_many_copies``,
    ``deck_unknown_card``), ``deck_name_invalid``, ``crew_not_owned`` (Night Market crew the
    player does not own), and 409 ``deck_limit_reached`` for a new name when the player keeps
    SAVED_DECKS_MAX decks already.
    """
    name = _deck_name(name)
    rules = get_ruleset(ruleset)
    try:
        deck = validate_deck(rules, cards)
    except DeckError as exc:
        raise ApplicationError(exc.code, exc.message, fields={"cards": [exc.message]}) from None
    deck_owned_check(user_id=user.pk, cards=deck, ruleset=rules.version, field="cards")
    # The player's row is the lock: two saves at once queue here, so neither can slip past the
    # count below, and two saves of one new name do not both try to insert it.
    locked = get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk")
    if not list(locked):
        raise ApplicationError("not_found", "There is no such player.", status_code=404)
    existing = SavedDeck.objects.filter(user_id=user.pk, name=name).first()
    if existing is not None:
        existing.cards = list(deck)
        existing.ruleset = rules.version
        existing.save(update_fields=["cards", "ruleset", "updated_at"])
        return existing, False
    if SavedDeck.objects.filter(user_id=user.pk).count() >= SAVED_DECKS_MAX:
        raise ApplicationError(
            "deck_limit_reached",
            f"You keep {SAVED_DECKS_MAX} saved decks already: delete one, or save over one "
            "by using its name.",
            status_code=409,
        )
    saved = SavedDeck.objects.create(
        user_id=user.pk, name=name, cards=list(deck), ruleset=rules.version
    )
    return saved, True


@transaction.atomic
def deck_delete(*, user: AbstractBaseUser, name_or_id: int | str) -> None:
    """Delete one of the player's saved decks, by id (an int) or by name (a str).

    Another player's deck, or none, is the same 404 ``not_found``.
    """
    decks = SavedDeck.objects.filter(user_id=user.pk)
    if isinstance(name_or_id, int):
        decks = decks.filter(pk=name_or_id)
    else:
        decks = decks.filter(name=str(name_or_id).strip())
    deleted, _ = decks.delete()
    if not deleted:
        raise ApplicationError("not_found", "There is no such saved deck.", status_code=404)
