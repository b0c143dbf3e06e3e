"""Signal receivers of the shop (connected in ShopConfig.ready)."""

from __future__ import annotations

from allauth.account.signals import user_signed_up
from django.db import connections
from django.dispatch import receiver

from accounts import persons
from accounts import services as account_services
from accounts.signals import account_deleting
from shop import services
from shop.context_processors import WELCOME_SESSION_KEY
from shop.models import Reason, Transaction


@receiver(user_signed_up, dispatch_uid="shop.welcome_grant")
def welcome_grant(sender, request, user, **kwargs) -> None:
    # Keyed by the player (services.signs_welcome): a second signal, a retried sign-up or a
    # race between two requests pays the welcome once.
    posted = services.signs_welcome(user=user)
    # None: this person had the welcome already, on an account since deleted (issue 27, S4).
    if (
        posted is not None
        and posted.created
        and request is not None
        and hasattr(request, "session")
    ):
        # The welcome moment: the first page this browser opens signed in says it
        # (shop.context_processors.signs).
        amount = sum(e.amount for e in posted.transaction.entries.all() if e.amount > 0)
        request.session[WELCOME_SESSION_KEY] = amount


@receiver(account_deleting, dispatch_uid="shop.welcome_once_per_person")
def welcome_once_per_person(sender, user, **kwargs) -> None:
    # The welcome is once per person: kept against a keyed hash of the addresses of an account
    # that had it, so the same address signing up again gets none (issue 27, S4).
    if Transaction.objects.filter(reason=Reason.WELCOME, key=f"welcome:{user.pk}").exists():
        account_services.person_uses_record(user=user, whats=[persons.WELCOME])


def system_accounts(sender, using="default", **kwargs) -> None:
    # Not after the shop's own tables were migrated away (migrate shop zero).
    if "shop_account" in connections[using].introspection.table_names():
        services.system_accounts_ensure()
