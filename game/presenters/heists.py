"""Presenters of heists: the heist view, night results, the seal's answer, the replay record
and the history rows (DESIGN.md section 5).

Each answer is declared once, by the serializers below: drf-spectacular builds the OpenAPI schema
from them and game.presenters.render.present renders the answer through them. The builders only
gather values: the heist view from ``observe(state, PLAYER)``, the engine's one door for
positions, plus the rival commitment of this night, so the rival's hand, either deck's order,
future loot, an unrevealed nonce and the server seed have no way into it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from game.domain import HeistSnapshot
from game.engine import PLAYER, RIVAL, Encounter, observe
from game.engine.replay import record_entry, record_header
from game.models import Heist, HeistNight
from game.presenters.catalogue import (
    EncounterSerializer,
    StartHeatSerializer,
    VaultModSerializer,
    encounter_data,
)
from game.presenters.render import AbsentWhenMissing, present
from game.rivals.personas import get_persona
from game.selectors.heists import heist_plans
from veyltak_site.exceptions import ApplicationError


class VaultViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    loot = serializers.IntegerField(help_text="This night's loot (0 when closed or over).")
    closed = serializers.BooleanField()


class HandCardSerializer(serializers.Serializer):
    card = serializers.IntegerField(help_text="Stable while the card is in your hand.")
    crew = serializers.CharField()


class CosmeticsSerializer(serializers.Serializer):
    card_back = serializers.CharField(allow_null=True, help_text="Card back slug; null: default.")
    board_theme = serializers.CharField(
        allow_null=True, help_text="Board theme slug; null: default."
    )
    title = serializers.CharField(allow_null=True, help_text="Title slug; null: none.")


class YouViewSerializer(serializers.Serializer):
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand = HandCardSerializer(many=True)
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="Your decklist.")
    cosmetics = CosmeticsSerializer(help_text="Your cosmetics, fixed when the heist started.")


class RivalViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    difficulty = serializers.CharField()
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand_count = serializers.IntegerField()
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="The rival's decklist.")
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 commitment to this night's sealed rival plan."
    )
    cosmetics = CosmeticsSerializer(help_text="The rival's cosmetics, fixed at the start.")


class PowerPartSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="Power: base, boost, bonus. Heat: boost, quiet, effect.")
    amount = serializers.IntegerField()
    reason = serializers.CharField(
        allow_blank=True, help_text='"<crew slug>: <condition>" for an effect, else empty.'
    )


class NightYouCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightRivalCrewSerializer(serializers.Serializer):
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightYouSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightYouCrewSerializer(many=True)
    heat_parts = PowerPartSerializer(
        many=True,
        default=list,
        help_text="The terms of the night's Heat change (boost, quiet, effect), then clamped.",
    )


class NightRivalSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightRivalCrewSerializer(many=True)
    heat_parts = PowerPartSerializer(
        many=True,
        default=list,
        help_text="The terms of the night's Heat change (boost, quiet, effect), then clamped.",
    )
    nonce = serializers.CharField(help_text="Revealed with the plan: 64 hex characters.")
    commitment = serializers.CharField()


class WinnerField(serializers.ChoiceField):
    """The engine's winner of a vault ("player", "rival" or None) as the player's API says it."""

    _SAY = {PLAYER: "you", RIVAL: "rival"}

    def to_representation(self, value):
        return self._SAY[value]


class NightVaultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    you_power = serializers.IntegerField(source="player_power")
    rival_power = serializers.IntegerField()
    winner = WinnerField(choices=["you", "rival"], allow_null=True)
    loot = serializers.IntegerField()


class ScoreSerializer(serializers.Serializer):
    you = serializers.IntegerField(source="player")
    rival = serializers.IntegerField()


# A resolved night (DESIGN.md section 5, "Night result"), read from the engine's stored
# NightResult.to_dict() (sides "player"/"rival") and the rival's revealed nonce. Beyond DESIGN's
# shape each crew entry carries the engine's breakdown of its power, so the reveal can say why
# without the client re-deriving the rules, each side the terms of its Heat change, and the night
# its closed vaults (the board shows a past night again from the history alone). (A comment: a
# docstring would enter the schema.)
class NightResultSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    loot = serializers.DictField(child=serializers.IntegerField(), help_text="vault -> loot")
    closed = serializers.ListField(
        child=serializers.CharField(), default=list, help_text="The vaults closed that night."
    )
    you = NightYouSerializer(source="player")
    rival = NightRivalSerializer()
    vaults = NightVaultSerializer(many=True)
    score = ScoreSerializer()


class HeistResultSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["win", "loss", "draw"])
    you = serializers.IntegerField()
    rival = serializers.IntegerField()
    signs_awarded = serializers.IntegerField(allow_null=True)
    featured_bonus = serializers.IntegerField(
        allow_null=True, help_text="Signs a ranked featured finish earned on top; else null."
    )


class HeistViewSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    night = serializers.IntegerField()
    nights = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["rival_planning", "planning", "finished"])
    vaults = VaultViewSerializer(many=True)
    you = YouViewSerializer()
    rival = RivalViewSerializer()
    encounter = EncounterSerializer(allow_null=True)
    seed_commitment = serializers.CharField()
    featured = serializers.CharField(
        allow_null=True, help_text="The featured slot's slug, for a featured heist; else null."
    )
    ranked = serializers.BooleanField(help_text="A featured heist that counts on the board.")
    history = NightResultSerializer(many=True)
    result = HeistResultSerializer(allow_null=True)


class SealOutputSerializer(serializers.Serializer):
    result = NightResultSerializer()
    heist = HeistViewSerializer()


# --- Replay (the engine's record format, game/engine/replay.py) -----------------------------


class PlanCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    vault = serializers.CharField()


class PlanSerializer(serializers.Serializer):
    crew = PlanCrewSerializer(many=True)
    boost = serializers.BooleanField()


class ReplayPlansSerializer(serializers.Serializer):
    player = PlanSerializer()
    rival = PlanSerializer()


class EngineCrewResultSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True)


class EngineSideResultSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = EngineCrewResultSerializer(many=True)
    heat_parts = PowerPartSerializer(many=True)


class EngineVaultResultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    player_power = serializers.IntegerField()
    rival_power = serializers.IntegerField()
    winner = serializers.ChoiceField(choices=["player", "rival"], allow_null=True)
    loot = serializers.IntegerField()
    closed = serializers.BooleanField()


class EngineScoreSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    rival = serializers.IntegerField()


class EngineNightResultSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    loot = serializers.DictField(child=serializers.IntegerField())
    closed = serializers.ListField(child=serializers.CharField())
    player = EngineSideResultSerializer()
    rival = EngineSideResultSerializer()
    vaults = EngineVaultResultSerializer(many=True)
    score = EngineScoreSerializer()


class ReplayNightSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    plans = ReplayPlansSerializer()
    rival_nonce = serializers.CharField()
    rival_commitment = serializers.CharField()
    result = EngineNightResultSerializer()


class ReplayDecksSerializer(serializers.Serializer):
    player = serializers.ListField(child=serializers.CharField())
    rival = serializers.ListField(child=serializers.CharField())


class EngineEncounterSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    start_heat = StartHeatSerializer()
    vault_mods = VaultModSerializer(many=True)


class ReplayRivalSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    difficulty = serializers.CharField()


class ReplaySerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    server_seed = serializers.CharField()
    client_seed = serializers.CharField(allow_blank=True, trim_whitespace=False)
    seed_commitment = serializers.CharField()
    decks = ReplayDecksSerializer()
    encounter = EngineEncounterSerializer(allow_null=True)
    nights = ReplayNightSerializer(many=True)
    outcome = AbsentWhenMissing(
        choices=["player", "rival"],
        allow_null=True,
        required=False,
        help_text="The engine's winner (null: a draw); absent for an abandoned heist.",
    )
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["finished", "abandoned"])
    rival = ReplayRivalSerializer()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    verify = serializers.CharField()


# --- Builders -------------------------------------------------------------------------------


def _night_data(night: HeistNight) -> dict[str, Any]:
    r = night.result
    return {
        **r,
        # In vault order (the stored JSON may come back with its keys reordered).
        "loot": {v["slug"]: r["loot"][v["slug"]] for v in r["vaults"]},
        # The rival's card ids are not declared: they would say which of its cards it held.
        "rival": {**r[RIVAL], "nonce": night.rival_nonce, "commitment": night.rival_commitment},
    }


def night_result(night: HeistNight) -> dict[str, Any]:
    """A resolved night as the API shows it."""
    return present(NightResultSerializer, _night_data(night))


COSMETIC_KINDS = ("card_back", "board_theme", "title")


def heist_cosmetics(heist: Heist, side: str) -> dict[str, str | None]:
    """One side's cosmetics as fixed when the heist started (``"you"`` or ``"rival"``); every
    kind present, None where nothing was equipped (and for heists older than cosmetics)."""
    stored = (heist.cosmetics or {}).get(side) or {}
    return {kind: stored.get(kind) for kind in COSMETIC_KINDS}


def _phase(heist: Heist, current: HeistNight | None) -> str:
    if heist.is_closed or current is None:
        return "finished"
    return "planning" if current.rival_sealed else "rival_planning"


def _view_data(snapshot: HeistSnapshot) -> dict[str, Any]:
    heist, nights = snapshot.heist, snapshot.nights
    obs = observe(snapshot.state, PLAYER)
    current = snapshot.current
    persona = get_persona(heist.rival)
    result = None
    if heist.status == Heist.Status.FINISHED:
        result = {
            "outcome": heist.outcome,
            "you": obs.score[PLAYER],
            "rival": obs.score[RIVAL],
            "signs_awarded": heist.signs_awarded,
            "featured_bonus": heist.featured_bonus,
        }
    return {
        "id": heist.pk,
        "ruleset": heist.ruleset,
        "status": heist.status,
        # Once over, the last night played (the engine counts on to nights + 1).
        "night": min(obs.night, obs.nights),
        "nights": obs.nights,
        "phase": _phase(heist, current),
        "vaults": [
            {
                "slug": slug,
                "name": name,
                "loot": obs.loot.get(slug, 0),
                "closed": slug in obs.closed,
            }
            for slug, name in obs.vaults
        ],
        "you": {
            "heat": obs.heat[PLAYER],
            "energy": obs.energy[PLAYER],
            "score": obs.score[PLAYER],
            "hand": [{"card": card, "crew": slug} for card, slug in obs.hand],
            "deck_count": obs.deck_count[PLAYER],
            "discard": obs.discard[PLAYER],
            "deck": obs.decklists[PLAYER],
            "cosmetics": heist_cosmetics(heist, "you"),
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
            "discard": obs.discard[RIVAL],
            "deck": obs.decklists[RIVAL],
            "commitment": current.rival_commitment if current is not None else None,
            "cosmetics": heist_cosmetics(heist, "rival"),
        },
        "encounter": encounter_data(heist.encounter) if heist.encounter else None,
        "seed_commitment": heist.seed_commitment,
        "featured": heist.featured_slot_id,
        "ranked": heist.ranked,
        "history": [_night_data(n) for n in nights if n.result is not None],
        "result": result,
    }


def heist_view(snapshot: HeistSnapshot) -> dict[str, Any]:
    """The heist as its player may see it (DESIGN.md section 5, "Heist view")."""
    return present(HeistViewSerializer, _view_data(snapshot))


def seal_answer(night: HeistNight, snapshot: HeistSnapshot) -> dict[str, Any]:
    """The seal's answer: the night just resolved and the heist after it."""
    return present(
        SealOutputSerializer, {"result": _night_data(night), "heist": _view_data(snapshot)}
    )


_OUTCOME_ENGINE = {"win": PLAYER, "loss": RIVAL, "draw": None}


class _Stored:
    """A stored result dict standing in for a NightResult in ``record_entry`` (it only calls
    ``to_dict``): the replay publishes exactly what was shown, so a verifier checks that."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return self._data


def replay_record(
    heist: Heist, nights: Iterable[HeistNight], *, seed_pending: bool = False
) -> dict[str, Any]:
    """The replay record of a closed heist: exactly the format ``game.engine.replay`` verifies
    (``python -m game.engine.replay FILE.json``), plus view fields it ignores (``id``,
    ``status``, ``rival``, ``started_at``, ``finished_at``, ``verify``).

    Only after the end: before it the server seed and the nonce of a sealed, unplayed night are
    secret, so an active heist gets 409 ``heist_not_finished``. A featured heist's server seed
    is its slot's, shared by every heist of the slot: its replay waits for the slot to close
    (409 ``slot_not_closed``), or with ``seed_pending`` (the replay page) comes without it:
    ``server_seed`` None.
    """
    if not heist.is_closed:
        raise ApplicationError(
            "heist_not_finished",
            "The replay is published when the heist is over.",
            status_code=409,
        )
    withheld = heist.featured_slot_id is not None and heist.featured_slot.closed_at is None
    if withheld and not seed_pending:
        raise ApplicationError(
            "slot_not_closed",
            "A featured heist's seed is its slot's: the replay is published when the slot closes.",
            status_code=409,
        )
    record = record_header(
        ruleset=heist.ruleset,
        server_seed="" if withheld else heist.server_seed,
        client_seed=heist.client_seed,
        decks={PLAYER: heist.player_deck, RIVAL: heist.rival_deck},
        encounter=Encounter.from_dict(heist.encounter) if heist.encounter else None,
    )
    # An abandoned heist publishes the nights that were played; the unplayed night's sealed
    # rival plan is not part of it.
    for night in nights:
        if night.result is None:
            continue
        record["nights"].append(
            record_entry(
                night.night,
                heist_plans(night),
                night.rival_nonce,
                night.rival_commitment,
                _Stored(night.result),
            )
        )
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
    if withheld:
        record["server_seed"] = None
        record["seed_commitment"] = heist.seed_commitment
    return record


def replay(heist: Heist, nights: Iterable[HeistNight]) -> dict[str, Any]:
    """The replay record as the API serves it."""
    return present(ReplaySerializer, replay_record(heist, nights))


def history_rows(heists: Iterable[Heist]) -> list[dict[str, Any]]:
    """One row per heist (``player_heists``, with ``last_score``), newest first: the profile
    page and the export. The page links to the game's pages; the export keeps these API links."""
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
