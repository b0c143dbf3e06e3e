"""Signal receivers of the shop (connected in ShopConfig.ready)."""

from __future__ import annotations

from allauth.account.signals import user_signed_up
from django.db import connections
from django.dispatch import receiver

from shop import services
from shop.context_processors import WELCOME_SESSION_KEY


@receiver(user_signed_up, dispatch_uid="shop.welcome_grant")
def welcome_grant(sender, request, user, **kwargs) -> None:
    # Keyed by the player (services.signs_welcome): a second signal, a retried sign-up or a
    # race between two requests pays the welcome once.
    posted = services.signs_welcome(user=user)
    if posted.created and request is not None and hasattr(request, "session"):
        # The welcome moment: the first page this browser opens signed in says it
        # (shop.context_processors.signs).
        amount = sum(e.amount for e in posted.transaction.entries.all() if e.amount > 0)
        request.session[WELCOME_SESSION_KEY] = amount


def system_accounts(sender, using="default", **kwargs) -> None:
    # Not after the shop's own tables were migrated away (migrate shop zero).
    if "shop_account" in connections[using].introspection.table_names():
        services.system_accounts_ensure()
