from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.db.models.functions import Lower

from accounts import time_zones
from accounts.names import HANDLE_MAX, generated_handle, handle_keys


class Profile(models.Model):
    """What a player chose to show, and the fact that they passed the gate.

    ``handle`` is the public name (unique whatever the case; generated at sign-up unless the
    player chose one, changeable on the profile; accounts/names.py says what it may hold).
    ``display_name`` is shown to the player only. Every account has a profile (created with the
    user, accounts.receivers).

    The gate keeps the fact, not the date: `adult_confirmed_at` and `gate_version` say when and
    under which rules the check was passed. The date of birth itself is never stored anywhere.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    handle = models.CharField(max_length=HANDLE_MAX, default=generated_handle)
    display_name = models.CharField(max_length=40, blank=True)
    adult_confirmed_at = models.DateTimeField(null=True, blank=True)
    gate_version = models.CharField(max_length=16, blank=True)
    # Where the player's day turns (their jobs', game.services.jobs): an IANA name, set first
    # from the browser, then on the profile; "" until then, which counts as UTC.
    time_zone = models.CharField(max_length=time_zones.MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # A confirmation without the version it passed under could not be re-checked when
            # the gate changes, and a version without a time is meaningless: both or neither.
            models.CheckConstraint(
                condition=(
                    Q(adult_confirmed_at__isnull=True, gate_version="")
                    | (Q(adult_confirmed_at__isnull=False) & ~Q(gate_version=""))
                ),
                name="profile_attestation_complete",
            ),
            models.UniqueConstraint(Lower("handle"), name="profile_handle_unique_ci"),
        ]

    def __str__(self) -> str:
        return self.handle

    def save(self, *args, **kwargs):
        # The handle and its look-alike keys change together, or not at all: a key another
        # profile holds makes the whole save fail (IntegrityError), the handle included.
        with transaction.atomic():
            super().save(*args, **kwargs)
            keys = handle_keys(self.handle)
            if set(self.handle_keys.values_list("key", flat=True)) != keys:
                self.handle_keys.all().delete()
                HandleKey.objects.bulk_create(HandleKey(profile=self, key=key) for key in keys)


class HandleKey(models.Model):
    """One look-alike key of a profile's handle (accounts.names.handle_keys: the TR39
    skeleton of the handle as shown and of its case-folded form). Every key is unique, so two
    handles that look alike, in some case, cannot both be held, however the requests race."""

    key = models.TextField(unique=True)
    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="handle_keys")

    def __str__(self) -> str:
        return self.key


class GateRecord(models.Model):
    """The age gate's verdict for one browser, kept on the server (accounts/gate.py).

    ``key`` is the browser's guest id (accounts.guest: derived from its session, kept through
    sign-in). Only the fact is kept, never the date. A refusal sets ``locked_until`` and clears
    the confirmation in the same row, and the database refuses a row with both, so a pass can
    never outlive a refusal or come back when its lock ends.
    """

    key = models.CharField(primary_key=True, max_length=64)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    gate_version = models.CharField(max_length=16, blank=True)
    locked_until = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(confirmed_at__isnull=True) | Q(locked_until__isnull=True),
                name="gaterecord_confirmed_or_locked",
            ),
            models.CheckConstraint(
                condition=Q(confirmed_at__isnull=True, gate_version="")
                | (Q(confirmed_at__isnull=False) & ~Q(gate_version="")),
                name="gaterecord_confirmation_complete",
            ),
        ]
        indexes = [models.Index(fields=["updated_at"], name="gaterecord_updated")]

    def __str__(self) -> str:
        return f"gate {self.key[:8]}"


class PersonUse(models.Model):
    """Something a person may have once (the welcome grant, a featured slot's ranked try),
    kept after their account is deleted so a new account with the same address does not get
    it again (issue 27, S4).

    ``person`` is a keyed hash of the normalised address (accounts.persons.person_key: HMAC
    SHA-256 with a key derived from SECRET_KEY), never the address: it answers "was this
    address here before?" for someone who holds the address and the server's key, and
    nothing else. ``what`` names the use (``welcome``, ``featured-ranked:<slot>``)."""

    person = models.CharField(max_length=64)
    what = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["person", "what"], name="personuse_once"),
        ]

    def __str__(self) -> str:
        return f"{self.person[:8]}: {self.what}"
