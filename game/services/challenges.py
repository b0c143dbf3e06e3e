"""Challenge a friend (DESIGN.md section 11): a finished heist becomes a link, and whoever opens
it plays the same heist: the original's server and client seeds (so the same shuffles, hands,
loot and rival stream), its ruleset, rival, difficulty, encounter and deck, from night 1. The
rival answers the friend's own plans, as it answered the original player's: the same plans give
the same nights.

A challenge's heist is never ranked, never earns (heist_finish) and is never rated; each player
answers a challenge once, and each guest session once (constraints on Heist, checked first
here for a clear refusal; the constraint decides two starts at once). Its seed commitment is the
original's, which is public anyway; the seed itself reaches the friend only in their own replay,
after their end (game.presenters.challenges shows nothing of the original before then).
"""

from __future__ import annotations

import secrets
import uuid

from django.db import IntegrityError, transaction

from game.domain import HeistSnapshot
from game.models import Challenge, Heist
from game.owners import Owner
from game.rivals.personas import UnknownRival, get_persona
from game.selectors.challenges import (
    challenge_answer,
    challenge_get,
    challenge_of,
    challengeable_check,
)
from game.selectors.heists import heist_get
from game.services.heists import heist_create
from veyltak_site.exceptions import ApplicationError

# 16 characters of base64url: 96 random bits, so a challenge is found by its link only.
SLUG_BYTES = 12


def _conflict(code: str, message: str) -> ApplicationError:
    return ApplicationError(code, message, status_code=409)


def challenge_create(*, heist_id: uuid.UUID | str, owner: Owner) -> tuple[Challenge, bool]:
    """The challenge of the owner's finished heist ``heist_id``: made now (True) or the one
    made before (False; one per heist, so the link stays the same).

    404 ``not_found`` for anyone else's heist; 409 as ``challengeable_check`` says.
    """
    heist = heist_get(heist_id=heist_id, owner=owner)
    challengeable_check(heist)
    existing = challenge_of(heist)
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            made = Challenge.objects.create(slug=secrets.token_urlsafe(SLUG_BYTES), heist=heist)
    except IntegrityError:
        # The same owner asked twice at once: the other request made it (one per heist).
        existing = challenge_of(heist)
        if existing is None:
            raise
        return existing, False
    return made, True


def _taken() -> ApplicationError:
    return _conflict("challenge_taken", "You have played this challenge already.")


def challenge_accept(*, slug: str, owner: Owner) -> HeistSnapshot:
    """Start the owner's heist of challenge ``slug``.

    404 ``not_found`` (no such challenge); 409 ``own_challenge`` (the challenger's own),
    ``challenge_taken`` (answered already, by this player or this guest session),
    ``challenge_outdated`` (the rival's deck has changed since: it would not be the same heist).
    Counts as a start (HEIST_ACTIVE_MAX).
    """
    challenge = challenge_get(slug=slug)
    original = challenge.heist
    if owner.owns(original):
        raise _conflict("own_challenge", "This is your own challenge: send its link to a friend.")
    if challenge_answer(challenge=challenge, owner=owner) is not None:
        raise _taken()
    try:
        same_rival = list(get_persona(original.rival).deck) == list(original.rival_deck)
    except UnknownRival:
        same_rival = False
    if not same_rival:
        raise _conflict(
            "challenge_outdated",
            "This rival plays another deck now: the heist cannot be dealt again.",
        )
    with transaction.atomic():
        made = heist_create(
            owner=owner,
            rival=original.rival,
            difficulty=original.difficulty,
            deck=original.player_deck,
            encounter=original.encounter,
            server_seed=original.server_seed,
            client_seed=original.client_seed,
            ruleset=original.ruleset,
        )
        try:
            # A savepoint: two starts at once by one player (or guest) meet here, and the
            # constraint keeps the first; this whole start, its heist included, rolls back.
            with transaction.atomic():
                Heist.objects.filter(pk=made.heist.pk).update(challenge=challenge)
        except IntegrityError:
            raise _taken() from None
    made.heist.challenge = challenge
    return made
