"""The rating's tables (DESIGN.md section 11), apart from game/models.py (which imports them, so
Django knows them as the game app's) to keep each module under 500 lines.

A player's rating is one row, changed only with a :class:`RatingChange` for one heist, in the
transaction that closes the heist (game.services.rating), under the rating row's lock. The
change keeps the rating before and after, and what it was measured against, so the result page
shows before -> after and the history can be checked: each change's ``before`` is the one
before it's ``after`` (``number`` counts them, one per player and number).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class PlayerRating(models.Model):
    """A signed-in player's Glicko-2 rating now. No row: never rated (the anchors' start).
    Deleted with the account: a rating is the player's own data."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    value = models.FloatField()
    deviation = models.FloatField()
    volatility = models.FloatField()
    heists = models.PositiveIntegerField(default=0, help_text="Rated heists so far.")
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(deviation__gt=0, volatility__gt=0), name="playerrating_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.value:.0f} ({self.deviation:.0f})"


class RatingChange(models.Model):
    """What one heist did to its player's rating: at most one per heist (the primary key), so a
    finish called twice, a repeated task or two closes racing rate it once."""

    class Result(models.TextChoices):
        WIN = "win"
        DRAW = "draw"
        LOSS = "loss"
        ABANDONED = "abandoned"  # counted as a loss

    heist = models.OneToOneField(
        "game.Heist", primary_key=True, on_delete=models.CASCADE, related_name="rating_change"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    number = models.PositiveIntegerField(help_text="The player's nth rated heist, from 1.")
    result = models.CharField(max_length=16, choices=Result.choices)
    score = models.FloatField(help_text="1 a win, 0.5 a draw, 0 a loss or abandoned heist.")
    # What it was rated against: the level's anchor, from the anchors' version.
    level = models.SlugField(max_length=32)
    anchors = models.CharField(max_length=32, help_text="game/data/rating.json's version.")
    opponent = models.PositiveIntegerField()
    opponent_deviation = models.PositiveIntegerField()
    before_value = models.FloatField()
    before_deviation = models.FloatField()
    before_volatility = models.FloatField()
    after_value = models.FloatField()
    after_deviation = models.FloatField()
    after_volatility = models.FloatField()
    rated_at = models.DateTimeField()

    class Meta:
        ordering = ["user", "number"]
        constraints = [
            models.UniqueConstraint(fields=["user", "number"], name="ratingchange_one_per_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="ratingchange_number_positive"),
            models.CheckConstraint(
                condition=Q(result="win", score=1)
                | Q(result="draw", score=0.5)
                | Q(result__in=["loss", "abandoned"], score=0),
                name="ratingchange_score_of_result",
            ),
            models.CheckConstraint(
                condition=Q(before_deviation__gt=0, after_deviation__gt=0),
                name="ratingchange_deviation_positive",
            ),
            # A heist the player won never lowers the rating, nor a loss raises it.
            models.CheckConstraint(
                condition=Q(score=0.5)
                | Q(score=1, after_value__gte=F("before_value"))
                | Q(score=0, after_value__lte=F("before_value")),
                name="ratingchange_moves_with_result",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.heist_id}: {self.before_value:.0f} -> {self.after_value:.0f}"
