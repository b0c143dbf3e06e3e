"""Thin API views (DESIGN.md section 5): parse with an input serializer, call one service or
selector, answer with a presenter (game.presenters: each answer declared once, the schema read
from the same declarations). Business refusals are ApplicationError, rendered by
veyltak_site.exceptions as {"error": {"code", "message", "fields"?}}."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AdultConfirmed
from game.owners import owner_from_request
from game.presenters import catalogue as present_catalogue
from game.presenters import heists as present_heists
from game.presenters import replay as present_replay
from game.presenters.catalogue import (
    CrewSerializer,
    DeckSerializer,
    EncounterSerializer,
    RivalSerializer,
    SavedDeckSerializer,
)
from game.presenters.heists import HeistViewSerializer, SealOutputSerializer
from game.presenters.replay import ReplaySerializer
from game.selectors import catalogue as catalogue_selectors
from game.selectors.decks import saved_decks
from game.selectors.heists import heist_load, heist_mark
from game.services.decks import deck_delete, deck_save
from game.services.heists import heist_start, plan_seal
from game.services.rivals import rival_fallback_cutoff, rival_seal_overdue
from veyltak_site.exceptions import ApplicationError
from veyltak_site.http import etag_matches
from veyltak_site.schema import errors as _errors
from veyltak_site.throttling import ScopedRateThrottle

# --- Inputs ---------------------------------------------------------------------------------


class SavedDeckInputSerializer(serializers.Serializer):
    # Bounds only: the name rule (1 to 40 characters once stripped) is deck_save's, with its
    # own code, deck_name_invalid; the deck rules are the engine's.
    name = serializers.CharField(max_length=200, allow_blank=True, help_text="1 to 40 characters.")
    cards = serializers.ListField(
        child=serializers.CharField(max_length=64), max_length=64, help_text="12 crew slugs."
    )


class HeistStartInputSerializer(serializers.Serializer):
    rival = serializers.CharField(max_length=64)
    difficulty = serializers.CharField(max_length=32)
    deck = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=64,
        help_text="12 crew slugs; the ready-made starter deck when left out.",
    )
    encounter = serializers.CharField(
        max_length=64, required=False, allow_null=True, allow_blank=True
    )
    client_seed = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        default="",
        help_text="Your part of the heist's seed (provably fair); any text up to 64 characters.",
    )


# The largest night number or card id an input may carry: far above any ruleset's, and small
# enough that no number a client sends is ever more than a comparison.
_ID_MAX = 1000


class CrewEntryInputSerializer(serializers.Serializer):
    # Bounds only (a card id is an index into a 12-card deck; the engine checks the hand).
    card = serializers.IntegerField(
        min_value=0, max_value=_ID_MAX, help_text="A card id from your hand."
    )
    vault = serializers.CharField(max_length=64)


class SealInputSerializer(serializers.Serializer):
    night = serializers.IntegerField(min_value=1, max_value=_ID_MAX)
    # Long lists are refused by the engine (too_many_crew); the cap only bounds the request.
    crew = CrewEntryInputSerializer(many=True, max_length=12)
    boost = serializers.BooleanField(default=False)


# A public read that changes nothing (the catalogue, the featured heists): the plain session
# authentication these routes always had, not the CSRF-checked default of every other API view
# (REST_FRAMEWORK in settings). A guest's POST here is 405 as before, and the schema keeps
# naming their security cookieAuth. (No docstring: the schema would take it as the operations'.)
class PublicReadApi(APIView):
    authentication_classes = [SessionAuthentication]


class CrewListApi(PublicReadApi):
    @extend_schema(responses=CrewSerializer(many=True))
    def get(self, request):
        return Response(present_catalogue.crew_list(catalogue_selectors.crew_types()))


class RivalListApi(PublicReadApi):
    @extend_schema(responses=RivalSerializer(many=True))
    def get(self, request):
        return Response(
            present_catalogue.rival_list(
                catalogue_selectors.rivals(), catalogue_selectors.difficulties()
            )
        )


class EncounterListApi(PublicReadApi):
    @extend_schema(responses=EncounterSerializer(many=True))
    def get(self, request):
        return Response(present_catalogue.encounter_list(catalogue_selectors.encounters()))


class DeckListApi(PublicReadApi):
    """Ready-made decks (game/data/decks.json), every one legal; ``starter`` is the default."""

    @extend_schema(responses=DeckSerializer(many=True))
    def get(self, request):
        return Response(present_catalogue.deck_list(catalogue_selectors.ready_decks()))


_DECK_ERRORS = {"403": "`not_authenticated`: saved decks are for signed-in players."}


class SavedDeckListApi(APIView):
    """The signed-in player's saved decks (guests keep one deck in their session)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: SavedDeckSerializer(many=True), **_errors(**_DECK_ERRORS)})
    def get(self, request):
        return Response(present_catalogue.saved_deck_list(saved_decks(user=request.user)))

    @extend_schema(
        request=SavedDeckInputSerializer,
        description="Save a deck under a name; a name already used is saved over (200).",
        responses={
            200: OpenApiResponse(SavedDeckSerializer, description="Saved over the same name."),
            201: OpenApiResponse(SavedDeckSerializer, description="A new saved deck."),
            **_errors(
                **{
                    "400": "`invalid_input`, `deck_name_invalid`, `deck_wrong_size`, "
                    "`deck_too_many_copies`, `deck_unknown_card`, `crew_not_owned` (Night "
                    "Market crew the player does not own).",
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
        deck, created = deck_save(
            user=request.user,
            name=data.validated_data["name"],
            cards=data.validated_data["cards"],
        )
        return Response(
            present_catalogue.saved_deck(deck),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class SavedDeckDetailApi(APIView):
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
        deck_delete(user=request.user, name_or_id=deck_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# The id is routed by <uuid:...> converters; any other string gets the same 404 as an unknown
# heist (the NotAHeist* routes), so the schema keeps declaring a string.
_HEIST_ID = OpenApiParameter("heist_id", str, OpenApiParameter.PATH)

_IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` of the view you hold: 304 while it is still current.",
)

# The ETag of the heist view an answer holds (a start's answer, the seal's ``heist``): sent in
# If-None-Match, the client's next read of the view is a 304 while the rival still plans.
VIEW_ETAG_HEADER = "Heist-ETag"

_HEIST_ERRORS = {
    "403": "`age_check_required`: a guest who has not passed the age check.",
    "404": "`not_found`: no such heist, or another player's.",
}


class HeistStartApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    permission_classes = [AdultConfirmed]
    # Each start queues a rival turn: limited per session and per address (RATE_LIMITS).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "heist_start"

    @extend_schema(
        request=HeistStartInputSerializer,
        description=(
            "Start a heist. A player keeps at most HEIST_ACTIVE_MAX heists in play (3 by "
            "default): starting another closes the oldest one in play as abandoned, without "
            "Signs (a ranked featured heist of an open slot goes last). Starts are "
            "rate-limited per session and per address (429 `rate_limited`, with "
            "`Retry-After`)."
        ),
        responses={
            201: HeistViewSerializer,
            **_errors(
                **{
                    "400": "`invalid_input`, `unknown_rival`, `unknown_difficulty`, "
                    "`unknown_encounter`, `deck_wrong_size`, `deck_too_many_copies`, "
                    "`deck_unknown_card`, `crew_not_owned` (Night Market crew the player "
                    "does not own; a guest owns none).",
                    "403": _HEIST_ERRORS["403"],
                    "429": "`rate_limited`: too many starts; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    def post(self, request):
        data = HeistStartInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        snapshot = heist_start(
            owner=owner_from_request(request),
            rival=data.validated_data["rival"],
            difficulty=data.validated_data["difficulty"],
            deck=data.validated_data.get("deck"),
            encounter=data.validated_data.get("encounter") or None,
            client_seed=data.validated_data["client_seed"],
        )
        return Response(
            present_heists.heist_view(snapshot),
            status=status.HTTP_201_CREATED,
            headers={VIEW_ETAG_HEADER: present_heists.heist_view_etag(snapshot)},
        )


class HeistDetailApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[_HEIST_ID, _IF_NONE_MATCH],
        description=(
            "The heist as its player may see it. Every answer carries an `ETag`; sent back in "
            "`If-None-Match`, it is answered 304 Not Modified, without a body, while the view "
            "is unchanged (the rival still planning), and 200 with the new view the moment "
            "anything the player may see changes (the rival sealed, a night resolved, the "
            "heist over)."
        ),
        responses={
            200: HeistViewSerializer,
            304: OpenApiResponse(description="Unchanged since the view of that `ETag`."),
            **_errors(**_HEIST_ERRORS),
        },
    )
    def get(self, request, heist_id):
        owner = owner_from_request(request)
        known = request.headers.get("If-None-Match")
        if known:
            # One light read first: a board polling while the rival plans is answered without
            # the heist's nights or its state (a night overdue for the rival is not: it is
            # sealed below, and the view has changed).
            mark = heist_mark(
                heist_id=heist_id, owner=owner, overdue_before=rival_fallback_cutoff()
            )
            etag = present_heists.view_etag(mark)
            if etag_matches(known, etag) and not mark.overdue:
                return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        snapshot = heist_load(heist_id=heist_id, owner=owner)
        # No worker sealed the rival's night in time: seal it here (DESIGN.md section 3.5).
        rival_seal_overdue(snapshot=snapshot)
        return Response(
            present_heists.heist_view(snapshot),
            headers={"ETag": present_heists.heist_view_etag(snapshot)},
        )


class HeistSealApi(APIView):
    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    permission_classes = [AdultConfirmed]
    # Each seal may run the night's reveal and queue the rival's next turn (RATE_LIMITS).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "seal"

    @extend_schema(
        parameters=[_HEIST_ID],
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
                    "429": "`rate_limited`: too many seals; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    def post(self, request, heist_id):
        data = SealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night, snapshot = plan_seal(
            heist_id=heist_id,
            owner=owner_from_request(request),
            night=data.validated_data["night"],
            crew=[dict(c) for c in data.validated_data["crew"]],
            boost=data.validated_data["boost"],
        )
        return Response(
            present_heists.seal_answer(night, snapshot),
            headers={VIEW_ETAG_HEADER: present_heists.heist_view_etag(snapshot)},
        )


class HeistReplayApi(APIView):
    """The replay record, once the heist is over: verify it offline with
    ``python -m game.engine.replay FILE.json``."""

    # CSRF on unsafe methods for guests too (their session holds the age check and heists).
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[_HEIST_ID],
        responses={
            200: ReplaySerializer,
            **_errors(
                **{"409": "`heist_not_finished`: the heist is still being played."},
                **_HEIST_ERRORS,
            ),
        },
    )
    def get(self, request, heist_id):
        snapshot = heist_load(heist_id=heist_id, owner=owner_from_request(request))
        return Response(present_replay.replay(snapshot.heist, snapshot.nights))


def _no_such_heist() -> ApplicationError:
    return ApplicationError("not_found", "There is no such heist.", status_code=404)


class _NotAHeistId(APIView):
    """A heist route whose id is not a UUID (the ``<str:...>`` routes after the ``<uuid:...>``
    ones): the same answer as an unknown heist, after the same age check, so a client cannot
    tell a malformed id from someone else's heist. Not in the schema."""

    permission_classes = [AdultConfirmed]


class NotAHeistDetailApi(_NotAHeistId):
    @extend_schema(exclude=True)
    def get(self, request, heist_id):
        raise _no_such_heist()


class NotAHeistSealApi(_NotAHeistId):
    @extend_schema(exclude=True)
    def post(self, request, heist_id):
        # The seal route reads its body before it looks for the heist.
        SealInputSerializer(data=request.data).is_valid(raise_exception=True)
        raise _no_such_heist()


class NotAHeistReplayApi(NotAHeistDetailApi):
    pass


class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI served by the app itself (drf-spectacular-sidecar), with its start-up script
    as a separate file and no inline style, so the site's strict CSP holds."""

    template_name = "api/swagger_ui.html"
    url_name = "api-schema"
