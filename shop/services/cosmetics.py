"""What players wear: equipping the cosmetics they own (DESIGN.md section 7)."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.validators import slug_re
from django.db import transaction

from shop.models import COSMETIC_KINDS, Equipped, ItemKind, Ownership, ShopItem
from shop.services.ledger import _user_id
from veyltak_site.exceptions import ApplicationError


def _is_slug(item: object) -> bool:
    # A page's form posts the item as it stands: anything but a slug (a NUL, which PostgreSQL
    # text cannot hold, or a name longer than any) is no item, never a database error.
    return (
        isinstance(item, str)
        and len(item) <= ShopItem._meta.get_field("slug").max_length
        and slug_re.fullmatch(item) is not None
    )


@transaction.atomic
def item_equip(*, user: AbstractBaseUser, kind: object, item: object) -> None:
    """Wear ``item`` (a slug) as the player's ``kind`` of cosmetic, or take that kind off
    (``item`` None).

    Refused: 400 ``wrong_kind`` (``kind`` is not a cosmetic kind, or the item is of another
    kind); 404 ``unknown_item``; 409 ``not_owned``. The ownership row is locked while the
    choice is written, so a refund at the same moment cannot leave an unowned item worn.
    """
    uid = _user_id(user)
    if kind not in COSMETIC_KINDS:
        kinds = ", ".join(k.value for k in COSMETIC_KINDS)
        raise ApplicationError(
            "wrong_kind",
            f"Only cosmetics are worn: the kind is one of {kinds}.",
            fields={"kind": [f"One of {kinds}."]},
        )
    if item is None:
        Equipped.objects.filter(user_id=uid, kind=kind).delete()
        return
    shop_item = ShopItem.objects.filter(slug=item).first() if _is_slug(item) else None
    if shop_item is None:
        raise ApplicationError(
            "unknown_item", "The shop has nothing by that name.", status_code=404
        )
    if shop_item.kind != kind:
        raise ApplicationError(
            "wrong_kind",
            f"{shop_item.name} is a {ItemKind(shop_item.kind).label.lower()}, "
            f"not a {ItemKind(kind).label.lower()}.",
        )
    owned = Ownership.objects.select_for_update().filter(user_id=uid, item=shop_item)
    if not owned.exists():
        raise ApplicationError(
            "not_owned", f"Buy {shop_item.name} before you wear it.", status_code=409
        )
    # One statement (INSERT ... ON CONFLICT DO UPDATE): two changes at once cannot both insert.
    Equipped.objects.bulk_create(
        [Equipped(user_id=uid, kind=kind, item=shop_item)],
        update_conflicts=True,
        unique_fields=["user", "kind"],
        update_fields=["item", "updated_at"],
    )
