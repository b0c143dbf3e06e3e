"""Writes for the game app: keyword-only, typed, each under transaction.atomic.

The flow of a night (DESIGN.md section 3):

1. A night starts (``heist_start``, or ``plan_seal`` of the previous night): in the same
   transaction its loot is stored and ``plan_rival_night`` is scheduled with ``on_commit``.
2. ``rival_plan_seal`` (the Celery task's body) builds the rival's observation, asks the rival
   policy, and stores the plan, a 256-bit nonce and the commitment. It claims the night with a
   conditional UPDATE ... WHERE rival_commitment IS NULL, so running it twice, or twice at once,
   seals one plan and the second run changes nothing.
3. ``plan_seal`` locks the heist row, validates and resolves the night with the engine, and
   starts the next night or finishes. It never seals the rival's plan and never waits: while
   the rival has not sealed it answers 409 ``rival_not_sealed`` at once, because the player must
   have seen the rival's commitment before sealing (else the commitment proves nothing), and a
   request that slept for a worker would hold a web thread (issue 17).
4. The heist view, which the board polls, seals the rival's plan itself with the same service
   once the night is RIVAL_FALLBACK_SECONDS old and no worker has (``rival_seal_overdue``): a
   dead or backlogged worker slows a heist and never loses one.

The rival's random stream is derived from the heist key (server seed + client seed), label
``rival/{night}``, under a one-way sub-key (:func:`rival_stream`): the same position and policy
always give the same plan, so a worker and the fallback racing each other compute the same plan,
and the policy, which holds the stream, can never recover the heist key (and with it the future
loot or the player's draws) from it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from game import selectors
from game.engine import (
    PLAYER,
    RIVAL,
    DeckError,
    EngineError,
    HeistState,
    Plan,
    PlanError,
    Stream,
    commit_plan,
    get_ruleset,
    new_heist,
    observe,
    outcome,
    plan_canonical,
    resolve,
    seed_commitment,
    validate_deck,
    validate_plan,
)
from game.engine.rules import DEFAULT_VERSION
from game.models import CrewType, Heist, HeistNight, SavedDeck
from game.rivals.personas import UnknownRival, get_difficulty, get_persona
from game.rivals.policy import choose_plan
from game.selectors import Owner
from shop import services as shop_services
from shop.models import SignsReason
from shop.services import HeistSigns
from veyltak_site.exceptions import ApplicationError

logger = logging.getLogger(__name__)

_RIVAL_KEY_DOMAIN = b"veyltak/rival-stream/v1"


@transaction.atomic
def catalogue_load(*, ruleset: str = DEFAULT_VERSION) -> int:
    """Copy a ruleset's crew types into the catalogue table; idempotent. Returns the count."""
    rules = get_ruleset(ruleset)
    for position, crew in enumerate(rules.crew.values()):
        CrewType.objects.update_or_create(
            ruleset=rules.version,
            slug=crew.slug,
            defaults={
                "name": crew.name,
                "cost": crew.cost,
                "power": crew.power,
                "text": crew.text,
                "set": crew.set,
                "position": position,
            },
        )
    return len(rules.crew)


@dataclass(frozen=True, slots=True)
class HeistSnapshot:
    """A heist with its nights and rebuilt state, as a service leaves it (for the view)."""

    heist: Heist
    nights: list[HeistNight]
    state: HeistState

    def view(self) -> dict[str, Any]:
        return selectors.heist_view(self.heist, nights=self.nights, state=self.state)


def rival_stream(key: bytes, night: int) -> Stream:
    """The rival policy's random stream for ``night`` (see the module docstring)."""
    sub_key = hmac.digest(key, _RIVAL_KEY_DOMAIN, "sha256")
    return Stream(sub_key, f"rival/{night}")


def _engine_error(exc: EngineError, status_code: int = 400) -> ApplicationError:
    return ApplicationError(exc.code, exc.message, status_code=status_code)


def _schedule_rival(heist_id: uuid.UUID, night: int) -> None:
    # Imported here: tasks imports this module.
    from game.tasks import plan_rival_night

    def send() -> None:
        # retry=False: with the broker down, fail at once instead of holding the request;
        # plan_seal's fallback seals the night in-process anyway.
        plan_rival_night.apply_async(args=(str(heist_id), night), retry=False)

    # robust: a broker error after the commit is logged and never turns a stored heist into a
    # 500 (the fallback covers the missing task).
    transaction.on_commit(send, robust=True)


def _night_start(heist: Heist, state: HeistState) -> HeistNight:
    """Store the night the state is at (its loot as shown) and schedule the rival's seal."""
    night = HeistNight.objects.create(
        heist=heist,
        night=state.night,
        loot=dict(state.loot),
        closed=sorted(state.closed),
    )
    _schedule_rival(heist.pk, state.night)
    return night


def _owner_lock(owner: Owner) -> None:
    """Serialise heist starts of one owner (to the end of the transaction).

    PostgreSQL: an advisory lock keyed by the owner, because a guest has no row to lock and
    counting rows under FOR UPDATE would not see a heist another start is inserting. SQLite
    runs one writing transaction at a time anyway (IMMEDIATE), so it needs nothing more.
    """
    if connection.vendor != "postgresql":
        return
    name = f"heist-start:{owner.user_id or ''}:{owner.guest_id}".encode()
    key = int.from_bytes(hashlib.blake2b(name, digest_size=8).digest(), "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _make_room(owner: Owner) -> int:
    """Before a start: close the owner's oldest heists in play beyond HEIST_ACTIVE_MAX - 1 as
    abandoned (no award), so the new one makes at most HEIST_ACTIVE_MAX. Returns how many.

    One owner's starts queue on ``_owner_lock``, so two at once cannot both keep the oldest.
    The UPDATE waits for a seal in flight (its row lock) and re-checks the status, so a heist
    is never closed half-way through a night (as in ``heists_abandon_stale``).
    """
    _owner_lock(owner)
    keep = settings.HEIST_ACTIVE_MAX - 1
    surplus = list(
        Heist.objects.filter(owner.heist_filter(), status=Heist.Status.ACTIVE)
        .order_by("-created_at", "-pk")
        .values_list("pk", flat=True)[keep:]
    )
    if not surplus:
        return 0
    return Heist.objects.filter(pk__in=surplus, status=Heist.Status.ACTIVE).update(
        status=Heist.Status.ABANDONED, finished_at=timezone.now()
    )


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
    engine's code (``deck_wrong_size``, ``deck_too_many_copies``, ``deck_unknown_card``).
    The owner keeps at most HEIST_ACTIVE_MAX heists in play: the oldest beyond that is closed
    as abandoned in the same transaction (``_make_room``).
    """
    if owner.user_id is None and not owner.guest_id:
        raise ApplicationError("no_owner", "A heist needs a player or a guest session.")
    try:
        persona = get_persona(rival)
        get_difficulty(difficulty)
    except UnknownRival as exc:
        raise _engine_error(exc) from None
    enc = selectors.encounter_get(encounter) if encounter else None
    player_deck = list(deck) if deck is not None else selectors.deck_get("starter")
    server_seed = secrets.token_hex(32)
    try:
        state = new_heist(
            ruleset=ruleset,
            player_deck=player_deck,
            rival_deck=persona.deck,
            server_seed=server_seed,
            client_seed=client_seed,
            encounter=enc,
        )
    except DeckError as exc:
        raise ApplicationError(exc.code, exc.message, fields={"deck": [exc.message]}) from None
    except EngineError as exc:
        raise _engine_error(exc) from None
    with transaction.atomic():
        _make_room(owner)
        heist = Heist.objects.create(
            user_id=owner.user_id,
            # A signed-in player's heist belongs to the account only.
            guest_id="" if owner.user_id is not None else owner.guest_id,
            ruleset=state.ruleset_version,
            rival=persona.slug,
            difficulty=difficulty,
            player_deck=list(state.player.decklist),
            rival_deck=list(state.rival.decklist),
            encounter_slug=enc.slug if enc else "",
            encounter=enc.to_dict() if enc else None,
            server_seed=server_seed,
            client_seed=client_seed,
            seed_commitment=seed_commitment(server_seed),
        )
        night = _night_start(heist, state)
    return HeistSnapshot(heist, [night], state)


def rival_plan_seal(*, heist_id: uuid.UUID | str, night: int) -> bool:
    """Seal the rival's plan for ``night``. Idempotent: True if this call sealed it, False if it
    was sealed already or there is nothing to seal (heist over, night past, heist gone).

    The policy runs outside any transaction (it may think for a while); the claim is one
    conditional UPDATE, so of two concurrent runs exactly one writes and the other's plan is
    dropped. Both compute the same plan anyway (the stream is derived from the heist key).
    """
    # The heist and its nights in one query (a night row exists from the start, so a heist
    # with no rows is a heist that is gone).
    nights = list(
        HeistNight.objects.select_related("heist").filter(heist_id=heist_id).order_by("night")
    )
    if not nights:
        return False
    heist = nights[0].heist
    for row in nights:
        row.heist = heist
    return _rival_seal(heist, nights, night)


def _rival_seal(heist: Heist, nights: list[HeistNight], night: int) -> bool:
    if heist.is_closed or heist.night != night:
        return False
    row = next((n for n in nights if n.night == night), None)
    if row is None or row.rival_sealed or row.resolved:
        return False
    state = selectors.heist_state(heist, nights)
    if state.night != night:
        return False
    plan = choose_plan(
        observe(state, RIVAL),
        persona=heist.rival,
        difficulty=heist.difficulty,
        stream=rival_stream(state.key, night),
    )
    # A policy bug must never seal an illegal plan: the night could then never resolve.
    validate_plan(state, RIVAL, plan)
    nonce = secrets.token_hex(32)
    commitment = commit_plan(nonce, plan_canonical(state.rival.decklist, plan))
    # One UPDATE is its own transaction (and its own durable commit) in autocommit: no
    # BEGIN/COMMIT round trips around it.
    claimed = HeistNight.objects.filter(pk=row.pk, rival_commitment__isnull=True).update(
        rival_plan=plan.to_dict(),
        rival_nonce=nonce,
        rival_commitment=commitment,
        rival_sealed_at=timezone.now(),
    )
    return claimed == 1


def rival_seal_overdue(*, heist: Heist, nights: list[HeistNight]) -> bool:
    """The view's side of the fallback (DESIGN.md section 3, step 5): when the current night
    started more than RIVAL_FALLBACK_SECONDS ago and no worker has sealed the rival's plan,
    seal it here with the same idempotent service. Returns True if the night is sealed now.

    For ``GET /api/v1/heists/{id}/``, which the board polls: without this, a dead worker left
    the rival "planning" until the player sealed. ``nights`` is the caller's list (read without
    a lock); the current night's row in it is refreshed, so the view built from it shows the
    commitment that was stored, whoever stored it. No lock is taken here: the policy runs
    outside any transaction and the claim is ``_rival_seal``'s conditional UPDATE, so a worker
    or another request racing this one seals one plan and the loser changes nothing.
    """
    if heist.is_closed:
        return False
    row = next((n for n in nights if n.night == heist.night and n.result is None), None)
    if row is None or row.rival_sealed:
        return row is not None
    if timezone.now() - row.started_at < timedelta(seconds=settings.RIVAL_FALLBACK_SECONDS):
        return False
    try:
        _rival_seal(heist, nights, row.night)
    except Exception:
        # The view still answers ("rival_planning"); the next poll or the worker tries again.
        logger.exception(
            "view fallback rival seal failed for heist %s night %s", heist.pk, row.night
        )
        return False
    row.refresh_from_db(fields=["rival_plan", "rival_nonce", "rival_commitment", "rival_sealed_at"])
    return row.rival_sealed


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
) -> tuple[dict[str, Any], HeistSnapshot]:
    """Seal the player's plan for ``night`` and resolve it. Returns (the night's result as the
    API shows it, the heist after it).

    Refusals leave the heist unchanged: 404 ``not_found`` (not the owner's), 409
    ``heist_finished`` / ``wrong_night`` / ``rival_not_sealed``, 400 with the engine's plan code.

    Everything happens under the heist's row lock, so two seals of one night queue and the
    second finds the night moved on (409 ``wrong_night``, or ``heist_finished`` after the
    last). A night the rival has not sealed is refused at once (``rival_not_sealed``): the
    board reads the heist until it shows the commitment (the view seals an overdue night) and
    seals again. Nothing here waits or seals the rival (DESIGN.md section 3, step 5).
    """
    plan = _plan_from(crew, boost)
    with transaction.atomic():
        heist, nights = selectors.heist_get_with_nights(heist_id=heist_id, owner=owner, lock=True)
        _check_open(heist, night)
        state = selectors.heist_state(heist, nights)
        try:
            validate_plan(state, PLAYER, plan)
        except EngineError as exc:
            raise _engine_error(exc) from None
        row = next(n for n in nights if n.night == night)
        if not row.rival_sealed:
            raise ApplicationError(
                "rival_not_sealed",
                "The rival has not sealed its plan yet: wait for its commitment, then seal.",
                status_code=409,
            )
        return _resolve_night(heist, nights, row, state, plan)


def _resolve_night(
    heist: Heist, nights: list[HeistNight], row: HeistNight, state: HeistState, plan: Plan
) -> tuple[dict[str, Any], HeistSnapshot]:
    """Play the night out and start the next one (or finish). Caller holds the row lock."""
    state, result = resolve(state, {PLAYER: plan, RIVAL: Plan.from_dict(row.rival_plan)})
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
    if state.finished:
        heist_finish(heist=heist, state=state)
    else:
        Heist.objects.filter(pk=heist.pk).update(night=heist.night, last_activity_at=now)
        nights = [*nights, _night_start(heist, state)]
    return selectors.night_result_view(row), HeistSnapshot(heist, nights, state)


_OUTCOMES = {PLAYER: Heist.Outcome.WIN, RIVAL: Heist.Outcome.LOSS, None: Heist.Outcome.DRAW}


def heist_signs_award(*, heist: Heist) -> HeistSigns:
    """The Signs a finished heist earns, decided and paid by the shop (DESIGN.md section 6).

    Runs inside the transaction that finishes the heist (``heist_finish``), which holds the
    heist's row lock. The shop is told what it needs and decides: guests earn nothing, nor a
    heist with a night the player did not seal, and past the daily limit an earning of 0 is
    recorded. Keyed by the heist in the ledger, so a retry, a second worker or a double request
    pays once whatever happens here.
    """
    sealed = HeistNight.objects.filter(heist=heist, player_plan__isnull=False).count()
    return shop_services.signs_award(
        player_id=heist.user_id,
        heist_id=heist.pk,
        outcome=heist.outcome,
        difficulty=heist.difficulty,
        nights_sealed=sealed,
        nights=get_ruleset(heist.ruleset).nights,
        finished_at=heist.finished_at,
    )


@transaction.atomic
def heist_finish(*, heist: Heist, state: HeistState) -> Heist:
    """Close a heist whose last night was played: outcome and the (one) Signs award.

    Called by ``plan_seal`` with the heist row locked, so it runs once per heist.
    """
    if not state.finished:
        raise ApplicationError(
            "heist_not_finished", "The heist is still being played.", status_code=409
        )
    heist.status = Heist.Status.FINISHED
    heist.outcome = _OUTCOMES[outcome(state)]
    heist.finished_at = timezone.now()
    heist.night = state.night
    signs = heist_signs_award(heist=heist)
    heist.signs_awarded, heist.signs_reason = signs.amount, signs.reason
    heist.save(
        update_fields=[
            "status",
            "outcome",
            "finished_at",
            "night",
            "last_activity_at",
            "signs_awarded",
            "signs_reason",
        ]
    )
    return heist


@transaction.atomic
def heists_abandon_stale(*, older_than: timedelta) -> int:
    """Close active heists with no seal for ``older_than``, without an award. Returns the count.

    One UPDATE: a seal in flight holds the row lock, and PostgreSQL re-checks the WHERE clause
    on the row once the lock is released, so a heist sealed meanwhile (fresh last_activity_at)
    is left alone, and a heist is never closed half-way through a night.
    """
    now = timezone.now()
    return Heist.objects.filter(
        status=Heist.Status.ACTIVE, last_activity_at__lt=now - older_than
    ).update(status=Heist.Status.ABANDONED, finished_at=now, signs_reason=SignsReason.ABANDONED)


@transaction.atomic
def heist_abandon(*, heist_id: uuid.UUID | str) -> int:
    """Close one active heist as abandoned (staff, from the admin). Returns 1, or 0 if it was
    not active. Same rule as the periodic task: under the row lock, never mid-night."""
    return Heist.objects.filter(pk=heist_id, status=Heist.Status.ACTIVE).update(
        status=Heist.Status.ABANDONED,
        finished_at=timezone.now(),
        signs_reason=SignsReason.ABANDONED,
    )


@transaction.atomic
def heists_claim_guest(*, user: AbstractBaseUser, guest_id: str) -> int:
    """Give a guest's heists to the account they just signed in with. Returns the count.

    Connected to allauth's ``user_logged_in`` (game.signals), so a guest who signs up (and
    confirms the email in that browser, which signs in) keeps the heists played there.
    """
    if not guest_id or user.pk is None:
        return 0
    return Heist.objects.filter(user__isnull=True, guest_id=guest_id).update(
        user_id=user.pk, guest_id=""
    )


@transaction.atomic
def heists_anonymise(*, user: AbstractBaseUser) -> int:
    """An account is being deleted: keep its heists (replays, rival statistics), owned by nobody."""
    return Heist.objects.filter(user_id=user.pk).update(user=None, guest_id="")


# --- Saved decks (issue 6: signed-in players save named decks) -----------------------------

SAVED_DECKS_MAX = 20
DECK_NAME_MAX = SavedDeck._meta.get_field("name").max_length


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
    ``deck_unknown_card``), ``deck_name_invalid``, and 409 ``deck_limit_reached`` for a new
    name when the player keeps SAVED_DECKS_MAX decks already.
    """
    name = _deck_name(name)
    rules = get_ruleset(ruleset)
    try:
        deck = validate_deck(rules, cards)
    except DeckError as exc:
        raise ApplicationError(exc.code, exc.message, fields={"cards": [exc.message]}) from None
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
