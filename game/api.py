"""Thin API views (DESIGN.md section 5): parse with an input serializer, call one service or
selector, render with an output serializer. Business refusals are ApplicationError, rendered by
veyltak_site.exceptions as {"error": {"code", "message", "fields"?}}."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import CsrfSessionAuthentication
from accounts.guest import guest_id
from accounts.permissions import AdultConfirmed
from game import selectors, services
from game.selectors import Owner
from game.serializers import (
    CrewSerializer,
    DeckSerializer,
    EncounterSerializer,
    HeistStartInputSerializer,
    HeistViewSerializer,
    ReplaySerializer,
    RivalSerializer,
    SavedDeckInputSerializer,
    SavedDeckSerializer,
    SealInputSerializer,
    SealOutputSerializer,
)
from veyltak_site.schema import errors as _errors
from veyltak_site.throttling import ScopedRateThrottle


@cache
def _serializer(cls: type[serializers.Serializer], many: bool) -> serializers.BaseSerializer:
    return cls(many=many)


def render(cls: type[serializers.Serializer], data: Any, *, many: bool = False) -> Any:
    """``cls(data, many=many).data``, with the serializer built once per process.

    Output serializers hold no per-request state; building one deep-copies every declared
    field, which for the heist view cost more than the rest of the request's Python.
    """
    return _serializer(cls, many).to_representation(data)


# The heist view and the seal's answer are served as the selectors build them, without a pass
# through HeistViewSerializer / SealOutputSerializer: the selectors emit exactly those fields
# with JSON types, the serializers still declare the schema (drf-spectacular), and
# tests/game/test_schema.py checks served answers against it and that rendering through the
# serializers changes nothing. The pass cost about 1 ms a seal, for an identical dict.


def request_owner(request) -> Owner:
    user = request.user
    return Owner(
        user_id=user.pk if user.is_authenticated else None,
        guest_id=guest_id(request),
    )


class CrewListApi(APIView):
    @extend_schema(responses=CrewSerializer(many=True))
    def get(self, request):
        return Response(render(CrewSerializer, selectors.crew_catalogue(), many=True))


class RivalListApi(APIView):
    @extend_schema(responses=RivalSerializer(many=True))
    def get(self, request):
        return Response(render(RivalSerializer, selectors.rival_list(), many=True))


class EncounterListApi(APIView):
    @extend_schema(responses=EncounterSerializer(many=True))
    def get(self, request):
        return Response(render(EncounterSerializer, selectors.encounter_list(), many=True))


class DeckListApi(APIView):
    """Ready-made decks (game/data/decks.json), every one legal; ``starter`` is the default."""

    @extend_schema(responses=DeckSerializer(many=True))
    def get(self, request):
        return Response(render(DeckSerializer, selectors.deck_list(), many=True))


_DECK_ERRORS = {"403": "`not_authenticated`: saved decks are for signed-in players."}


@method_decorator(never_cache, name="dispatch")
class SavedDeckListApi(APIView):
    """The signed-in player's saved decks (guests keep one deck in their session)."""

    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: SavedDeckSerializer(many=True), **_errors(**_DECK_ERRORS)})
    def get(self, request):
        decks = selectors.saved_decks(user=request.user)
        return Response(render(SavedDeckSerializer, decks, many=True))

    @extend_schema(
        request=SavedDeckInputSerializer,
        description="Save a deck under a name; a name already used is saved over (200).",
        responses={
            200: OpenApiResponse(SavedDeckSerializer, description="Saved over the same name."),
            201: OpenApiResponse(SavedDeckSerializer, description="A new saved deck."),
            **_errors(
                **{
                    "400": "`invalid_input`, `deck_name_invalid`, `deck_wrong_size`, "
                    "`deck_too_many_copies`, `deck_unknown_card`.",
                    "409": "`deck_limit_reached`: the player keeps the most saved decks "
                    "allowed; delete one or save over one.",
                    **_DECK_ERRORS,
                }
            ),
        },
    )
    def post(self, request):
        data = SavedDeckInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        deck, created = services.deck_save(
            user=request.user,
            name=data.validated_data["name"],
            cards=data.validated_data["cards"],
        )
        return Response(
            render(SavedDeckSerializer, deck),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


@method_decorator(never_cache, name="dispatch")
class SavedDeckDetailApi(APIView):
    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Deleted."),
            **_errors(
                **{"404": "`not_found`: no such saved deck, or another player's."},
                **_DECK_ERRORS,
            ),
        }
    )
    def delete(self, request, deck_id: int):
        services.deck_delete(user=request.user, name_or_id=deck_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


_HEIST_ERRORS = {
    "403": "`age_check_required`: a guest who has not passed the age check.",
    "404": "`not_found`: no such heist, or another player's.",
}


@method_decorator(never_cache, name="dispatch")
class HeistStartApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [AdultConfirmed]
    # Each start queues a rival turn: limited per session and per address (RATE_LIMITS).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "heist_start"

    @extend_schema(
        request=HeistStartInputSerializer,
        description=(
            "Start a heist. A player keeps at most HEIST_ACTIVE_MAX heists in play (3 by "
            "default): starting another closes the oldest one in play as abandoned, without "
            "Signs. Starts are rate-limited per session and per address (429 `rate_limited`, "
            "with `Retry-After`)."
        ),
        responses={
            201: HeistViewSerializer,
            **_errors(
                **{
                    "400": "`invalid_input`, `unknown_rival`, `unknown_difficulty`, "
                    "`unknown_encounter`, `deck_wrong_size`, `deck_too_many_copies`, "
                    "`deck_unknown_card`.",
                    "403": _HEIST_ERRORS["403"],
                    "429": "`rate_limited`: too many starts; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    def post(self, request):
        data = HeistStartInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        snapshot = services.heist_start(
            owner=request_owner(request),
            rival=data.validated_data["rival"],
            difficulty=data.validated_data["difficulty"],
            deck=data.validated_data.get("deck"),
            encounter=data.validated_data.get("encounter") or None,
            client_seed=data.validated_data["client_seed"],
        )
        return Response(snapshot.view(), status=status.HTTP_201_CREATED)


@method_decorator(never_cache, name="dispatch")
class HeistDetailApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [AdultConfirmed]

    @extend_schema(responses={200: HeistViewSerializer, **_errors(**_HEIST_ERRORS)})
    def get(self, request, heist_id):
        heist, nights = selectors.heist_get_with_nights(
            heist_id=heist_id, owner=request_owner(request)
        )
        # No worker sealed the rival's night in time: seal it here (DESIGN.md section 3.5).
        services.rival_seal_overdue(heist=heist, nights=nights)
        return Response(selectors.heist_view(heist, nights=nights))


@method_decorator(never_cache, name="dispatch")
class HeistSealApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [AdultConfirmed]

    @extend_schema(
        request=SealInputSerializer,
        responses={
            200: SealOutputSerializer,
            **_errors(
                **{
                    "400": "`invalid_input`, `invalid_plan`, `card_not_in_hand`, "
                    "`duplicate_card`, `too_many_crew`, `over_energy`, `boost_without_crew`, "
                    "`boost_locked`, `unknown_vault`, `vault_closed`.",
                    "409": "`wrong_night`, `rival_not_sealed`, `heist_finished`.",
                    **_HEIST_ERRORS,
                }
            ),
        },
    )
    def post(self, request, heist_id):
        data = SealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result, snapshot = services.plan_seal(
            heist_id=heist_id,
            owner=request_owner(request),
            night=data.validated_data["night"],
            crew=[dict(c) for c in data.validated_data["crew"]],
            boost=data.validated_data["boost"],
        )
        return Response({"result": result, "heist": snapshot.view()})


@method_decorator(never_cache, name="dispatch")
class HeistReplayApi(APIView):
    """The replay record, once the heist is over: verify it offline with
    ``python -m game.engine.replay FILE.json``."""

    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [AdultConfirmed]

    @extend_schema(
        responses={
            200: ReplaySerializer,
            **_errors(
                **{"409": "`heist_not_finished`: the heist is still being played."},
                **_HEIST_ERRORS,
            ),
        }
    )
    def get(self, request, heist_id):
        heist, nights = selectors.heist_get_with_nights(
            heist_id=heist_id, owner=request_owner(request)
        )
        return Response(render(ReplaySerializer, selectors.heist_replay(heist, nights=nights)))


class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI served by the app itself (drf-spectacular-sidecar), with its start-up script
    as a separate file and no inline style, so the site's strict CSP holds."""

    template_name = "api/swagger_ui.html"
    url_name = "api-schema"
