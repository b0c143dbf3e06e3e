"""The replay record of a closed heist (DESIGN.md section 5): exactly the engine's record format
(game/engine/replay.py, which verifies it offline), declared once for the API and its schema,
plus the view fields a verifier ignores."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from game.engine import PLAYER, RIVAL, Encounter
from game.engine.replay import record_entry, record_header
from game.models import Heist, HeistNight
from game.presenters.catalogue import StartHeatSerializer, VaultModSerializer
from game.presenters.heists import PowerPartSerializer
from game.presenters.render import AbsentWhenMissing, present
from game.rivals.personas import get_persona
from game.selectors.heists import heist_plans
from veyltak_site.exceptions import ApplicationError


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


class PositionSideSerializer(serializers.Serializer):
    deck = serializers.ListField(child=serializers.IntegerField(), help_text="Draw order.")
    hand = serializers.ListField(child=serializers.IntegerField())
    discard = serializers.ListField(child=serializers.IntegerField())
    heat = serializers.IntegerField()
    score = serializers.IntegerField()
    shuffles = serializers.IntegerField()


class PositionSidesSerializer(serializers.Serializer):
    player = PositionSideSerializer()
    rival = PositionSideSerializer()


class PositionSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    history = EngineNightResultSerializer(many=True)
    sides = PositionSidesSerializer()


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
    start = PositionSerializer(
        required=False,
        help_text="A practice retry's start: the stored position of the night it retries "
        "(game/engine/position.py); absent for a heist that starts at night 1.",
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
        start=heist.start,
    )
    # An abandoned heist publishes the nights that were played; the unplayed night's sealed
    # rival plan is not part of it. A practice retry's earlier nights are its start's history.
    for night in nights:
        if night.result is None or night.night < heist.first_night:
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
