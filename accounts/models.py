from django.conf import settings
from django.db import models
from django.db.models import Q


class Profile(models.Model):
    """What a player chose to show, and the fact that they passed the gate.

    The gate keeps the fact, not the date: `adult_confirmed_at` and `gate_version` say when and
    under which rules the check was passed. The date of birth itself is never stored anywhere.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(max_length=40, blank=True)
    adult_confirmed_at = models.DateTimeField(null=True, blank=True)
    gate_version = models.CharField(max_length=16, blank=True)
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
            )
        ]

    def __str__(self) -> str:
        return self.display_name or f"profile {self.user_id}"
