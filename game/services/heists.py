"""Writes of heists: start, seal a night, finish, and move heists between owners (closing them
unfinished is game.services.abandon).

The flow of a night (DESIGN.md section 3):

1. A night starts (``heist_start``, or ``plan_seal`` of the previous night): in the same
   transaction its loot is stored and the rival's task is scheduled with ``on_commit``
   (game.services.rivals).
2. ``plan_seal`` locks the heist row, validates and resolves the night with the engine, and
   starts the next night or finishes. It never seals the rival's plan and never waits: while
   the rival has not sealed it answers 409 ``rival_not_sealed`` at once, because the player must
   have seen the rival's commitment before sealing (else the commitment proves nothing), and a
   request that slept for a worker would hold a web thread (issue 17). The heist view, which the
   board polls, seals an overdue night (game.services.rivals.rival_seal_overdue).
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from game.domain import HeistSnapshot
from game.engine import (
    PLAYER,
    RIVAL,
    DeckError,
    Encounter,
    EngineError,
    HeistState,
    Plan,
    PlanError,
    new_heist,
    position_of,
    resolve,
    seed_commitment,
    validate_plan,
)
from game.engine.rules import DEFAULT_VERSION
from game.models import FeaturedSlot, Heist, HeistNight
from game.owners import Owner
from game.rivals.personas import Persona, UnknownRival, get_difficulty, get_persona
from game.selectors.catalogue import encounter_get, ready_deck_get, rival_cosmetics
from game.selectors.heists import heist_load, heist_state_keep
from game.services.abandon import heists_make_room
from game.services.decks import deck_owned_check
from game.services.finish import heist_finish
from game.services.ranked import (
    featured_rank_claim,
    featured_ranked_open,
)
from game.services.rivals import rival_schedule
from shop import selectors as shop_selectors
from veyltak_site import metrics
from veyltak_site.exceptions import ApplicationError


def _engine_error(exc: EngineError, status_code: int = 400) -> ApplicationError:
    return ApplicationError(exc.code, exc.message, status_code=status_code)


def _night_start(heist: Heist, state: HeistState) -> HeistNight:
    """Store the night the state is at (its loot as shown) and schedule the rival's seal."""
    night = HeistNight.objects.create(
        heist=heist,
        night=state.night,
        loot=dict(state.loot),
        closed=sorted(state.closed),
    )
    rival_schedule(heist.pk, state.night)
    return night


def _check_owner(owner: Owner) -> None:
    if owner.user_id is None and not owner.guest_id:
        raise ApplicationError("no_owner", "A heist needs a player or a guest session.")


def _check_rival(rival: str, difficulty: str) -> Persona:
    try:
        persona = get_persona(rival)
        get_difficulty(difficulty)
    except UnknownRival as exc:
        raise _engine_error(exc) from None
    return persona


def heist_start(
    *,
    owner: Owner,
    rival: str,
    difficulty: str,
    deck: Sequence[str] | None = None,
    encounter: str | None = None,
    client_seed: str = "",
    ruleset: str = DEFAULT_VERSION,
) -> HeistSnapshot:
    """Start a heist against ``rival`` at ``difficulty``.

    ``deck`` defaults to the ready-made ``starter`` deck; an illegal deck is refused with the
    engine's code (``deck_wrong_size``, ``deck_too_many_copies``, ``deck_unknown_card``), one
    holding Night Market crew the player does not own with ``crew_not_owned``.
    The owner keeps at most HEIST_ACTIVE_MAX heists in play: the oldest beyond that is closed
    as abandoned in the same transaction (``game.services.abandon.heists_make_room``).
    """
    _check_owner(owner)
    _check_rival(rival, difficulty)
    enc = encounter_get(encounter) if encounter else None
    player_deck = list(deck) if deck is not None else list(ready_deck_get("starter").deck)
    # Night Market crew only once bought (400 crew_not_owned). A featured slot's deck is the
    # slot's, not the player's: heist_create does not ask.
    deck_owned_check(user_id=owner.user_id, cards=player_deck, ruleset=ruleset, field="deck")
    return heist_create(
        owner=owner,
        rival=rival,
        difficulty=difficulty,
        deck=player_deck,
        encounter=enc,
        server_seed=secrets.token_hex(32),
        client_seed=client_seed,
        ruleset=ruleset,
    )


def heist_create(
    *,
    owner: Owner,
    rival: str,
    difficulty: str,
    deck: Sequence[str],
    encounter: Encounter | Mapping[str, Any] | None,
    server_seed: str,
    client_seed: str,
    ruleset: str,
    featured_slot: FeaturedSlot | None = None,
    practice_of: Heist | None = None,
    start: HeistState | None = None,
) -> HeistSnapshot:
    """Deal a heist and store it with its first night (``heist_start``, and
    game.services.featured for a slot's heist, which passes the slot's seed and, through
    ``featured_slot``, asks for the ranked attempt). A practice retry (game.services.practice)
    passes the heist it retries and ``start``, the state of the night it starts from, dealt
    with these same seeds and decks; the position is stored so the state rebuilds from it."""
    _check_owner(owner)
    persona = _check_rival(rival, difficulty)
    if encounter is not None and not isinstance(encounter, Encounter):
        encounter = Encounter.from_dict(encounter)
    with transaction.atomic():
        heists_make_room(owner=owner)
        # Under the owner's start lock: whether this start is their ranked try of the slot.
        # Only a ranked try plays the slot's seed; practice is the slot's heist on a seed of
        # its own, so nobody learns the ranked heist's draws, loot or rival plans before their
        # own ranked try (issue 27, S1).
        ranked = featured_slot is not None and featured_ranked_open(owner=owner, slot=featured_slot)
        if featured_slot is not None and not ranked:
            server_seed = secrets.token_hex(32)
        state = start or _deal(
            ruleset=ruleset,
            deck=deck,
            persona=persona,
            server_seed=server_seed,
            client_seed=client_seed,
            encounter=encounter,
        )
        heist = Heist(
            user_id=owner.user_id,
            # A signed-in player's heist belongs to the account only.
            guest_id="" if owner.user_id is not None else owner.guest_id,
            ruleset=state.ruleset_version,
            rival=persona.slug,
            difficulty=difficulty,
            player_deck=list(state.player.decklist),
            rival_deck=list(state.rival.decklist),
            encounter_slug=encounter.slug if encounter else "",
            encounter=encounter.to_dict() if encounter else None,
            featured_slot=featured_slot,
            server_seed=server_seed,
            client_seed=client_seed,
            seed_commitment=seed_commitment(server_seed),
            # Fixed now: what the player wears later never changes a heist in play (DESIGN.md
            # section 7); the rival wears its own (game/data/rival_looks.json).
            cosmetics={
                "you": shop_selectors.equipped(owner.user_id),
                "rival": rival_cosmetics(persona.slug),
            },
        )
        if ranked and not featured_rank_claim(heist=heist):
            # Another start of this player took the ranked try meanwhile (only without the
            # start lock): this one is practice, so it is dealt again on a seed of its own.
            heist.server_seed = secrets.token_hex(32)
            heist.seed_commitment = seed_commitment(heist.server_seed)
            state = _deal(
                ruleset=ruleset,
                deck=deck,
                persona=persona,
                server_seed=heist.server_seed,
                client_seed=client_seed,
                encounter=encounter,
            )
        if start is not None:
            heist.practice_of = practice_of
            heist.practice_night = heist.night = start.night
            heist.start = position_of(start)
        if not heist.ranked:
            heist.save(force_insert=True)
        night = _night_start(heist, state)
        mode = "practice" if start is not None else "featured" if featured_slot else "standard"
        metrics.heist_started(difficulty=difficulty, mode=mode)
    if start is None:
        heist_state_keep(heist, [night], state)  # the board's first read starts from it
    return HeistSnapshot(heist, [night], state)


def _deal(*, ruleset, deck, persona, server_seed, client_seed, encounter) -> HeistState:
    try:
        return new_heist(
            ruleset=ruleset,
            player_deck=list(deck),
            rival_deck=persona.deck,
            server_seed=server_seed,
            client_seed=client_seed,
            encounter=encounter,
        )
    except DeckError as exc:
        raise ApplicationError(exc.code, exc.message, fields={"deck": [exc.message]}) from None
    except EngineError as exc:
        raise _engine_error(exc) from None


def _check_open(heist: Heist, night: int) -> None:
    if heist.is_closed:
        raise ApplicationError("heist_finished", "This heist is over.", status_code=409)
    if night != heist.night:
        raise ApplicationError(
            "wrong_night",
            f"This heist is at night {heist.night}, not night {night}.",
            status_code=409,
        )


def _plan_from(crew: Sequence[dict[str, Any]], boost: bool) -> Plan:
    try:
        return Plan.from_dict({"crew": list(crew), "boost": boost})
    except PlanError as exc:
        raise _engine_error(exc) from None


def plan_seal(
    *,
    heist_id: uuid.UUID | str,
    owner: Owner,
    night: int,
    crew: Sequence[dict[str, Any]],
    boost: bool,
) -> tuple[HeistNight, HeistSnapshot]:
    """Seal the player's plan for ``night`` and resolve it. Returns (the resolved night, the
    heist after it).

    Refusals leave the heist unchanged: 404 ``not_found`` (not the owner's), 409
    ``heist_finished`` / ``wrong_night`` / ``rival_not_sealed``, 400 with the engine's plan code.

    Everything happens under the heist's row lock, so two seals of one night queue and the
    second finds the night moved on (409 ``wrong_night``, or ``heist_finished`` after the
    last). A night the rival has not sealed is refused at once (``rival_not_sealed``): the
    board reads the heist until it shows the commitment (the view seals an overdue night) and
    seals again. Nothing here waits or seals the rival (DESIGN.md section 3, step 5).
    """
    plan = _plan_from(crew, boost)
    started = time.perf_counter()
    with transaction.atomic():
        snapshot = heist_load(heist_id=heist_id, owner=owner, lock=True)
        _check_open(snapshot.heist, night)
        try:
            validate_plan(snapshot.state, PLAYER, plan)
        except EngineError as exc:
            raise _engine_error(exc) from None
        row = next(n for n in snapshot.nights if n.night == night)
        if not row.rival_sealed:
            raise ApplicationError(
                "rival_not_sealed",
                "The rival has not sealed its plan yet: wait for its commitment, then seal.",
                status_code=409,
            )
        resolved = _resolve_night(snapshot, row, plan)
    metrics.seal_timed(time.perf_counter() - started)
    return resolved


def _resolve_night(
    snapshot: HeistSnapshot, row: HeistNight, plan: Plan
) -> tuple[HeistNight, HeistSnapshot]:
    """Play the night out and start the next one (or finish). Caller holds the row lock."""
    heist = snapshot.heist
    state, result = resolve(snapshot.state, {PLAYER: plan, RIVAL: Plan.from_dict(row.rival_plan)})
    now = timezone.now()
    row.player_plan = plan.to_dict()
    row.result = result.to_dict()
    row.resolved_at = now
    # update() rather than save(): the same UPDATE, without the model-save machinery.
    HeistNight.objects.filter(pk=row.pk).update(
        player_plan=row.player_plan, result=row.result, resolved_at=now
    )
    heist.night = state.night
    heist.last_activity_at = now
    nights = snapshot.nights
    if state.finished:
        # The nights sealed, from the nights read under the row lock (this one's plan is set
        # above): the same count the database holds, without asking it again.
        sealed = sum(1 for n in nights if n.player_plan is not None)
        heist_finish(heist=heist, state=state, nights_sealed=sealed)
    else:
        Heist.objects.filter(pk=heist.pk).update(night=heist.night, last_activity_at=now)
        nights = [*nights, _night_start(heist, state)]
    # The board's next read and the rival's next turn start from this state (if they are
    # served by this process), not from the heist's start.
    heist_state_keep(heist, nights, state)
    return row, HeistSnapshot(heist, nights, state)


@transaction.atomic
def heists_claim_guest(*, user: AbstractBaseUser, guest_id: str) -> int:
    """Give a guest's heists to the account they just signed in with. Returns the count.

    Connected to allauth's ``user_logged_in`` (game.signals), so a guest who signs up (and
    confirms the email in that browser, which signs in) keeps the heists played there.
    """
    if not guest_id or user.pk is None:
        return 0
    # A challenge the account answered already: this browser's answer stays the guest's (one
    # answer per player, a constraint); the signed-in owner still sees it (game.owners).
    answered = Heist.objects.filter(user_id=user.pk, challenge__isnull=False).values("challenge")
    mine = Heist.objects.filter(user__isnull=True, guest_id=guest_id)
    return mine.exclude(challenge__in=answered).update(user_id=user.pk, guest_id="")


@transaction.atomic
def heists_anonymise(*, user: AbstractBaseUser) -> int:
    """An account is being deleted: keep its heists (replays, rival statistics), owned by nobody."""
    return Heist.objects.filter(user_id=user.pk).update(user=None, guest_id="")
