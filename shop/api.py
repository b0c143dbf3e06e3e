"""Thin API views of the shop (DESIGN.md section 5): parse, call a selector or a service,
render with an output serializer. Business refusals are ApplicationError."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from shop import presenters, selectors, services
from shop.permissions import SignedIn
from shop.presenters import (
    CollectionSerializer,
    PurchaseOutputSerializer,
    ShopSerializer,
    WalletSerializer,
)
from veyltak_site.exceptions import ApplicationError
from veyltak_site.schema import errors
from veyltak_site.throttling import ScopedRateThrottle


class WalletPagination(CursorPagination):
    """Newest first by entry id (ids grow as entries are written), so a page never shifts
    when new Signs arrive while the player reads older ones."""

    ordering = "-id"
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise _invalid_cursor() from None
        # DRF checks the offset, not the position: ours is an entry id, so anything but the
        # digits of a bigint would reach the query (a 500, or PostgreSQL's out of range).
        position = cursor.position if cursor else None
        if position is not None and not (
            position.isascii() and position.isdigit() and int(position) <= _MAX_ID
        ):
            raise _invalid_cursor()
        return cursor


_MAX_ID = 2**63 - 1  # BigAutoField


def _invalid_cursor() -> ApplicationError:
    return ApplicationError("invalid_cursor", "That page cursor is not one this API gave out.")


class WalletApi(APIView):
    """The signed-in player's Signs: the balance and the wallet's entries, newest first."""

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


# --- The shop, purchases and the collection (DESIGN.md section 5) -------------------------------


class PurchaseInputSerializer(serializers.Serializer):
    # Bounds only: which items exist and what they cost is the service's (unknown_item,
    # price_changed).
    item = serializers.CharField(max_length=64, help_text="The item's slug.")
    price = serializers.IntegerField(
        min_value=0, max_value=1_000_000, help_text="The price the player was shown."
    )


class EquipInputSerializer(serializers.Serializer):
    # Any string: a kind that is not a cosmetic is the service's `wrong_kind`.
    kind = serializers.CharField(max_length=32, help_text="card_back, board_theme or title.")
    item = serializers.CharField(
        max_length=64, allow_null=True, help_text="The item's slug; null takes it off."
    )


class ShopApi(APIView):
    """The shop's items with the player's owned and equipped state; a guest sees the shop too,
    with ``balance: null``."""

    @extend_schema(responses={200: ShopSerializer})
    def get(self, request):
        user = request.user
        data = {
            "balance": selectors.wallet_balance(user=user),
            "items": presenters.shop_items(user if user.is_authenticated else None),
        }
        return Response(ShopSerializer(data).data)


_IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="1 to 64 visible ASCII characters, new for each purchase the player means. "
    "Sent again with the same body, it answers with the first answer; a key belongs to one "
    "player and is kept at least 24 hours.",
)
_REPLAYED = OpenApiParameter(
    "Idempotent-Replayed",
    str,
    OpenApiParameter.HEADER,
    enum=["true"],
    response=[201],
    description="`true` when this is the stored answer to an earlier request with the key.",
)


class PurchaseApi(APIView):
    """Buy an item with Signs, once per Idempotency-Key."""

    permission_classes = [SignedIn]
    # Each purchase is a ledger write: limited per player and per address (RATE_LIMITS).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "purchase"

    @extend_schema(
        request=PurchaseInputSerializer,
        parameters=[_IDEMPOTENCY_KEY, _REPLAYED],
        description=(
            "One database transaction writes the purchase, the ledger's debit (reason "
            "`purchase`), the item into the collection and the stored answer for the key. "
            "The same key with the same body answers with that first answer again, status "
            "and body byte for byte, with `Idempotent-Replayed: true`. A refused purchase "
            "stores nothing: the key may be sent again."
        ),
        responses={
            201: OpenApiResponse(
                PurchaseOutputSerializer, description="Bought (or the stored answer again)."
            ),
            **errors(
                **{
                    "400": "`idempotency_key_required`: no Idempotency-Key header, or not 1 "
                    "to 64 visible ASCII characters; `invalid_input`.",
                    "403": "`sign_in_required`: guests cannot buy.",
                    "404": "`unknown_item`: the shop sells nothing by that slug.",
                    "409": "`already_owned`; `insufficient_signs`; `price_changed`: the body's "
                    "price is not today's; `request_in_progress`: a request with this key "
                    "is still being processed.",
                    "422": "`idempotency_key_reused`: this key was used with another body.",
                    "429": "`rate_limited`: too many purchases; `Retry-After` says when to "
                    "retry (a replay with the same key counts too).",
                }
            ),
        },
    )
    def post(self, request):
        key = services.idempotency_key_check(request.headers.get("Idempotency-Key"))
        data = PurchaseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.item_purchase(
            user=request.user,
            key=key,
            request_hash=services.purchase_request_hash(dict(data.validated_data)),
            item=data.validated_data["item"],
            price=data.validated_data["price"],
            render=presenters.purchase_answer,
        )
        response = HttpResponse(
            answer.body, status=answer.status_code, content_type="application/json"
        )
        if answer.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class CollectionApi(APIView):
    """What the player owns: the crew their decks may hold, their cosmetics and what they wear.
    A guest's collection is the base set."""

    @extend_schema(responses={200: CollectionSerializer})
    def get(self, request):
        return Response(CollectionSerializer(presenters.collection(request.user)).data)


class EquipApi(APIView):
    """Wear a cosmetic the player owns, or take one kind off."""

    permission_classes = [SignedIn]

    @extend_schema(
        request=EquipInputSerializer,
        responses={
            200: OpenApiResponse(CollectionSerializer, description="The collection after it."),
            **errors(
                **{
                    "400": "`wrong_kind`: the kind is not card_back, board_theme or title, "
                    "or the item is of another kind; `invalid_input`.",
                    "403": "`sign_in_required`: guests wear the defaults.",
                    "404": "`unknown_item`: the shop has nothing by that slug.",
                    "409": "`not_owned`: buy it first.",
                }
            ),
        },
    )
    def put(self, request):
        data = EquipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.item_equip(
            user=request.user, kind=data.validated_data["kind"], item=data.validated_data["item"]
        )
        return Response(CollectionSerializer(presenters.collection(request.user)).data)
