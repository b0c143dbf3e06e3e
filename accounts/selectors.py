"""Reads for accounts: other apps and the views call these, never the models directly."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Q

from accounts import extensions, gate, names, persons, time_zones
from accounts.models import PersonUse, Profile


def profile_get(*, user: AbstractBaseUser) -> Profile | None:
    return Profile.objects.filter(user=user).first()


def time_zone(*, user: AbstractBaseUser | int) -> str:
    """The zone the player's day turns in: their own, or UTC while they have none."""
    user_id = user if isinstance(user, int) else user.pk
    name = Profile.objects.filter(user_id=user_id).values_list("time_zone", flat=True).first()
    return name or time_zones.DEFAULT


def time_zone_chosen(*, user: AbstractBaseUser) -> bool:
    """Whether the player (or their browser) has set a zone yet."""
    return Profile.objects.filter(user=user).exclude(time_zone="").exists()


def user_adult_confirmed(*, user: AbstractBaseUser) -> bool:
    # Asked on every request of a signed-in player to a heist route: one plain query, its text
    # made once from the model (through the ORM, building the query cost more than running it).
    sql = _CONFIRMED_SQL.get(connection.alias)
    if sql is None:
        quote, meta = connection.ops.quote_name, Profile._meta
        sql = _CONFIRMED_SQL[connection.alias] = (
            f"SELECT 1 FROM {quote(meta.db_table)} "  # noqa: S608
            f"WHERE {quote(meta.get_field('user').column)} = %s "
            f"AND {quote(meta.get_field('adult_confirmed_at').column)} IS NOT NULL"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk])
        return cursor.fetchone() is not None


_CONFIRMED_SQL: dict[str, str] = {}


def adult_confirmed(request) -> bool:
    """True for a signed-in player with a stored confirmation, or a guest session that passed.

    A signed-in player keeps their confirmation whatever the browser does later; a guest pass is
    void while the browser is locked (a refusal withdraws it).
    """
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user_adult_confirmed(user=user):
        return True
    return gate.session_confirmed(request)


def public_handle(*, user: AbstractBaseUser) -> str:
    """The player's public name: what leaderboards and the API show, never from the email."""
    profile = profile_get(user=user)
    return profile.handle if profile else ""


def public_handles(*, user_ids: list[int]) -> dict[int, str]:
    """{user id: handle} for many players at once (a leaderboard)."""
    return dict(Profile.objects.filter(user_id__in=user_ids).values_list("user_id", "handle"))


def handle_taken(handle: str, *, exclude_user: AbstractBaseUser | None = None) -> bool:
    """Another player's handle is this one in another case, or looks like it in some case (a
    look-alike key in common: accounts.names.handle_keys). The database's unique indexes
    decide a race."""
    keys = names.handle_keys(handle)
    taken = Profile.objects.filter(Q(handle__iexact=handle) | Q(handle_keys__key__in=keys))
    if exclude_user is not None:
        taken = taken.exclude(user=exclude_user)
    return taken.exists()


def email_held(email: str, *, exclude_user: AbstractBaseUser | None = None) -> bool:
    """An account holds ``email`` (whatever its case): as the address it signed up with (its
    ``email``, confirmed or not yet), or as an address it confirmed. An address merely added
    to an account and never confirmed is a claim nobody proved: it holds nothing (issue 27,
    S3)."""
    accounts = get_user_model().objects.filter(email__iexact=email)
    verified = EmailAddress.objects.filter(email__iexact=email, verified=True)
    if exclude_user is not None:
        accounts = accounts.exclude(pk=exclude_user.pk)
        verified = verified.exclude(user=exclude_user)
    return accounts.exists() or verified.exists()


def person_keys(*, user_id: int) -> set[str]:
    """The keyed hashes of a player's addresses: the one they signed up with and every one
    they confirmed (accounts.persons)."""
    addresses = set(
        EmailAddress.objects.filter(user_id=user_id, verified=True).values_list("email", flat=True)
    )
    account = get_user_model().objects.filter(pk=user_id).values_list("email", flat=True).first()
    if account:
        addresses.add(account)
    return {persons.person_key(address) for address in addresses if address}


def person_used(*, user_id: int, what: str) -> bool:
    """A deleted account of the same person (an address in common) had ``what`` already: the
    welcome grant, a slot's ranked try (issue 27, S4)."""
    keys = person_keys(user_id=user_id)
    return bool(keys) and PersonUse.objects.filter(person__in=keys, what=what).exists()


def user_display(user: AbstractBaseUser) -> str:
    """ACCOUNT_USER_DISPLAY: what allauth's messages call the player."""
    return public_handle(user=user) or "you"


def display_name(*, user: AbstractBaseUser) -> str:
    """The name the player sees on their own profile: their display name, else their handle."""
    profile = profile_get(user=user)
    return (profile.display_name or profile.handle) if profile else ""


def account_export(*, user: AbstractBaseUser) -> dict:
    """Exactly one player's own data, as the export download carries it."""
    profile = profile_get(user=user)
    data = {
        "account": {
            "username": user.get_username(),
            "date_joined": user.date_joined.isoformat(),
            "last_login": user.last_login.isoformat() if user.last_login else None,
        },
        "emails": [
            {"email": address.email, "verified": address.verified, "primary": address.primary}
            for address in EmailAddress.objects.filter(user=user).order_by("-primary", "email")
        ],
        "profile": {
            "handle": profile.handle if profile else "",
            "display_name": profile.display_name if profile else "",
            # "" until the browser or the player set one (the day then turns in UTC).
            "time_zone": profile.time_zone if profile else "",
            "created_at": profile.created_at.isoformat() if profile else None,
        },
        "age_check": {
            "passed": bool(profile and profile.adult_confirmed_at),
            "passed_at": (
                profile.adult_confirmed_at.isoformat()
                if profile and profile.adult_confirmed_at
                else None
            ),
            "gate_version": profile.gate_version if profile else "",
        },
    }
    # What other apps add (accounts.extensions: game's heists and decks, the shop's wallet),
    # never over a key already here.
    sections = extensions.export_sections(user)
    if taken := set(sections) & set(data):
        raise ValueError(f"export sections {sorted(taken)} are already in the export")
    return {**data, **sections}
