import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from game.fields import StoredJSONField
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


class FeaturedSlot(models.Model):
    """A featured heist: a stretch of UTC time in which everyone plays the same heist
    (RULES.md "Featured heists", DESIGN.md section 8).

    Made ahead by the rotation (game.services.featured.featured_reconcile) from the catalogue's
    rotation data: each slot starts where the one before it ends, and a unique start makes a
    second run, a retry or a late beat harmless. The server seed is every heist's of the slot
    and stays secret (never in an answer, a page or an error) until ``closed_at`` is set, after
    the end; its SHA-256 is public from the start. Closing also freezes the top places in
    ``winners`` and pays them through the ledger, once.

    The primary key is the slug, so a heist's ``featured_slot_id`` is the slug the heist view
    shows, without a join.
    """

    slug = models.SlugField(max_length=32, primary_key=True)
    name = models.CharField(max_length=100)
    starts_at = models.DateTimeField(unique=True)
    ends_at = models.DateTimeField()
    position = models.PositiveIntegerField(help_text="The rotation entry this slot plays.")

    ruleset = models.CharField(max_length=32)
    encounter_slug = models.SlugField(max_length=64)
    encounter = StoredJSONField(help_text="The encounter exactly as disclosed (to_dict).")
    rival = models.SlugField(max_length=64)
    difficulty = models.SlugField(max_length=32)
    deck = StoredJSONField(help_text="The player's fixed decklist, 12 crew slugs.")

    server_seed = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)

    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Frozen at close: [{rank, user_id, player, score, rival_score, finished_at, signs}].
    winners = StoredJSONField(default=list, blank=True)

    class Meta:
        ordering = ["starts_at"]
        indexes = [models.Index(fields=["ends_at"], name="featuredslot_ends")]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="featuredslot_has_length"
            ),
            # Closed only once its time is over.
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True) | Q(closed_at__gte=models.F("ends_at")),
                name="featuredslot_closed_after_end",
            ),
        ]

    def __str__(self) -> str:
        return f"featured {self.slug} ({self.name})"

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    def is_open(self, now) -> bool:
        """Whether heists may start (and ranked heists count) at ``now``."""
        return self.closed_at is None and self.starts_at <= now < self.ends_at


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
    player_deck = StoredJSONField(help_text="Decklist, 12 crew slugs; index = card id.")
    rival_deck = StoredJSONField(help_text="Decklist, 12 crew slugs; index = card id.")
    encounter_slug = models.SlugField(max_length=64, blank=True)
    encounter = StoredJSONField(
        null=True, blank=True, help_text="The encounter exactly as disclosed (Encounter.to_dict)."
    )
    # A featured heist plays its slot's seed, deck, encounter, rival and difficulty. A signed-in
    # player's first one in a slot is ranked (one per player and slot: a constraint); ranked
    # stays set when it is abandoned, so the attempt stays used. PROTECT: a slot with heists is
    # history, never deleted.
    featured_slot = models.ForeignKey(
        FeaturedSlot, null=True, blank=True, on_delete=models.PROTECT, related_name="heists"
    )
    ranked = models.BooleanField(default=False)

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
    # Decided once, when the heist closes, by the shop (game.services.finish.heist_signs_award):
    # the Signs earned (0 past the daily limit; None when nothing was earned at all) and why.
    signs_awarded = models.PositiveIntegerField(null=True, blank=True)
    signs_reason = models.CharField(max_length=16, choices=SignsReason.choices, blank=True)
    # The Signs a ranked featured finish earned on top (None: no bonus).
    featured_bonus = models.PositiveIntegerField(null=True, blank=True)
    # How each side looks in this heist, fixed when it starts (DESIGN.md section 7): for "you"
    # the cosmetics the player had equipped then (shop.selectors.equipped), for "rival" its
    # persona's (none yet). {"you": {card_back, board_theme, title}, "rival": {...}}, each value
    # a shop slug or None; {} for a heist started before cosmetics existed (all None).
    cosmetics = StoredJSONField(default=dict, blank=True)

    # A practice retry of one night of a finished heist (DESIGN.md section 10): it plays the
    # original's seeds, decks, encounter, rival and difficulty from ``start``, the stored
    # position of night ``practice_night`` (game.engine.position), so the same hands, loot,
    # Heat, scores and rival stream; never ranked, never earns. SET_NULL: heists are never
    # deleted, but a retry would outlive its original anyway (its start is its own).
    practice_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries"
    )
    practice_night = models.PositiveSmallIntegerField(null=True, blank=True)
    start = models.JSONField(
        null=True, blank=True, help_text="The position the heist starts from; null: night 1."
    )
    # A friend's answer to a challenge (DESIGN.md section 11): the challenged heist's seeds,
    # decks, encounter, rival and difficulty from night 1; never ranked, never earns, never
    # rated. One per player and one per guest (the constraints). PROTECT: a challenge is history.
    challenge = models.ForeignKey(
        "Challenge", null=True, blank=True, on_delete=models.PROTECT, related_name="heists"
    )

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
            # One ranked attempt per player and slot, whatever races (RULES.md).
            models.UniqueConstraint(
                fields=["featured_slot", "user"],
                condition=Q(ranked=True),
                name="heist_one_ranked_per_slot",
            ),
            models.CheckConstraint(
                condition=Q(ranked=False) | Q(featured_slot__isnull=False),
                name="heist_ranked_is_featured",
            ),
            models.CheckConstraint(
                condition=Q(featured_bonus__isnull=True) | Q(ranked=True, status="finished"),
                name="heist_bonus_only_ranked_finished",
            ),
            # A practice retry has its start and night, and is never ranked nor featured.
            models.CheckConstraint(
                condition=Q(practice_night__isnull=True, start__isnull=True)
                | Q(
                    practice_night__gte=1,
                    start__isnull=False,
                    ranked=False,
                    featured_slot__isnull=True,
                ),
                name="heist_practice_consistent",
            ),
            models.CheckConstraint(
                condition=Q(challenge__isnull=True)
                | Q(ranked=False, featured_slot__isnull=True, practice_night__isnull=True),
                name="heist_challenge_plain",
            ),
            models.UniqueConstraint(
                fields=["challenge", "user"],
                condition=Q(challenge__isnull=False, user__isnull=False),
                name="heist_one_per_challenge_player",
            ),
            models.UniqueConstraint(
                fields=["challenge", "guest_id"],
                condition=Q(challenge__isnull=False, user__isnull=True),
                name="heist_one_per_challenge_guest",
            ),
        ]

    def __str__(self) -> str:
        return f"heist {self.pk} vs {self.rival}/{self.difficulty} ({self.status})"

    @property
    def is_closed(self) -> bool:
        return self.status != self.Status.ACTIVE

    @property
    def is_practice(self) -> bool:
        return self.practice_night is not None

    @property
    def first_night(self) -> int:
        """The night the heist started at (a practice retry's, or 1)."""
        return self.practice_night or 1


class Challenge(models.Model):
    """A finished heist sent to friends (DESIGN.md section 11): whoever opens the link plays
    the same heist (``Heist.challenge``). The slug is the link's secret: random, never derived
    from the heist, so nobody finds a challenge by trying. One per heist, made by its owner."""

    slug = models.SlugField(max_length=32, primary_key=True)
    heist = models.OneToOneField(Heist, on_delete=models.PROTECT, related_name="challenge_made")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"challenge {self.slug} of {self.heist_id}"


class HeistNight(models.Model):
    """One night of a heist: the loot shown, both sealed plans and the result.

    Created when the night starts (with its loot); the rival's plan, nonce and commitment are
    written once by ``rival_plan_seal`` (a conditional UPDATE ... WHERE rival_commitment IS NULL
    claims it); the player's plan and the result are written by ``plan_seal`` under the heist's
    row lock.
    """

    heist = models.ForeignKey(Heist, on_delete=models.CASCADE, related_name="nights")
    night = models.PositiveSmallIntegerField()
    loot = StoredJSONField(help_text="This night's loot per vault, as shown to both sides.")
    closed = StoredJSONField(default=list, blank=True, help_text="Vaults closed this night.")
    started_at = models.DateTimeField(default=timezone.now)

    rival_plan = StoredJSONField(null=True, blank=True)
    # NULL, not "", means "not sealed yet": the seal claims WHERE rival_commitment IS NULL.
    rival_nonce = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    rival_commitment = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    rival_sealed_at = models.DateTimeField(null=True, blank=True)

    player_plan = StoredJSONField(null=True, blank=True)
    result = StoredJSONField(null=True, blank=True, help_text="NightResult.to_dict().")
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


class HeistDebrief(models.Model):
    """What the player could have done better in a finished heist, night by night, worked out
    once by the debrief task from the player's own observations (game.rivals.debrief) and kept
    (DESIGN.md section 10). ``data`` is the debrief's answer as the API sends it (its words
    included); ``accuracy`` is kept apart for the profile's history."""

    heist = models.OneToOneField(
        Heist, primary_key=True, on_delete=models.CASCADE, related_name="debrief"
    )
    accuracy = models.FloatField()
    data = models.JSONField()
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(accuracy__gte=0, accuracy__lte=100), name="heistdebrief_accuracy"
            ),
        ]

    def __str__(self) -> str:
        return f"debrief of {self.heist_id} ({self.accuracy:.1f})"


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
    cards = StoredJSONField(help_text="Decklist, 12 crew slugs.")
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


class FeaturedEntry(models.Model):
    """A ranked featured heist that finished inside its slot: one row of the leaderboard.

    Written in the transaction that finishes the heist, under the slot's share lock, so a slot
    being closed (which holds its row lock) either counts the entry or never sees it: the
    leaderboard the close pays is the one that stays. Ranked by more loot, then the larger
    margin, then the earlier finish (RULES.md); the heist id settles the rest, so the order is
    total. The index serves the top of the board and the ties of one player's rank; the
    entries before those are counted from :class:`FeaturedTally` (game.selectors.featured,
    bench/leaderboard.py). An entry is deleted only when its player's account is, while its
    slot is not closed yet (game.services.featured.featured_account_leaving): the places and
    prizes go to the next players; a closed board keeps it, nameless.
    """

    heist = models.OneToOneField(
        Heist, primary_key=True, on_delete=models.CASCADE, related_name="featured_entry"
    )
    slot = models.ForeignKey(FeaturedSlot, on_delete=models.CASCADE, related_name="entries")
    # SET_NULL: on a closed slot's board a deleted account's entry stays as it was paid,
    # shown nameless (open slots' boards drop it first: featured_account_leaving).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    score = models.PositiveSmallIntegerField()
    rival_score = models.PositiveSmallIntegerField()
    margin = models.SmallIntegerField(help_text="score - rival_score")
    finished_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(
                fields=["slot", "-score", "-margin", "finished_at", "heist"],
                name="featuredentry_rank",
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["slot", "user"], name="featuredentry_one_per_player"),
            models.CheckConstraint(
                condition=Q(margin=models.F("score") - models.F("rival_score")),
                name="featuredentry_margin",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.slot_id}: {self.score}-{self.rival_score} ({self.heist_id})"


class FeaturedTally(models.Model):
    """How many entries of a slot have each (loot, margin): written with each entry, in its
    transaction (one upsert adding 1), so a player's rank is a sum over at most a few thousand
    tallies plus the few entries tied with theirs, instead of a count of every entry ahead
    (100,000 on a busy slot)."""

    slot = models.ForeignKey(FeaturedSlot, on_delete=models.CASCADE, related_name="+")
    score = models.PositiveSmallIntegerField()
    margin = models.SmallIntegerField()
    entries = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["slot", "score", "margin"], name="featuredtally_one_per_cell"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.slot_id}: {self.entries} at {self.score} ({self.margin:+d})"


# The rating's tables and the jobs' one table live in modules of their own (size; game/jobs/);
# importing them here makes them the game app's models.
from game.jobs.models import JobPeriod  # noqa: E402, F401
from game.rating_models import PlayerRating, RatingChange  # noqa: E402, F401
