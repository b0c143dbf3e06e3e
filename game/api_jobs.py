"""Thin API view of a player's jobs (DESIGN.md sections 5 and 11)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import SignedIn
from game.presenters import jobs as present_jobs
from game.presenters.jobs import JobsSerializer
from game.services.jobs import jobs_board
from veyltak_site.schema import errors as _errors


class JobsApi(APIView):
    permission_classes = [SignedIn]

    @extend_schema(
        description=(
            "Your jobs: three for the day and one for the week, drawn for you and the period, "
            "each with its progress counted from your finished heists (practice retries and "
            "challenges never count) and paid once, into your wallet, by the heist that "
            "completes it. The day turns at midnight in your time zone (`time_zone` in "
            "/api/v1/me/), the week at Monday's midnight."
        ),
        responses={
            200: JobsSerializer,
            **_errors(**{"403": "`sign_in_required`: jobs are for signed-in players."}),
        },
    )
    def get(self, request):
        return Response(present_jobs.jobs_answer(jobs_board(user_id=request.user.pk)))
