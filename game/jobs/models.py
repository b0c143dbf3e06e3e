"""A player's period of jobs: a day or a week in their own time zone, with the jobs drawn for
it (DESIGN.md section 11). Imported by game.models, so it is one of the game app's models.

What a job's progress is, is never stored: it is counted again from the stored nights of the
player's finished heists inside the period (game.services.jobs). What it paid is the ledger's
(reason ``job``, keyed by the period and the job), so a job pays once whatever retries.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class JobPeriod(models.Model):
    class Kind(models.TextChoices):
        DAILY = "daily"
        WEEKLY = "weekly"

    # CASCADE: the player's own data; what it paid stays in the ledger.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    starts_at = models.DateTimeField()
    # Moved (only later than the change, never earlier than 20 hours after the start) when the
    # player's time zone changes: game.jobs.periods.moved_end.
    ends_at = models.DateTimeField()
    time_zone = models.CharField(max_length=64, help_text="The zone its boundaries fall in.")
    pool = models.CharField(max_length=16, help_text="The job pool version drawn from.")
    economy = models.CharField(max_length=16, help_text="The economy version of its rewards.")
    # The jobs as drawn, whole: [{slug, kind, params, goal, tier, reward, text}], so a later
    # pool or economy never changes a period already shown.
    jobs = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["user", "kind", "-starts_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "starts_at"], name="jobperiod_one_per_start"
            ),
            # The 20-hour floor itself is checked on PostgreSQL (migration 0008); this holds
            # everywhere.
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="jobperiod_has_length"
            ),
        ]
        indexes = [models.Index(fields=["user", "kind", "-ends_at"], name="jobperiod_latest")]

    def __str__(self) -> str:
        return f"{self.kind} jobs of {self.user_id} from {self.starts_at:%Y-%m-%d %H:%M}"
