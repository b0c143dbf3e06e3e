"""Thin API views of the shop (DESIGN.md section 5): parse, call a selector or a service,
render with an output serializer. Business refusals are ApplicationError."""

from __future__ import annotations

from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import CsrfSessionAuthentication
from shop import selectors
from shop.models import Reason
from shop.permissions import SignedIn
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors


class WalletPagination(CursorPagination):
    """Newest first by entry id (ids grow as entries are written), so a page never shifts
    when new Signs arrive while the player reads older ones."""

    ordering = "-id"
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise ApplicationError(
                "invalid_cursor", "That page cursor is not one this API gave out."
            ) from None


class WalletEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.DateTimeField(source="transaction.created_at")
    amount = serializers.IntegerField(help_text="Signs added (+) or taken (-).")
    balance_after = serializers.IntegerField(help_text="The wallet's balance after this entry.")
    reason = serializers.ChoiceField(source="transaction.reason", choices=Reason.choices)
    ref = serializers.CharField(
        source="transaction.reference", help_text="What it is about, e.g. heist:<id>."
    )


class WalletSerializer(serializers.Serializer):
    balance = serializers.IntegerField()
    entries = WalletEntrySerializer(many=True, help_text="Newest first.")
    next = serializers.URLField(
        allow_null=True, help_text="The next (older) page, or null on the last page."
    )


@method_decorator(never_cache, name="dispatch")
class WalletApi(APIView):
    """The signed-in player's Signs: the balance and the wallet's entries, newest first."""

    authentication_classes = [CsrfSessionAuthentication]
    permission_classes = [SignedIn]

    @extend_schema(
        parameters=[
            OpenApiParameter("cursor", str, description="From `next` of the previous page."),
            OpenApiParameter("limit", int, description="Entries per page, 1 to 100 (20)."),
        ],
        responses={
            200: WalletSerializer,
            **errors(
                **{
                    "400": "`invalid_cursor`: a cursor this API did not give out.",
                    "403": "`sign_in_required`: guests have no wallet.",
                }
            ),
        },
    )
    def get(self, request):
        account = selectors.wallet_get(user=request.user)
        paginator = WalletPagination()
        page = paginator.paginate_queryset(selectors.wallet_entries(account=account), request)
        data = {
            "balance": account.balance if account else 0,
            "entries": page,
            "next": paginator.get_next_link(),
        }
        return Response(WalletSerializer(data).data)
