"""Writes for accounts: keyword-only, each one atomic."""

from __future__ import annotations

import datetime as dt
from importlib import import_module

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from accounts import gate, names, selectors, time_zones
from accounts.models import GateRecord, PersonUse, Profile
from accounts.signals import account_deleting, time_zone_changed
from veyltak_site.exceptions import ApplicationError


@transaction.atomic
def profile_attest(*, user: AbstractBaseUser, gate_version: str = gate.GATE_VERSION) -> Profile:
    """Record that `user` passed the gate now, under `gate_version`; create the profile if new."""
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    if profile.adult_confirmed_at is None:
        profile.adult_confirmed_at = timezone.now()
        profile.gate_version = gate_version
        profile.save(update_fields=["adult_confirmed_at", "gate_version"])
    return profile


def _emails(user: AbstractBaseUser) -> list[str]:
    addresses = list(EmailAddress.objects.filter(user=user).values_list("email", flat=True))
    return [user.email, *addresses] if user.email else addresses


def _name_error(field: str, exc: ValidationError) -> ApplicationError:
    message = exc.messages[0]
    return ApplicationError(exc.code or "invalid_name", message, fields={field: [message]})


@transaction.atomic
def profile_update(
    *, user: AbstractBaseUser, display_name: str | None = None, handle: str | None = None
) -> Profile:
    """Change the player's display name and/or public handle (None: leave it as it is).

    Both are checked by accounts/names.py (codes ``invisible_character``, ``handle_length``,
    ``handle_characters``, ``handle_is_email``, ``handle_reserved``...); a handle another
    player holds, whatever its case, or one that looks like it (its TR39 skeleton), is
    ``handle_taken`` (the database's unique indexes decide a race).
    """
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    fields = []
    if display_name is not None:
        try:
            profile.display_name = names.clean_display_name(display_name)
        except ValidationError as exc:
            raise _name_error("display_name", exc) from None
        fields.append("display_name")
    if handle is not None:
        try:
            profile.handle = names.clean_handle(handle, emails=_emails(user))
        except ValidationError as exc:
            raise _name_error("handle", exc) from None
        fields.append("handle")
        if selectors.handle_taken(profile.handle, exclude_user=user):
            raise _handle_taken()
    try:
        with transaction.atomic():
            profile.save(update_fields=fields)
    except IntegrityError:
        raise _handle_taken() from None
    return profile


@transaction.atomic
def time_zone_set(
    *, user: AbstractBaseUser, time_zone: str, if_unset: bool = False
) -> tuple[str, bool]:
    """Set the zone the player's day turns in (jobs, DESIGN.md section 11). Returns the zone
    now in force and whether it changed. ``if_unset``: only when the player has none yet (the
    browser's guess at the first visit never overrides the player's own choice).

    400 ``unknown_time_zone`` for a name this server does not know. Under the profile's row
    lock; the change is signalled (``time_zone_changed``) in the same transaction, so the
    game moves the current day's end with it or not at all.
    """
    try:
        name = time_zones.clean(time_zone)
    except ValidationError as exc:
        message = exc.messages[0]
        raise ApplicationError(exc.code, message, fields={"time_zone": [message]}) from None
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    old = profile.time_zone or time_zones.DEFAULT
    if if_unset and profile.time_zone:
        return old, False
    if profile.time_zone == name:
        return name, False
    # update(), not save(): the handle's look-alike keys are not this change's business.
    Profile.objects.filter(pk=profile.pk).update(time_zone=name)
    if name == old:  # "" (UTC) to an explicit UTC: kept, but the day turns where it did
        return name, False
    time_zone_changed.send(
        sender=Profile, user=user, old=old, new=name, first=not profile.time_zone
    )
    return name, True


def _handle_taken() -> ApplicationError:
    message = "Another player has that handle: choose another."
    return ApplicationError("handle_taken", message, status_code=409, fields={"handle": [message]})


@sensitive_variables("birth_date")
def age_check(*, request, birth_date: dt.date) -> None:
    """The guest door: confirm the session (and a signed-in player's profile) or refuse.

    Locked browsers are refused whatever date they send, before the date is even looked at.
    A signed-in player who already holds a confirmation is not asked again.
    """
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    if signed_in and selectors.user_adult_confirmed(user=user):
        return
    # One serialised step per browser (accounts/gate.py): of checks sent at once, a refusal
    # always wins, whichever order they run in.
    verdict = gate.check(request, passed=gate.passes(birth_date))
    if verdict == "locked":
        raise ApplicationError("age_check_locked", gate.REFUSAL_MESSAGE, status_code=403)
    if verdict == "refused":
        raise ApplicationError("age_check_failed", gate.REFUSAL_MESSAGE, status_code=403)
    if signed_in:
        profile_attest(user=user)


def sessions_clear_expired() -> int:
    """Delete every expired session from the session store, and the age gate's records of
    browsers whose session has surely expired (no lock in force). Returns how many sessions
    were deleted.

    Each visit without a cookie can start a session (a guest's check, a heist), and Django
    deletes expired ones only when told to (``clearsessions``): without this the table grows
    with every visitor. Stores that expire entries themselves (a cache) have nothing to do.
    """
    now = timezone.now()
    GateRecord.objects.filter(
        Q(locked_until__isnull=True) | Q(locked_until__lt=now),
        updated_at__lt=now - dt.timedelta(seconds=settings.SESSION_COOKIE_AGE),
    ).delete()
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store, "get_model_class"):  # not kept in the database
        store.clear_expired()
        return 0
    # What the database stores' clear_expired() does, counted (cached_db's cache copies
    # expire by themselves).
    expired = store.get_model_class().objects.filter(expire_date__lt=timezone.now())
    deleted, _ = expired.delete()
    return deleted


@transaction.atomic
def email_claims_clear(*, email_address: EmailAddress) -> int:
    """Once an account has confirmed an address, other accounts' unconfirmed claims on it
    (added on the email page, never confirmed: nobody proved them) go, whatever their case,
    so the address sits on one account. Returns how many went."""
    deleted, _ = (
        EmailAddress.objects.filter(email__iexact=email_address.email, verified=False)
        .exclude(user_id=email_address.user_id)
        .exclude(primary=True)
        .delete()
    )
    return deleted


def person_uses_record(*, user: AbstractBaseUser, whats: list[str]) -> int:
    """Keep that the person behind ``user`` had each of ``whats`` (accounts.persons), against
    the keyed hash of each of their addresses, for when their account is gone. Called by the
    apps that grant such things, from ``account_deleting``. Returns the rows written."""
    keys = selectors.person_keys(user_id=user.pk)
    rows = PersonUse.objects.bulk_create(
        [PersonUse(person=key, what=what) for key in sorted(keys) for what in whats],
        ignore_conflicts=True,
    )
    return len(rows)


@transaction.atomic
def account_delete(*, user: AbstractBaseUser) -> None:
    """Remove the player's personal data: emails, profile and attestation, then the user.

    Receivers of `account_deleting` (the heist app, the shop) anonymise what is kept before
    the row goes, and keep what the person may have only once (``person_uses_record``: a
    keyed hash of each address, never the address).
    """
    account_deleting.send(sender=type(user), user=user)
    EmailAddress.objects.filter(user=user).delete()
    Profile.objects.filter(user=user).delete()
    user.delete()
