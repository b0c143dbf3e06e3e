"""Presenters of the catalogue: crew types, rivals and difficulties, encounters, ready-made and
saved decks. Each answer is declared once (the serializers below, which the OpenAPI schema reads)
and rendered through that declaration (game.presenters.render.present)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework import serializers

from game.catalogue import ReadyDeck
from game.engine import PLAYER, RIVAL, Encounter, Ruleset
from game.models import CrewType, SavedDeck
from game.presenters.render import present
from game.presenters.words import encounter_lines
from game.rivals.personas import Difficulty, Persona


class CrewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    cost = serializers.IntegerField()
    power = serializers.IntegerField()
    text = serializers.CharField()
    set = serializers.CharField()


class DifficultySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()


class RivalSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    tagline = serializers.CharField()
    deck = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")
    difficulties = DifficultySerializer(many=True)


class VaultModSerializer(serializers.Serializer):
    vault = serializers.CharField()
    nights = serializers.ListField(child=serializers.IntegerField())
    kind = serializers.ChoiceField(choices=["fixed", "raise", "double", "closed"])
    amount = serializers.IntegerField()


class StartHeatSerializer(serializers.Serializer):
    player = serializers.IntegerField(required=False)
    rival = serializers.IntegerField(required=False)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if not isinstance(instance, Mapping):
            return data
        # In the source's order: the heist view serves the encounter as stored, and
        # PostgreSQL's jsonb keeps an object's keys in an order of its own.
        return {key: data[key] for key in instance if key in data}


class ModifiersSerializer(serializers.Serializer):
    start_heat = StartHeatSerializer(help_text="Starting Heat per side, where not 0.")
    vault_mods = VaultModSerializer(many=True)


class EncounterSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    modifiers = ModifiersSerializer()


class DeckSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    deck = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")


class SavedDeckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")
    ruleset = serializers.CharField(help_text="The ruleset the deck was legal under when saved.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


# --- Builders -------------------------------------------------------------------------------

_SIDES = (PLAYER, RIVAL)


def crew_list(crew: Iterable[CrewType]) -> list[dict[str, Any]]:
    return present(CrewSerializer, crew, many=True)


def rival_list(
    personas: Iterable[Persona], difficulties: Iterable[Difficulty]
) -> list[dict[str, Any]]:
    """Every rival persona with its public deck and the difficulties it can be played at."""
    levels = list(difficulties)
    return present(
        RivalSerializer,
        [
            {
                "slug": p.slug,
                "name": p.name,
                "tagline": p.tagline,
                "deck": p.deck,
                "difficulties": levels,
            }
            for p in personas
        ],
        many=True,
    )


def encounter_data(encounter: Encounter | Mapping[str, Any]) -> dict[str, Any]:
    data = encounter.to_dict() if isinstance(encounter, Encounter) else encounter
    return {
        "slug": data["slug"],
        "name": data["name"],
        "description": data.get("description", ""),
        # Everything it changes (disclosed in full before play, RULES.md).
        "modifiers": {
            "start_heat": {s: h for s, h in data.get("start_heat", {}).items() if s in _SIDES},
            "vault_mods": data.get("vault_mods", []),
        },
    }


def encounter(encounter: Encounter | Mapping[str, Any]) -> dict[str, Any]:
    """An encounter as the API shows it: ``{slug, name, description, modifiers}``, where
    ``modifiers`` is everything it changes. Takes the engine's Encounter or its stored dict."""
    return present(EncounterSerializer, encounter_data(encounter))


def encounter_list(encounters: Iterable[Encounter]) -> list[dict[str, Any]]:
    return present(EncounterSerializer, [encounter_data(e) for e in encounters], many=True)


def encounter_choices(encounters: Iterable[Encounter], ruleset: Ruleset) -> list[dict[str, Any]]:
    """Encounters for the picker: as the API shows them, with every modifier as a sentence."""
    out = []
    for e in encounters:
        data = encounter(e)
        data["lines"] = encounter_lines(data["modifiers"], ruleset)
        out.append(data)
    return out


def deck_list(decks: Iterable[ReadyDeck]) -> list[dict[str, Any]]:
    return present(DeckSerializer, decks, many=True)


def saved_deck(deck: SavedDeck) -> dict[str, Any]:
    return present(SavedDeckSerializer, deck)


def saved_deck_list(decks: Iterable[SavedDeck]) -> list[dict[str, Any]]:
    return present(SavedDeckSerializer, decks, many=True)


def saved_decks_export(decks: Iterable[SavedDeck]) -> list[dict[str, Any]]:
    """The player's saved decks as plain data, for the account export."""
    return [
        {
            "name": d.name,
            "cards": list(d.cards),
            "ruleset": d.ruleset,
            "created_at": d.created_at.isoformat(),
            "updated_at": d.updated_at.isoformat(),
        }
        for d in decks
    ]
