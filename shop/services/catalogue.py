"""The shop's catalogue file copied into the ShopItem table (``manage.py load_catalogue``)."""

from __future__ import annotations

from django.db import transaction

from shop.catalogue import get_catalogue
from shop.models import ShopItem


@transaction.atomic
def shop_catalogue_load() -> int:
    """Copy the catalogue file into the ShopItem table; safe to run again. An item that left
    the file is kept (purchases and collections name it) and taken off sale. Returns the
    number of items in the file."""
    catalogue = get_catalogue()
    for position, item in enumerate(catalogue.items):
        ShopItem.objects.update_or_create(
            slug=item.slug,
            defaults={
                "kind": item.kind,
                "name": item.name,
                "description": item.description,
                "price": item.price,
                "active": item.active,
                "art": item.art,
                "position": position,
            },
        )
    ShopItem.objects.exclude(slug__in=[i.slug for i in catalogue.items]).update(active=False)
    return len(catalogue.items)
