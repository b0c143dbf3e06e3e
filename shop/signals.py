"""Signal receivers of the shop (connected in ShopConfig.ready)."""

from __future__ import annotations

from allauth.account.signals import user_signed_up
from django.db import connections
from django.dispatch import receiver

from shop import services


@receiver(user_signed_up, dispatch_uid="shop.welcome_grant")
def welcome_grant(sender, request, user, **kwargs) -> None:
    # Keyed by the player (services.signs_welcome): a second signal, a retried sign-up or a
    # race between two requests pays the welcome once.
    services.signs_welcome(user=user)


def system_accounts(sender, using="default", **kwargs) -> None:
    # Not after the shop's own tables were migrated away (migrate shop zero).
    if "shop_account" in connections[using].introspection.table_names():
        services.system_accounts_ensure()
