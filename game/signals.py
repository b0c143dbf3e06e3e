"""Signal receivers connecting accounts to heists (connected in GameConfig.ready)."""

from __future__ import annotations

from allauth.account.signals import user_logged_in
from django.dispatch import receiver

from accounts.guest import guest_id
from accounts.signals import account_deleting, time_zone_changed
from game.services.heists import heists_anonymise, heists_claim_guest
from game.services.jobs import jobs_time_zone_changed
from game.services.ranked import featured_account_leaving


@receiver(user_logged_in, dispatch_uid="game.claim_guest_heists_on_login")
def claim_guest_heists(sender, request, user, **kwargs) -> None:
    # accounts.guest keeps the id in the session data, which login() carries over, so the
    # heists this browser played as a guest move to the account it signs in with. Not at
    # sign-up: an account is not signed in until its email is confirmed (confirming in the
    # same browser signs in, and claims them then), and a guest's heists vanishing at sign-up
    # would tell the browser that the address was new (enumeration, docs/security.md).
    if request is not None and hasattr(request, "session"):
        heists_claim_guest(user=user, guest_id=guest_id(request))


@receiver(account_deleting, dispatch_uid="game.anonymise_heists")
def anonymise_heists(sender, user, **kwargs) -> None:
    # Before the heists lose their owner: the ranked tries the person had stay had (a keyed
    # hash of the addresses), and the entries of open slots leave their boards (issue 27, S4).
    featured_account_leaving(user=user)
    heists_anonymise(user=user)


@receiver(time_zone_changed, dispatch_uid="game.jobs_time_zone")
def move_jobs_day(sender, user, old, new, first=False, **kwargs) -> None:
    # In the change's transaction: the day in progress ends at a midnight of the new zone
    # (never less than 20 hours after it began), or the change does not happen.
    jobs_time_zone_changed(user_id=user.pk, time_zone=new, first=first)
