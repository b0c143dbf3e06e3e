"""Reads for the game app: pages and the API call these, never the models directly.

Heist state is never stored: :func:`heist_state` rebuilds it from what the models keep (ruleset
version, decks, seeds, encounter, every sealed plan) with the engine, and :func:`heist_view` turns
it into what the player may see (DESIGN.md section 5). The view is built from
``observe(state, PLAYER)``, the engine's one door for positions, plus the rival commitment of this
night, so the rival's hand, either deck's order, future loot, an unrevealed nonce and the server
seed have no way into it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from django.db.models import JSONField, OuterRef, Q, Subquery
from django.db.models.functions import Lower

from game.engine import (
    PLAYER,
    RIVAL,
    DeckError,
    Encounter,
    HeistState,
    Plan,
    get_ruleset,
    new_heist,
    observe,
    resolve,
    validate_deck,
)
from game.engine.replay import record_entry, record_header
from game.engine.rules import DEFAULT_VERSION
from game.models import CrewType, Heist, HeistNight, SavedDeck
from game.rivals.personas import get_persona, list_difficulties, list_personas
from veyltak_site.exceptions import ApplicationError

# --- Catalogue ------------------------------------------------------------------------------


def crew_catalogue(*, ruleset: str = DEFAULT_VERSION) -> list[CrewType]:
    return list(CrewType.objects.filter(ruleset=ruleset).order_by("position"))


def rival_list() -> list[dict[str, Any]]:
    """Every rival persona with its public deck and the difficulties it can be played at."""
    difficulties = [
        {"slug": d.slug, "name": d.name, "description": d.description} for d in list_difficulties()
    ]
    return [
        {
            "slug": p.slug,
            "name": p.name,
            "tagline": p.tagline,
            "deck": list(p.deck),
            "difficulties": difficulties,
        }
        for p in list_personas()
    ]


def _data(name: str) -> dict[str, Any]:
    return json.loads(resources.files("game").joinpath("data", name).read_text("utf-8"))


@cache
def _encounters() -> tuple[Encounter, ...]:
    ruleset = get_ruleset(DEFAULT_VERSION)
    # Validated at load against the ruleset: a bad modifier fails loudly here, not mid-heist.
    encounters = tuple(
        Encounter.from_dict(raw).validate(ruleset) for raw in _data("encounters.json")["encounters"]
    )
    slugs = [e.slug for e in encounters]
    if len(set(slugs)) != len(slugs):
        raise ValueError("game/data/encounters.json: duplicate encounter slug")
    return encounters


@cache
def _decks() -> tuple[dict[str, Any], ...]:
    ruleset = get_ruleset(DEFAULT_VERSION)
    decks = []
    for raw in _data("decks.json")["decks"]:
        validate_deck(ruleset, raw["deck"])  # every ready-made deck is legal, or nothing loads
        decks.append(
            {
                "slug": raw["slug"],
                "name": raw["name"],
                "description": raw["description"],
                "deck": list(raw["deck"]),
            }
        )
    slugs = [d["slug"] for d in decks]
    if len(set(slugs)) != len(slugs) or "starter" not in slugs:
        raise ValueError("game/data/decks.json: slugs must be unique and include 'starter'")
    return tuple(decks)


_SIDES = (PLAYER, RIVAL)


def encounter_public(encounter: Encounter | dict[str, Any]) -> dict[str, Any]:
    """An encounter as the API shows it: ``{slug, name, description, modifiers}``, where
    ``modifiers`` is everything it changes (disclosed in full before play, RULES.md)."""
    data = encounter.to_dict() if isinstance(encounter, Encounter) else encounter
    return {
        "slug": data["slug"],
        "name": data["name"],
        "description": data.get("description", ""),
        # Exactly the serializer's fields (the heist API serves these dicts as they are).
        "modifiers": {
            "start_heat": {s: h for s, h in data.get("start_heat", {}).items() if s in _SIDES},
            "vault_mods": [
                {
                    "vault": m["vault"],
                    "nights": list(m["nights"]),
                    "kind": m["kind"],
                    "amount": m["amount"],
                }
                for m in data.get("vault_mods", [])
            ],
        },
    }


def encounter_list() -> list[dict[str, Any]]:
    return [encounter_public(e) for e in _encounters()]


def encounter_get(slug: str) -> Encounter:
    for encounter in _encounters():
        if encounter.slug == slug:
            return encounter
    raise ApplicationError("unknown_encounter", f"There is no encounter called {slug!r}.")


def deck_list() -> list[dict[str, Any]]:
    return [dict(d, deck=list(d["deck"])) for d in _decks()]


def deck_get(slug: str) -> list[str]:
    for deck in _decks():
        if deck["slug"] == slug:
            return list(deck["deck"])
    raise ApplicationError("unknown_deck", f"There is no ready-made deck called {slug!r}.")


# --- Saved decks ---------------------------------------------------------------------------


def saved_decks(*, user) -> list[SavedDeck]:
    """A signed-in player's saved decks, by name; none for a guest (their one deck is in the
    session, game.views.SESSION_DECK)."""
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


def saved_decks_export(*, user) -> list[dict[str, Any]]:
    """The player's saved decks as plain data, for the account export."""
    return [
        {
            "name": d.name,
            "cards": list(d.cards),
            "ruleset": d.ruleset,
            "created_at": d.created_at.isoformat(),
            "updated_at": d.updated_at.isoformat(),
        }
        for d in saved_decks(user=user)
    ]


# --- Owners ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Owner:
    """Who is asking: a signed-in player (``user_id``) and/or a guest session (``guest_id``).

    A signed-in player owns the heists on their account and any still-unclaimed heists of the
    browser session they signed in from (the sign-in signal claims those, this covers the race).
    """

    user_id: int | None
    guest_id: str = ""

    def heist_filter(self, prefix: str = "") -> Q:
        """Heists this owner may see; ``prefix`` (e.g. ``"heist__"``) for a related model."""
        q = Q(**{f"{prefix}pk__in": []})
        if self.user_id is not None:
            q |= Q(**{f"{prefix}user_id": self.user_id})
        if self.guest_id:
            q |= Q(**{f"{prefix}user__isnull": True, f"{prefix}guest_id": self.guest_id})
        return q


def heist_get(*, heist_id: uuid.UUID | str, owner: Owner, lock: bool = False) -> Heist:
    """The heist if ``owner`` owns it; anyone else's, or none, is the same 404.

    ``lock`` takes the row lock (SELECT ... FOR UPDATE) for the caller's transaction.
    """
    try:
        pk = heist_id if isinstance(heist_id, uuid.UUID) else uuid.UUID(str(heist_id))
    except ValueError:
        raise _not_found() from None
    heists = Heist.objects.select_for_update() if lock else Heist.objects
    heist = heists.filter(owner.heist_filter(), pk=pk).first()
    if heist is None:
        raise _not_found()
    return heist


def heist_get_with_nights(
    *, heist_id: uuid.UUID | str, owner: Owner, lock: bool = False
) -> tuple[Heist, list[HeistNight]]:
    """The owner's heist and its nights in one query (the hot path of the view and the seal).

    A night row exists from the start, so joining from the nights always finds the heist;
    ``lock`` locks only the heist row (FOR UPDATE OF game_heist).
    """
    try:
        pk = heist_id if isinstance(heist_id, uuid.UUID) else uuid.UUID(str(heist_id))
    except ValueError:
        raise _not_found() from None
    rows = (
        HeistNight.objects.select_related("heist")
        .filter(owner.heist_filter(prefix="heist__"), heist_id=pk)
        .order_by("night")
    )
    if lock:
        rows = rows.select_for_update(of=("heist",))
    nights = list(rows)
    if not nights:
        raise _not_found()
    heist = nights[0].heist
    for night in nights:
        night.heist = heist  # one instance, as heist.nights would give
    return heist, nights


def _not_found() -> ApplicationError:
    return ApplicationError("not_found", "There is no such heist.", status_code=404)


def heist_nights(heist: Heist) -> list[HeistNight]:
    return list(HeistNight.objects.filter(heist=heist).order_by("night"))


def heist_history(*, user_id: int) -> list[dict[str, Any]]:
    """One row per heist of a signed-in player, newest first (the profile page and export)."""
    last_score = (
        HeistNight.objects.filter(heist=OuterRef("pk"), result__isnull=False)
        .order_by("-night")
        .values("result__score")[:1]
    )
    heists = (
        Heist.objects.filter(user_id=user_id)
        .annotate(last_score=Subquery(last_score, output_field=JSONField()))
        .order_by("-created_at")
    )
    rows = []
    for h in heists:
        score = h.last_score or {PLAYER: 0, RIVAL: 0}
        rows.append(
            {
                "id": str(h.pk),
                "rival": h.rival,
                "difficulty": h.difficulty,
                "encounter": h.encounter_slug or None,
                "status": h.status,
                "outcome": h.outcome or None,
                "score": {"you": score[PLAYER], "rival": score[RIVAL]},
                "created_at": h.created_at.isoformat(),
                "finished_at": h.finished_at.isoformat() if h.finished_at else None,
                "replay_url": f"/api/v1/heists/{h.pk}/replay/" if h.is_closed else None,
            }
        )
    return rows


# --- State ----------------------------------------------------------------------------------


def heist_plans(night: HeistNight) -> dict[str, Plan]:
    return {
        PLAYER: Plan.from_dict(night.player_plan),
        RIVAL: Plan.from_dict(night.rival_plan),
    }


def heist_state(heist: Heist, nights: Iterable[HeistNight]) -> HeistState:
    """Rebuild the engine state: start the heist, then resolve every resolved night in order."""
    state = new_heist(
        ruleset=heist.ruleset,
        player_deck=heist.player_deck,
        rival_deck=heist.rival_deck,
        server_seed=heist.server_seed,
        client_seed=heist.client_seed,
        encounter=heist.encounter,
    )
    for night in nights:
        if night.result is None:
            continue
        if night.night != state.night:
            raise RuntimeError(f"heist {heist.pk}: stored night {night.night} out of order")
        state, _ = resolve(state, heist_plans(night))
    return state


# --- Views ----------------------------------------------------------------------------------

_WINNER = {PLAYER: "you", RIVAL: "rival", None: None}


def _breakdown(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"kind": p["kind"], "amount": p["amount"], "reason": p["reason"]} for p in parts]


def night_result_view(night: HeistNight) -> dict[str, Any]:
    """A resolved night as the API shows it (DESIGN.md section 5, "Night result"), from the
    engine's stored ``NightResult.to_dict()`` and the rival's now-revealed nonce.

    Beyond DESIGN's shape, each crew entry carries the engine's ``breakdown`` of its power
    (``[{kind: base|boost|bonus, amount, reason}]``), so the reveal can say why without the
    client re-deriving the rules; it reads only the two revealed plans and public history.
    """
    r = night.result
    you, rival = r[PLAYER], r[RIVAL]
    return {
        "night": r["night"],
        # In vault order (the stored JSON may come back with its keys reordered).
        "loot": {v["slug"]: r["loot"][v["slug"]] for v in r["vaults"]},
        "you": {
            "heat_start": you["heat_start"],
            "heat_end": you["heat_end"],
            "boost": you["boost"],
            "crew": [
                {
                    "card": c["card"],
                    "crew": c["crew"],
                    "vault": c["vault"],
                    "power": c["power"],
                    "breakdown": _breakdown(c["breakdown"]),
                }
                for c in you["crew"]
            ],
        },
        "rival": {
            "heat_start": rival["heat_start"],
            "heat_end": rival["heat_end"],
            "boost": rival["boost"],
            # No card ids for the rival: they would say which of its cards it held.
            "crew": [
                {
                    "crew": c["crew"],
                    "vault": c["vault"],
                    "power": c["power"],
                    "breakdown": _breakdown(c["breakdown"]),
                }
                for c in rival["crew"]
            ],
            "nonce": night.rival_nonce,
            "commitment": night.rival_commitment,
        },
        "vaults": [
            {
                "slug": v["slug"],
                "you_power": v["player_power"],
                "rival_power": v["rival_power"],
                "winner": _WINNER[v["winner"]],
                "loot": v["loot"],
            }
            for v in r["vaults"]
        ],
        "score": {"you": r["score"][PLAYER], "rival": r["score"][RIVAL]},
    }


def heist_phase(heist: Heist, current: HeistNight | None) -> str:
    if heist.is_closed or current is None:
        return "finished"
    return "planning" if current.rival_sealed else "rival_planning"


def heist_view(
    heist: Heist,
    *,
    nights: Sequence[HeistNight] | None = None,
    state: HeistState | None = None,
) -> dict[str, Any]:
    """The heist as its player may see it (DESIGN.md section 5, "Heist view").

    ``nights`` and ``state`` may be passed when the caller already has them (the seal service
    does), to save the queries and the rebuild.
    """
    if nights is None:
        nights = heist_nights(heist)
    if state is None:
        state = heist_state(heist, nights)
    obs = observe(state, PLAYER)
    current = None
    if not heist.is_closed:
        current = next((n for n in nights if n.night == heist.night and n.result is None), None)
    persona = get_persona(heist.rival)
    vaults = [
        {
            "slug": slug,
            "name": name,
            "loot": obs.loot.get(slug, 0),
            "closed": slug in obs.closed,
        }
        for slug, name in obs.vaults
    ]
    result = None
    if heist.status == Heist.Status.FINISHED:
        result = {
            "outcome": heist.outcome,
            "you": obs.score[PLAYER],
            "rival": obs.score[RIVAL],
            "signs_awarded": heist.signs_awarded,
        }
    return {
        "id": str(heist.pk),
        "ruleset": heist.ruleset,
        "status": heist.status,
        # Once over, the last night played (the engine counts on to nights + 1).
        "night": min(obs.night, obs.nights),
        "nights": obs.nights,
        "phase": heist_phase(heist, current),
        "vaults": vaults,
        "you": {
            "heat": obs.heat[PLAYER],
            "energy": obs.energy[PLAYER],
            "score": obs.score[PLAYER],
            "hand": [{"card": card, "crew": slug} for card, slug in obs.hand],
            "deck_count": obs.deck_count[PLAYER],
            "discard": list(obs.discard[PLAYER]),
            "deck": list(obs.decklists[PLAYER]),
        },
        "rival": {
            "slug": persona.slug,
            "name": persona.name,
            "difficulty": heist.difficulty,
            "heat": obs.heat[RIVAL],
            "energy": obs.energy[RIVAL],
            "score": obs.score[RIVAL],
            "hand_count": obs.hand_count[RIVAL],
            "deck_count": obs.deck_count[RIVAL],
            "discard": list(obs.discard[RIVAL]),
            "deck": list(obs.decklists[RIVAL]),
            "commitment": current.rival_commitment if current is not None else None,
        },
        "encounter": encounter_public(heist.encounter) if heist.encounter else None,
        "seed_commitment": heist.seed_commitment,
        "history": [night_result_view(n) for n in nights if n.result is not None],
        "result": result,
    }


_OUTCOME_ENGINE = {"win": PLAYER, "loss": RIVAL, "draw": None}


def heist_replay(heist: Heist, *, nights: Sequence[HeistNight] | None = None) -> dict[str, Any]:
    """The replay record of a closed heist: exactly the format ``game.engine.replay`` verifies
    (``python -m game.engine.replay FILE.json``), plus view fields it ignores (``id``,
    ``status``, ``rival``, ``started_at``, ``finished_at``, ``verify``).

    Only after the end: before it the server seed and the nonce of a sealed, unplayed night are
    secret, so an active heist gets 409 ``heist_not_finished``.
    """
    if not heist.is_closed:
        raise ApplicationError(
            "heist_not_finished",
            "The replay is published when the heist is over.",
            status_code=409,
        )
    if nights is None:
        nights = heist_nights(heist)
    record = record_header(
        ruleset=heist.ruleset,
        server_seed=heist.server_seed,
        client_seed=heist.client_seed,
        decks={PLAYER: heist.player_deck, RIVAL: heist.rival_deck},
        encounter=Encounter.from_dict(heist.encounter) if heist.encounter else None,
    )
    # An abandoned heist publishes the nights that were played; the unplayed night's sealed
    # rival plan is not part of it.
    for night in nights:
        if night.result is None:
            continue
        entry = record_entry(
            night.night,
            heist_plans(night),
            night.rival_nonce,
            night.rival_commitment,
            _Stored(night.result),
        )
        record["nights"].append(entry)
    if heist.status == Heist.Status.FINISHED:
        record["outcome"] = _OUTCOME_ENGINE[heist.outcome]
    persona = get_persona(heist.rival)
    record.update(
        {
            "id": str(heist.pk),
            "status": heist.status,
            "rival": {"slug": persona.slug, "name": persona.name, "difficulty": heist.difficulty},
            "started_at": heist.created_at.isoformat(),
            "finished_at": heist.finished_at.isoformat() if heist.finished_at else None,
            "verify": "python -m game.engine.replay FILE.json",
        }
    )
    return record


class _Stored:
    """A stored result dict standing in for a NightResult in ``record_entry`` (it only calls
    ``to_dict``): the replay publishes exactly what was shown, so a verifier checks that."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return self._data
