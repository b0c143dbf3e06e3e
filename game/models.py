import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from shop.models import SignsReason


class CrewType(models.Model):
    """A crew card type as the catalogue shows it, loaded from a ruleset (`load_catalogue`).

    The engine's ruleset data is the source of truth; this table is a copy for pages, the shop
    and the admin, keyed by (ruleset, slug) so an old ruleset's cards stay listed.
    """

    ruleset = models.CharField(max_length=32)
    slug = models.SlugField(max_length=64)
    name = models.CharField(max_length=100)
    cost = models.PositiveSmallIntegerField()
    power = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=200, blank=True)
    set = models.SlugField(max_length=32, default="base")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["ruleset", "position"]
        constraints = [
            models.UniqueConstraint(fields=["ruleset", "slug"], name="crewtype_unique_per_ruleset")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset})"


class Heist(models.Model):
    """One heist: everything needed to rebuild its engine state, and nothing derived by hand.

    The state is rebuilt by ``new_heist(ruleset, decks, seeds, encounter)`` followed by
    ``resolve`` of every stored night's two plans in order (``game.selectors.heists.heist_state``).
    ``night`` and ``status`` are kept here because they are what the seal service locks and
    checks; they always equal what the rebuilt state says.
    """

    class Status(models.TextChoices):
        ACTIVE = "active"
        FINISHED = "finished"
        ABANDONED = "abandoned"

    class Outcome(models.TextChoices):
        WIN = "win"
        LOSS = "loss"
        DRAW = "draw"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Owner: a signed-in player, or a guest's session (accounts.guest.guest_id). A guest who
    # signs up claims their heists (services.heists_claim_guest). SET_NULL: a deleted account's
    # heists stay, anonymised.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="heists",
    )
    guest_id = models.CharField(max_length=64, blank=True, db_index=True)

    ruleset = models.CharField(max_length=32)
    rival = models.SlugField(max_length=64, help_text="Rival persona slug (game/rivals).")
    difficulty = models.SlugField(max_length=32)
    player_deck = models.JSONField(help_text="Decklist, 12 crew slugs; index = card id.")
    rival_deck = models.JSONField(help_text="Decklist, 12 crew slugs; index = card id.")
    encounter_slug = models.SlugField(max_length=64, blank=True)
    encounter = models.JSONField(
        null=True, blank=True, help_text="The encounter exactly as disclosed (Encounter.to_dict)."
    )

    # Provably fair (RULES.md): the server seed stays secret until the heist is closed; its
    # SHA-256 is shown from the start.
    server_seed = models.CharField(max_length=64)
    client_seed = models.CharField(max_length=64, blank=True)
    seed_commitment = models.CharField(max_length=64)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    night = models.PositiveSmallIntegerField(
        default=1, help_text="The night being played; nights + 1 once finished."
    )
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)
    # Decided once, when the heist closes, by the shop (game.services.heists.heist_signs_award):
    # the Signs earned (0 past the daily limit; None when nothing was earned at all) and why.
    signs_awarded = models.PositiveIntegerField(null=True, blank=True)
    signs_reason = models.CharField(max_length=16, choices=SignsReason.choices, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="heist_user_created"),
            models.Index(fields=["guest_id", "-created_at"], name="heist_guest_created"),
            models.Index(fields=["status", "last_activity_at"], name="heist_status_activity"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="active", outcome="", finished_at__isnull=True)
                | Q(status="finished", finished_at__isnull=False) & ~Q(outcome="")
                | Q(status="abandoned", outcome="", finished_at__isnull=False),
                name="heist_status_consistent",
            ),
            models.CheckConstraint(condition=Q(night__gte=1), name="heist_night_positive"),
            # Signs only for finished heists (DESIGN.md section 6).
            models.CheckConstraint(
                condition=Q(signs_awarded__isnull=True) | Q(status="finished"),
                name="heist_signs_only_when_finished",
            ),
        ]

    def __str__(self) -> str:
        return f"heist {self.pk} vs {self.rival}/{self.difficulty} ({self.status})"

    @property
    def is_closed(self) -> bool:
        return self.status != self.Status.ACTIVE


class HeistNight(models.Model):
    """One night of a heist: the loot shown, both sealed plans and the result.

    Created when the night starts (with its loot); the rival's plan, nonce and commitment are
    written once by ``rival_plan_seal`` (a conditional UPDATE ... WHERE rival_commitment IS NULL
    claims it); the player's plan and the result are written by ``plan_seal`` under the heist's
    row lock.
    """

    heist = models.ForeignKey(Heist, on_delete=models.CASCADE, related_name="nights")
    night = models.PositiveSmallIntegerField()
    loot = models.JSONField(help_text="This night's loot per vault, as shown to both sides.")
    closed = models.JSONField(default=list, blank=True, help_text="Vaults closed this night.")
    started_at = models.DateTimeField(default=timezone.now)

    rival_plan = models.JSONField(null=True, blank=True)
    # NULL, not "", means "not sealed yet": the seal claims WHERE rival_commitment IS NULL.
    rival_nonce = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    rival_commitment = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    rival_sealed_at = models.DateTimeField(null=True, blank=True)

    player_plan = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="NightResult.to_dict().")
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["heist", "night"]
        constraints = [
            models.UniqueConstraint(fields=["heist", "night"], name="heistnight_unique_night"),
            # A rival seal is all or nothing, and a night resolves only after the rival sealed.
            models.CheckConstraint(
                condition=Q(
                    rival_plan__isnull=True,
                    rival_nonce__isnull=True,
                    rival_commitment__isnull=True,
                    rival_sealed_at__isnull=True,
                )
                | Q(
                    rival_plan__isnull=False,
                    rival_nonce__isnull=False,
                    rival_commitment__isnull=False,
                    rival_sealed_at__isnull=False,
                ),
                name="heistnight_rival_seal_complete",
            ),
            models.CheckConstraint(
                condition=Q(player_plan__isnull=True, result__isnull=True, resolved_at__isnull=True)
                | Q(
                    player_plan__isnull=False,
                    result__isnull=False,
                    resolved_at__isnull=False,
                    rival_commitment__isnull=False,
                ),
                name="heistnight_resolved_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"night {self.night} of {self.heist_id}"

    @property
    def rival_sealed(self) -> bool:
        return self.rival_commitment is not None

    @property
    def resolved(self) -> bool:
        return self.result is not None


class SavedDeck(models.Model):
    """A signed-in player's named deck (issue 6; guests keep one deck in their session).

    ``cards`` was legal under ``ruleset`` when saved (``services.deck_save`` checks it with the
    engine); a later ruleset may not accept it, so pages check it again before offering it.
    Deleted with the account (CASCADE): it is the player's own data, not a heist record.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_decks"
    )
    name = models.CharField(max_length=40)
    cards = models.JSONField(help_text="Decklist, 12 crew slugs.")
    ruleset = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user", "name"]
        constraints = [
            # Saving under a name the player already uses overwrites that deck (deck_save).
            models.UniqueConstraint(fields=["user", "name"], name="saveddeck_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="saveddeck_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.user_id})"
