"""Signal receivers of accounts (connected in AccountsConfig.ready)."""

from __future__ import annotations

from allauth.account.signals import email_confirmed
from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts import services
from accounts.models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.profile_for_user")
def profile_for_new_user(sender, instance, created, raw=False, **kwargs) -> None:
    # Every account has a profile, and so a public handle, however it was made (sign-up,
    # createsuperuser, the admin): nothing ever falls back to a name taken from the email.
    if created and not raw:
        Profile.objects.get_or_create(user=instance)


@receiver(email_confirmed, dispatch_uid="accounts.email_claims_clear")
def clear_other_claims(sender, request, email_address, **kwargs) -> None:
    # An address belongs to the account that confirmed it (issue 27, S3).
    services.email_claims_clear(email_address=email_address)
