"""The featured heists' API (DESIGN.md section 5): the slots, a slot's start, its leaderboard
and the replays of a closed slot's heists. Thin views, as in game.api."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AdultConfirmed
from game.api import _HEIST_ERRORS, _HEIST_ID, PublicReadApi, _no_such_heist
from game.owners import owner_from_request
from game.presenters import featured as present_featured
from game.presenters import heists as present_heists
from game.presenters import replay as present_replay
from game.presenters.featured import FeaturedSerializer, LeaderboardSerializer
from game.presenters.heists import HeistViewSerializer
from game.presenters.replay import ReplaySerializer
from game.selectors import featured as featured_selectors
from game.selectors.heists import heist_nights
from game.services.featured import featured_heist_start
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors as _errors
from veyltak_site.throttling import ScopedRateThrottle


class LeaderboardInputSerializer(serializers.Serializer):
    # Digits only, 1 to BOARD_MAX: "10.0", " 10", "1e2" or "0x10" are refused, not read as
    # numbers (DRF's IntegerField would take the first two).
    limit = serializers.RegexField(
        r"^[1-9][0-9]{0,2}$",
        required=False,
        default=str(featured_selectors.BOARD_MAX),
        max_length=3,
        trim_whitespace=False,
        error_messages={"invalid": f"A whole number from 1 to {featured_selectors.BOARD_MAX}."},
        help_text=f"How many places, 1 to {featured_selectors.BOARD_MAX} (the default).",
    )

    def validate_limit(self, value: str) -> int:
        number = int(value)
        if number > featured_selectors.BOARD_MAX:
            raise serializers.ValidationError(
                f"A whole number from 1 to {featured_selectors.BOARD_MAX}."
            )
        return number


_SLOT = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="The slot's slug.")
_SLOT_404 = {"404": "`not_found`: no such featured slot."}


def _slot_or_404(slug: str):
    # A slot not yet open is no slot here: nothing of it beyond GET /api/v1/featured/'s
    # `next` (issue 27, S7).
    slot = featured_selectors.slot_shown(slug=slug, now=timezone.now())
    if slot is None:
        raise ApplicationError("not_found", "There is no such featured heist.", status_code=404)
    return slot


class FeaturedApi(PublicReadApi):
    """The featured heists: the slot in play, the next one (without its deck or commitment) and
    the latest closed ones with their winners and published seeds."""

    @extend_schema(responses=FeaturedSerializer)
    def get(self, request):
        now = timezone.now()
        current = featured_selectors.slot_current(now=now)
        past = featured_selectors.slots_past()
        owner = owner_from_request(request)
        you = {
            s.slug: featured_selectors.owner_slot_heist(slot=s, owner=owner)
            for s in [current, *past]
            if s is not None
        }
        return Response(
            present_featured.featured(current, featured_selectors.slot_next(now=now), past, you)
        )


class FeaturedStartApi(APIView):
    permission_classes = [AdultConfirmed]
    # A start queues a rival turn like any other: its own limits, the same size (RATE_LIMITS).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "featured_start"

    @extend_schema(
        parameters=[_SLOT],
        request=None,
        description=(
            "Start this slot's heist: its seed, deck, encounter, rival and difficulty (no "
            "client seed: everyone in the slot plays the same heist). A signed-in player's "
            "first heist of the slot is ranked (`ranked: true`), later ones and guests' are "
            "practice. Counts toward HEIST_ACTIVE_MAX like any start."
        ),
        responses={
            201: HeistViewSerializer,
            **_errors(
                **{
                    "403": _HEIST_ERRORS["403"],
                    "409": "`slot_closed`: the slot has not opened or is over.",
                    "429": "`rate_limited`: too many starts; `Retry-After` says when to retry.",
                    **_SLOT_404,
                }
            ),
        },
    )
    def post(self, request, slug):
        snapshot = featured_heist_start(owner=owner_from_request(request), slug=slug)
        return Response(present_heists.heist_view(snapshot), status=status.HTTP_201_CREATED)


class FeaturedLeaderboardApi(PublicReadApi):
    """A slot's leaderboard: more loot, then the larger margin, then the earlier finish; only
    ranked heists finished inside the slot. Players are shown by their public handle."""

    @extend_schema(
        parameters=[_SLOT, LeaderboardInputSerializer],
        responses={
            200: LeaderboardSerializer,
            **_errors(**{"400": "`invalid_input`: `limit` is not 1 to 100.", **_SLOT_404}),
        },
    )
    def get(self, request, slug):
        # A plain dict: DRF reads an empty value in a QueryDict as absent, and "?limit=" is
        # refused here like any other value that is not a number from 1 to 100.
        data = LeaderboardInputSerializer(data=request.query_params.dict())
        data.is_valid(raise_exception=True)
        slot = _slot_or_404(slug)
        owner = owner_from_request(request)
        entries = featured_selectors.leaderboard_top(slot=slot, limit=data.validated_data["limit"])
        you = featured_selectors.player_standing(slot=slot, user_id=owner.user_id)
        mine = featured_selectors.owner_slot_heist(slot=slot, owner=owner)
        return Response(present_featured.leaderboard(slot, entries, you, mine))


class FeaturedReplayApi(PublicReadApi):
    """The replay record of a heist on a closed slot's leaderboard, for anyone to verify
    offline (``python -m game.engine.replay FILE.json``): the slot's seed is public by then."""

    @extend_schema(
        parameters=[_SLOT, _HEIST_ID],
        responses={
            200: ReplaySerializer,
            **_errors(
                **{"404": "`not_found`: not a heist on this slot's board, or the slot is open."}
            ),
        },
    )
    def get(self, request, slug, heist_id):
        slot = _slot_or_404(slug)
        heist = featured_selectors.ranked_heist_public(slot=slot, heist_id=heist_id)
        if heist is None:
            raise _no_such_heist()
        return Response(present_replay.replay(heist, heist_nights(heist)))
