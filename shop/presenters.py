"""What the shop's API sends and its pages show (DESIGN.md sections 5-7): each answer declared
once as an output serializer (drf-spectacular reads the same declarations for the schema), and
the builders that turn the selectors' models into those answers, the profile's wallet rows and
the account export's sections."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from game.engine import DEFAULT_VERSION, get_ruleset
from shop import selectors
from shop.models import COSMETIC_CHOICES, COSMETIC_KINDS, Entry, ItemKind, Reason

# --- The wallet -----------------------------------------------------------------------------


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


def entry_row(entry: Entry) -> dict:
    """One wallet entry as the profile page lists it."""
    tx = entry.transaction
    return {
        "id": entry.pk,
        "at": tx.created_at,
        "amount": entry.amount,
        "balance_after": entry.balance_after,
        "reason": tx.reason,
        "label": Reason(tx.reason).label,
        "memo": tx.memo,
        "ref": tx.reference,
    }


def wallet_export(*, user: AbstractBaseUser) -> dict:
    """The player's wallet as plain data, for the account export: balance and every entry."""
    account = selectors.wallet_get(user=user)
    return {
        "balance": account.balance if account else 0,
        "entries": [
            {
                "id": e.pk,
                "at": e.transaction.created_at.isoformat(),
                "amount": e.amount,
                "balance_after": e.balance_after,
                "reason": e.transaction.reason,
                "ref": e.transaction.reference,
                "memo": e.transaction.memo,
            }
            for e in selectors.wallet_entries(account=account)
        ],
    }


# --- The shelf and purchases ----------------------------------------------------------------


class ShopItemSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    kind = serializers.ChoiceField(choices=ItemKind.choices)
    name = serializers.CharField()
    description = serializers.CharField()
    price = serializers.IntegerField(help_text="Signs.")
    art = serializers.CharField(
        allow_null=True, help_text="Cosmetics: the art's name (CSS/SVG); null for crew."
    )
    active = serializers.BooleanField(
        help_text="On sale. An item off sale is listed only to those who own it."
    )
    owned = serializers.BooleanField(help_text="The player owns it (false for a guest).")
    equipped = serializers.BooleanField(help_text="The player wears it (cosmetics).")


class ShopSerializer(serializers.Serializer):
    balance = serializers.IntegerField(allow_null=True, help_text="Null for a guest.")
    items = ShopItemSerializer(many=True, help_text="By kind, then catalogue order.")


_KIND_ORDER = {kind.value: n for n, kind in enumerate(ItemKind)}


def shop_items(user: AbstractBaseUser | int | None) -> list[dict]:
    """The shop's shelf: every item on sale, and any the player owns that is off sale, by
    kind (crew, card backs, board themes, titles) then catalogue order; each with ``owned``
    and ``equipped`` for this player (False for a guest)."""
    owned = selectors.owned_slugs(user)
    worn = set(selectors.equipped(user).values()) - {None}
    rows = [
        {
            "slug": i.slug,
            "kind": i.kind,
            "name": i.name,
            "description": i.description,
            "price": i.price,
            "art": i.art or None,
            "active": i.active,
            "owned": i.slug in owned,
            "equipped": i.slug in worn,
        }
        for i in selectors.shelf(owned=owned)
    ]
    rows.sort(key=lambda r: _KIND_ORDER[r["kind"]])  # stable: catalogue order within a kind
    return rows


class PurchaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    item = serializers.SlugField()
    price = serializers.IntegerField()
    at = serializers.DateTimeField()


class PurchaseOutputSerializer(serializers.Serializer):
    purchase = PurchaseSerializer()
    balance = serializers.IntegerField(help_text="The wallet's balance after the purchase.")


def purchase_answer(data: dict) -> bytes:
    """A purchase's answer as sent and stored for its Idempotency-Key (``{purchase, balance}``),
    the same bytes whether the API or the shop's page made the purchase."""
    return JSONRenderer().render(PurchaseOutputSerializer(data).data)


# --- The collection -------------------------------------------------------------------------


class EquippedSerializer(serializers.Serializer):
    card_back = serializers.SlugField(allow_null=True)
    board_theme = serializers.SlugField(allow_null=True)
    title = serializers.SlugField(allow_null=True)


class CosmeticSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    kind = serializers.ChoiceField(choices=COSMETIC_CHOICES)


class CollectionSerializer(serializers.Serializer):
    crew = serializers.ListField(
        child=serializers.SlugField(),
        help_text="Every crew type a deck of this player may hold: the base set and the "
        "Night Market types they own.",
    )
    cosmetics = CosmeticSerializer(many=True, help_text="Cosmetics the player owns.")
    equipped = EquippedSerializer()


def collection(user: AbstractBaseUser | int | None, *, ruleset: str = DEFAULT_VERSION) -> dict:
    """The collection as DESIGN.md section 5 shows it: ``crew`` (every type of ``ruleset`` a
    deck of this player may hold, in the ruleset's order: the base set and the Night Market
    types they own), ``cosmetics`` (``[{slug, kind}]`` they own, in catalogue order) and
    ``equipped``."""
    owned = selectors.owned_items(user)
    crew_slugs = list(get_ruleset(ruleset).crew)
    blocked = set(selectors.unowned_crew(user, crew_slugs))
    return {
        "crew": [s for s in crew_slugs if s not in blocked],
        "cosmetics": [
            {"slug": slug, "kind": kind} for slug, kind in owned if kind in COSMETIC_KINDS
        ],
        "equipped": selectors.equipped(user),
    }


def collection_export(*, user: AbstractBaseUser) -> dict[str, Any]:
    """What the player bought and wears, for the account export: every purchase (item, price,
    when, refunded or not), the items owned now and the cosmetics equipped."""
    purchases = selectors.purchases(user=user)
    owned = set(selectors.owned_slugs(user.pk))
    return {
        "purchases": [
            {
                "id": p.pk,
                "at": p.created_at.isoformat(),
                "item": p.item.slug,
                "kind": p.item.kind,
                "price": p.price,
                "owned": p.item.slug in owned,
            }
            for p in purchases
        ],
        "owned": sorted(owned),
        "equipped": selectors.equipped(user.pk),
    }
