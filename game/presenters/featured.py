"""Presenters of featured heists (DESIGN.md section 5): a slot, the rotation's answer (current,
next, past) and a slot's leaderboard. Each answer is declared once by the serializers below
(the OpenAPI schema reads them) and rendered through them (game.presenters.render.present).

The slot's server seed has one way out, :func:`_slot_data`, which gives it only once the slot
is closed; the next slot's declaration has no seed field, deck or commitment at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from game.engine import Ruleset
from game.models import FeaturedSlot, Heist
from game.presenters import words
from game.presenters.catalogue import EncounterSerializer, encounter_data
from game.presenters.pages import deck_summary
from game.presenters.render import present
from game.rivals.personas import get_difficulty, get_persona
from game.selectors.featured import Standing


class SlotYouSerializer(serializers.Serializer):
    heist = serializers.UUIDField(help_text="Your ranked heist of the slot, else your latest.")
    ranked = serializers.BooleanField()
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    score = serializers.IntegerField(help_text="Your loot after the last night played.")


class WinnerSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField(help_text="The public handle.")
    score = serializers.IntegerField()
    rival_score = serializers.IntegerField()
    signs = serializers.IntegerField(help_text="Signs paid when the slot closed.")


class SlotSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    encounter = EncounterSerializer()
    rival = serializers.CharField(help_text="The rival persona's slug.")
    difficulty = serializers.CharField()
    deck = serializers.ListField(child=serializers.CharField(), help_text="Your fixed 12 cards.")
    seed_commitment = serializers.CharField(help_text="SHA-256 of the slot's server seed.")
    server_seed = serializers.CharField(
        allow_null=True, help_text="Published once the slot has closed; null before."
    )
    closed = serializers.BooleanField()
    winners = WinnerSerializer(many=True, help_text="The paid places, once closed.")
    you = SlotYouSerializer(allow_null=True)


class NextSlotSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    encounter = EncounterSerializer()
    rival = serializers.CharField()
    difficulty = serializers.CharField()


class FeaturedSerializer(serializers.Serializer):
    current = SlotSerializer(allow_null=True)
    next = NextSlotSerializer(allow_null=True)
    past = SlotSerializer(many=True, help_text="The latest closed slots, newest first.")


class EntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField(allow_null=True, help_text="The public handle.")
    title = serializers.CharField(allow_null=True)
    score = serializers.IntegerField()
    rival_score = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class LeaderboardSerializer(serializers.Serializer):
    slot = SlotSerializer()
    entries = EntrySerializer(many=True)
    you = EntrySerializer(allow_null=True, help_text="Your own place; null without one.")


# --- Builders -------------------------------------------------------------------------------


def _you(heist: Heist | None) -> dict[str, Any] | None:
    if heist is None:
        return None
    score = getattr(heist, "last_score", None) or {}
    return {
        "heist": heist.pk,
        "ranked": heist.ranked,
        "status": heist.status,
        "score": score.get("player", 0),
    }


def _slot_data(slot: FeaturedSlot, you: Heist | None = None) -> dict[str, Any]:
    closed = slot.closed_at is not None
    return {
        "slug": slot.slug,
        "name": slot.name,
        "starts_at": slot.starts_at,
        "ends_at": slot.ends_at,
        "encounter": encounter_data(slot.encounter),
        "rival": slot.rival,
        "difficulty": slot.difficulty,
        "deck": list(slot.deck),
        "seed_commitment": slot.seed_commitment,
        # The one place the seed leaves the server: after the close, never before.
        "server_seed": slot.server_seed if closed else None,
        "closed": closed,
        "winners": slot.winners if closed else [],
        "you": _you(you),
    }


def _next_data(slot: FeaturedSlot) -> dict[str, Any]:
    return {
        "slug": slot.slug,
        "name": slot.name,
        "starts_at": slot.starts_at,
        "ends_at": slot.ends_at,
        "encounter": encounter_data(slot.encounter),
        "rival": slot.rival,
        "difficulty": slot.difficulty,
    }


def slot(slot: FeaturedSlot, you: Heist | None = None) -> dict[str, Any]:
    return present(SlotSerializer, _slot_data(slot, you))


def featured(
    current: FeaturedSlot | None,
    next_slot: FeaturedSlot | None,
    past: Iterable[FeaturedSlot],
    you: dict[str, Heist | None],
) -> dict[str, Any]:
    """``GET /api/v1/featured/``: ``you`` maps a slot's slug to the asker's heist in it."""
    return present(
        FeaturedSerializer,
        {
            "current": _slot_data(current, you.get(current.slug)) if current else None,
            "next": _next_data(next_slot) if next_slot else None,
            "past": [_slot_data(s, you.get(s.slug)) for s in past],
        },
    )


def _entry(standing: Standing) -> dict[str, Any]:
    return {
        "rank": standing.rank,
        "player": standing.handle,
        "title": standing.title,
        "score": standing.score,
        "rival_score": standing.rival_score,
        "finished_at": standing.finished_at,
    }


def leaderboard(
    slot: FeaturedSlot,
    entries: Iterable[Standing],
    you: Standing | None,
    your_heist: Heist | None = None,
) -> dict[str, Any]:
    return present(
        LeaderboardSerializer,
        {
            "slot": _slot_data(slot, your_heist),
            "entries": [_entry(e) for e in entries],
            "you": _entry(you) if you else None,
        },
    )


def entry_rows(entries: Iterable[Standing]) -> list[dict[str, Any]]:
    """Leaderboard rows for a page (the API's entries, with the heist id for the verify link)."""
    return [{**_entry(e), "heist": e.heist_id} for e in entries]


# --- Pages ----------------------------------------------------------------------------------


def slot_card(slot: FeaturedSlot, ruleset: Ruleset, now) -> dict[str, Any]:
    """What the home page and the featured page say of a slot: names rather than slugs, the
    encounter's story and every modifier as a sentence, the deck as counts, the time left. No
    seed: the pages add it for a closed slot themselves (``slot.server_seed``)."""
    persona = get_persona(slot.rival)
    encounter = encounter_data(slot.encounter)
    return {
        "slug": slot.slug,
        "name": slot.name,
        "starts_at": slot.starts_at,
        "ends_at": slot.ends_at,
        "open": slot.is_open(now),
        "closed": slot.closed_at is not None,
        "seconds_left": max(0, int((slot.ends_at - now).total_seconds())),
        "encounter": encounter,
        "encounter_lines": words.encounter_lines(encounter["modifiers"], ruleset),
        "rival": {"slug": persona.slug, "name": persona.name, "tagline": persona.tagline},
        "difficulty": get_difficulty(slot.difficulty),
        "deck": deck_summary(ruleset, slot.deck),
        "seed_commitment": slot.seed_commitment,
        "winners": slot.winners if slot.closed_at is not None else [],
    }
