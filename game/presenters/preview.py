"""The plan preview's answer (GET /api/v1/heists/{id}/preview/): what a plan would do tonight
as far as its player can know, declared once like every answer."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from game.domain import HeistSnapshot
from game.engine import PLAYER, Plan
from game.engine.preview import preview
from game.engine.view import observe
from game.presenters.render import present


class PreviewPartSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["base", "boost", "bonus"])
    amount = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True, help_text="The condition that holds.")


class PreviewCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    power = serializers.IntegerField(help_text="Power counting only the bonuses sure to hold.")
    parts = PreviewPartSerializer(many=True)


class PreviewMaybeSerializer(serializers.Serializer):
    crew = serializers.CharField()
    amount = serializers.IntegerField()
    reason = serializers.CharField(help_text="The condition, which depends on the rival's plan.")


class PreviewVaultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    power = serializers.IntegerField()
    closed = serializers.BooleanField()
    crew = PreviewCrewSerializer(many=True)
    conditional = PreviewMaybeSerializer(many=True)


class PreviewHeatMaybeSerializer(serializers.Serializer):
    amount = serializers.IntegerField()
    reason = serializers.CharField()


class PreviewTomorrowSerializer(serializers.Serializer):
    heat = serializers.IntegerField()
    energy = serializers.IntegerField(allow_null=True, help_text="None after the last night.")
    conditional = PreviewHeatMaybeSerializer(many=True)


class PreviewSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    boost = serializers.BooleanField()
    spent = serializers.IntegerField()
    energy = serializers.IntegerField()
    vaults = PreviewVaultSerializer(many=True)
    tomorrow = PreviewTomorrowSerializer()
    other_boost = PreviewTomorrowSerializer(
        allow_null=True, help_text="The same plan with Boost the other way, when that is legal."
    )


def plan_preview(snapshot: HeistSnapshot, plan: Plan) -> dict[str, Any]:
    """The preview of ``plan`` from the player's observation only (never the rival's hand)."""
    return present(PreviewSerializer, preview(observe(snapshot.state, PLAYER), plan))
