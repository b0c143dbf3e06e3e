"""Try this night again (DESIGN.md section 10): a practice heist from one night of a finished
heist, started from that night's exact position.

The retry plays the original's seeds, decks, encounter, rival and difficulty, from the stored
position of the night (game.engine.position): the same hands, loot, Heat, scores, earlier
nights and rival stream, so its first view is the original's view of that night and its replay
record verifies offline like any heist's. It is never ranked and never earns (heist_finish).
"""

from __future__ import annotations

import uuid

from django.db import transaction

from game.domain import HeistSnapshot
from game.engine import get_ruleset
from game.models import Heist, HeistNight
from game.owners import Owner
from game.selectors.debriefs import closed_heist_check
from game.selectors.heists import heist_load, heist_states
from game.services.heists import heist_create
from veyltak_site.exceptions import ApplicationError


def heist_retry(*, heist_id: uuid.UUID | str, owner: Owner, night: int) -> HeistSnapshot:
    """Start a practice heist from ``night`` of the owner's finished heist ``heist_id``.

    404 ``not_found`` (not the owner's), 409 ``heist_active`` / ``heist_abandoned`` /
    ``slot_open``, 400 ``invalid_night`` for a night the heist did not play. The owner's heists
    in play stay within HEIST_ACTIVE_MAX, as for any start.
    """
    snapshot = heist_load(heist_id=heist_id, owner=owner)
    original = snapshot.heist
    closed_heist_check(original)
    first, last = original.first_night, get_ruleset(original.ruleset).nights
    if type(night) is not int or not first <= night <= last:
        message = f"Pick a night from {first} to {last}."
        raise ApplicationError("invalid_night", message, fields={"night": [message]})
    state = heist_states(original, snapshot.nights)[night - first]
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
            practice_of=original,
            start=state,
        )
        earlier = _earlier_nights(made.heist, [n for n in snapshot.nights if n.night < night])
    return HeistSnapshot(made.heist, [*earlier, *made.nights], made.state)


def _earlier_nights(heist: Heist, nights: list[HeistNight]) -> list[HeistNight]:
    """A practice retry's copies of its original's nights before its start: its view shows
    them as its history, exactly as the original showed them (plans, nonces, results)."""
    rows = [
        HeistNight(
            heist=heist,
            night=n.night,
            loot=n.loot,
            closed=n.closed,
            started_at=n.started_at,
            rival_plan=n.rival_plan,
            rival_nonce=n.rival_nonce,
            rival_commitment=n.rival_commitment,
            rival_sealed_at=n.rival_sealed_at,
            player_plan=n.player_plan,
            result=n.result,
            resolved_at=n.resolved_at,
        )
        for n in nights
        if n.result is not None
    ]
    return HeistNight.objects.bulk_create(rows)
