"""GET /api/v1/heists/{id}/preview/: what a plan would do tonight, before sealing (the board's
live power per vault). Reads only: nothing is stored, and the answer is built from the player's
own observation, so it says nothing of the rival's hand or sealed plan."""

from __future__ import annotations

import re

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AdultConfirmed
from game.engine import EngineError, Plan
from game.owners import owner_from_request
from game.presenters.preview import PreviewSerializer, plan_preview
from game.selectors.heists import heist_load
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors as _errors

_ENTRY = re.compile(r"^(\d{1,4}):([a-z0-9-]{1,64})$")


class PreviewInputSerializer(serializers.Serializer):
    night = serializers.IntegerField(min_value=1, max_value=1000)
    crew = serializers.CharField(
        max_length=400,
        required=False,
        allow_blank=True,
        default="",
        help_text="Crew as card:vault pairs, comma-separated: `3:crown-vault,5:signal-tower`.",
    )
    boost = serializers.BooleanField(default=False)

    def validate_crew(self, value: str) -> list[tuple[int, str]]:
        if not value:
            return []
        pairs = []
        for entry in value.split(","):
            match = _ENTRY.match(entry)
            if match is None:
                raise serializers.ValidationError("Each entry is card:vault, e.g. 3:crown-vault.")
            pairs.append((int(match.group(1)), match.group(2)))
        if len(pairs) > 12:
            raise serializers.ValidationError("At most 12 entries.")
        return pairs


class HeistPreviewApi(APIView):
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[
            OpenApiParameter("heist_id", str, OpenApiParameter.PATH),
            PreviewInputSerializer,
        ],
        responses={
            200: PreviewSerializer,
            **_errors(
                **{
                    "400": "`invalid_input`, `card_not_in_hand`, `duplicate_card`, "
                    "`too_many_crew`, `over_energy`, `boost_without_crew`, `boost_locked`, "
                    "`unknown_vault`, `vault_closed`.",
                    "403": "`age_check_required`: a guest who has not passed the age check.",
                    "404": "`not_found`: no such heist, or another player's.",
                    "409": "`wrong_night`, `heist_finished`.",
                }
            ),
        },
    )
    def get(self, request, heist_id):
        data = PreviewInputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        snapshot = heist_load(heist_id=heist_id, owner=owner_from_request(request))
        if snapshot.heist.is_closed or snapshot.state.finished:
            raise ApplicationError("heist_finished", "The heist is over.", status_code=409)
        if data.validated_data["night"] != snapshot.state.night:
            raise ApplicationError(
                "wrong_night",
                f"That plan is for night {data.validated_data['night']}; "
                f"tonight is night {snapshot.state.night}.",
                status_code=409,
            )
        try:
            plan = Plan(tuple(data.validated_data["crew"]), data.validated_data["boost"])
            return Response(plan_preview(snapshot, plan))
        except EngineError as exc:
            raise ApplicationError(exc.code, exc.message, status_code=400) from None
