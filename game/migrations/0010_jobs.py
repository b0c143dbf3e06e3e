"""Jobs (DESIGN.md section 11): a player's periods with the jobs drawn for them. On PostgreSQL
the database itself refuses a period shorter than its floor (20 hours for a day, 6 days 20
hours for a week: game.jobs.periods.SHORTEST), whatever a time zone change asks."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class PostgresSQL(migrations.RunSQL):
    """RunSQL on PostgreSQL only: on another database it does nothing, both ways."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


SHORTEST = """
ALTER TABLE game_jobperiod ADD CONSTRAINT jobperiod_not_short CHECK (
    ends_at >= starts_at + CASE kind WHEN 'weekly' THEN interval '6 days 20 hours'
                                     ELSE interval '20 hours' END
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0009_rating"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="JobPeriod",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("daily", "Daily"), ("weekly", "Weekly")], max_length=8
                    ),
                ),
                ("starts_at", models.DateTimeField()),
                ("ends_at", models.DateTimeField()),
                (
                    "time_zone",
                    models.CharField(help_text="The zone its boundaries fall in.", max_length=64),
                ),
                (
                    "pool",
                    models.CharField(help_text="The job pool version drawn from.", max_length=16),
                ),
                (
                    "economy",
                    models.CharField(
                        help_text="The economy version of its rewards.", max_length=16
                    ),
                ),
                ("jobs", models.JSONField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["user", "kind", "-starts_at"],
                "indexes": [
                    models.Index(fields=["user", "kind", "-ends_at"], name="jobperiod_latest")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "kind", "starts_at"), name="jobperiod_one_per_start"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("ends_at__gt", models.F("starts_at"))),
                        name="jobperiod_has_length",
                    ),
                ],
            },
        ),
        PostgresSQL(SHORTEST, "ALTER TABLE game_jobperiod DROP CONSTRAINT jobperiod_not_short"),
    ]
