"""Thin API views of the heist debrief and its retries (DESIGN.md sections 5 and 10)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AdultConfirmed
from game.owners import owner_from_request
from game.presenters import debrief as present_debrief
from game.presenters import heists as present_heists
from game.presenters.debrief import DebriefPendingSerializer, DebriefSerializer
from game.presenters.heists import HeistViewSerializer
from game.services.debriefs import debrief_ready
from game.services.practice import heist_retry
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors as _errors
from veyltak_site.throttling import ScopedRateThrottle

_HEIST_ID = OpenApiParameter("heist_id", str, OpenApiParameter.PATH)
# Seconds a client waits before asking again for a debrief being worked out.
RETRY_AFTER = 2

_ERRORS = {
    "403": "`age_check_required`: a guest who has not passed the age check.",
    "404": "`not_found`: no such heist, or another player's (a debrief is its owner's alone).",
    "409": "`heist_active`: the heist is still being played; `heist_abandoned`: it was "
    "abandoned before its end; `slot_open`: a featured heist whose slot is still open.",
}


class RetryInputSerializer(serializers.Serializer):
    night = serializers.IntegerField(
        min_value=1, max_value=1000, help_text="The night of the heist to play again."
    )


class HeistDebriefApi(APIView):
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[_HEIST_ID],
        description=(
            "What you could have done better, night by night, with what you could see then: "
            "each night's plan and the best one, scored against the rival seat's plans in "
            "Kingpin's model, the loot lost, a label, the luck of the night; the heist's "
            "accuracy and its turning point. Worked out once when the heist ends: until it "
            "is stored, 202 `pending` with `Retry-After`."
        ),
        responses={
            200: DebriefSerializer,
            202: OpenApiResponse(
                DebriefPendingSerializer,
                description="Being worked out: ask again after Retry-After.",
            ),
            **_errors(**_ERRORS),
        },
    )
    def get(self, request, heist_id):
        found = debrief_ready(heist_id=heist_id, owner=owner_from_request(request))
        if found is None:
            return Response(
                present_debrief.pending_answer(),
                status=status.HTTP_202_ACCEPTED,
                headers={"Retry-After": str(RETRY_AFTER)},
            )
        return Response(present_debrief.debrief_answer(found))


class HeistRetryApi(APIView):
    permission_classes = [AdultConfirmed]
    # A retry starts a heist (and queues a rival turn): the same limits as a start.
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "heist_start"

    @extend_schema(
        parameters=[_HEIST_ID],
        request=RetryInputSerializer,
        description=(
            "Try a night again: a practice heist from that night of your finished heist (the "
            "same hands, loot, Heat, scores, earlier nights and rival stream). Never ranked, "
            "never earns; its view says `practice_of`. It counts as a start (HEIST_ACTIVE_MAX, "
            "rate limits)."
        ),
        responses={
            201: HeistViewSerializer,
            **_errors(
                **{
                    "400": "`invalid_input`, `invalid_night`: a night the heist did not play.",
                    **_ERRORS,
                    "429": "`rate_limited`: too many starts; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    def post(self, request, heist_id):
        data = RetryInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        snapshot = heist_retry(
            heist_id=heist_id,
            owner=owner_from_request(request),
            night=data.validated_data["night"],
        )
        return Response(present_heists.heist_view(snapshot), status=status.HTTP_201_CREATED)


class NotAHeistRetryApi(APIView):
    """The retry route with an id that is not a UUID: the same answer as an unknown heist,
    after the same age check and input check (not in the schema)."""

    permission_classes = [AdultConfirmed]

    @extend_schema(exclude=True)
    def post(self, request, heist_id):
        RetryInputSerializer(data=request.data).is_valid(raise_exception=True)
        raise ApplicationError("not_found", "There is no such heist.", status_code=404)
