"""Thin API views of challenges (DESIGN.md sections 5 and 11): make one of a finished heist,
read one, answer one."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AdultConfirmed
from game.owners import owner_from_request
from game.presenters import challenges as present_challenges
from game.presenters import heists as present_heists
from game.presenters.challenges import ChallengeMadeSerializer, ChallengeSerializer
from game.presenters.heists import HeistViewSerializer
from game.selectors.challenges import challenge_get
from game.services.challenges import challenge_accept, challenge_create
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors as _errors
from veyltak_site.throttling import ScopedRateThrottle

_HEIST_ID = OpenApiParameter("heist_id", str, OpenApiParameter.PATH)
_SLUG = OpenApiParameter("slug", str, OpenApiParameter.PATH)
_AGE = {"403": "`age_check_required`: a guest who has not passed the age check."}


def challenge_url(request, slug: str) -> str:
    return request.build_absolute_uri(reverse("challenge", kwargs={"slug": slug}))


class HeistChallengeApi(APIView):
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[_HEIST_ID],
        request=None,
        description=(
            "Challenge a friend with your finished heist: a link that starts the same heist "
            "(the same seeds, so the same shuffles and loot; the same rival, difficulty, "
            "encounter and deck) for whoever opens it. One challenge per heist: asking again "
            "answers the same link (200)."
        ),
        responses={
            201: OpenApiResponse(ChallengeMadeSerializer, description="Made now."),
            200: OpenApiResponse(ChallengeMadeSerializer, description="Made before."),
            **_errors(
                **{
                    **_AGE,
                    "404": "`not_found`: no such heist, or another player's.",
                    "409": "`heist_active`, `heist_abandoned`, `practice_heist` (a practice "
                    "retry), `challenge_heist` (it answers a challenge), `slot_open` (a "
                    "featured heist whose slot is still open).",
                }
            ),
        },
    )
    def post(self, request, heist_id):
        challenge, created = challenge_create(heist_id=heist_id, owner=owner_from_request(request))
        return Response(
            present_challenges.challenge_made(challenge, challenge_url(request, challenge.slug)),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class NotAHeistChallengeApi(APIView):
    """The challenge route with an id that is not a UUID: an unknown heist (not in the schema)."""

    permission_classes = [AdultConfirmed]

    @extend_schema(exclude=True)
    def post(self, request, heist_id):
        raise ApplicationError("not_found", "There is no such heist.", status_code=404)


class ChallengeApi(APIView):
    permission_classes = [AdultConfirmed]

    @extend_schema(
        parameters=[_SLUG],
        description=(
            "A challenge as you may see it: what the link promises (rival, difficulty, "
            "encounter, deck, who sent it), your own heist of it, and once yours has finished "
            "the challenger's score and nights. Its challenger sees every friend's heist, each "
            "one's score and nights once that friend has finished."
        ),
        responses={
            200: ChallengeSerializer,
            **_errors(**{**_AGE, "404": "`not_found`: no such challenge."}),
        },
    )
    def get(self, request, slug):
        challenge = challenge_get(slug=slug)
        parts = present_challenges.challenge_parts(challenge, owner_from_request(request))
        return Response(present_challenges.challenge_answer(challenge, **parts))


class ChallengeStartApi(APIView):
    permission_classes = [AdultConfirmed]
    # An answer starts a heist (and queues a rival turn): the same limits as a start.
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "heist_start"

    @extend_schema(
        parameters=[_SLUG],
        request=None,
        description=(
            "Play the challenge: your heist of it, dealt from the challenger's seeds (the rival "
            "answers your plans). Once per player and once per guest; never ranked, never "
            "earns. Its view says `challenge`. It counts as a start (HEIST_ACTIVE_MAX, rate "
            "limits)."
        ),
        responses={
            201: HeistViewSerializer,
            **_errors(
                **{
                    **_AGE,
                    "404": "`not_found`: no such challenge.",
                    "409": "`own_challenge` (you sent it), `challenge_taken` (you played it "
                    "already), `challenge_outdated` (its rival plays another deck now).",
                    "429": "`rate_limited`: too many starts; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    def post(self, request, slug):
        snapshot = challenge_accept(slug=slug, owner=owner_from_request(request))
        return Response(present_heists.heist_view(snapshot), status=status.HTTP_201_CREATED)
