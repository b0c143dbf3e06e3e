"""Signal receivers of accounts (connected in AccountsConfig.ready)."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.profile_for_user")
def profile_for_new_user(sender, instance, created, raw=False, **kwargs) -> None:
    # Every account has a profile, and so a public handle, however it was made (sign-up,
    # createsuperuser, the admin): nothing ever falls back to a name taken from the email.
    if created and not raw:
        Profile.objects.get_or_create(user=instance)
