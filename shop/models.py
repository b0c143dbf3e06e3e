"""The Signs ledger (DESIGN.md section 6): accounts, transactions and their entries.

Double entry in integer Signs. Every movement is one :class:`Transaction` of two or more
:class:`Entry` rows whose amounts sum to zero: a player's wallet against a system account
(``rewards``, ``grants``, ``shop``). An entry's ``amount`` is what it adds to its account's
balance (a payout is +N on the wallet and -N on ``rewards``).

What the database itself enforces on PostgreSQL (migration 0003, triggers): entries are never
updated or deleted, transactions never deleted or changed (except their actor set to NULL when
a staff account goes), every transaction sums to zero with at least two entries at commit, each
wallet entry's ``balance_after`` continues the wallet's chain, and a wallet's cached ``balance``
equals its last ``balance_after`` at commit. CHECK constraints (here, on every database) keep a
wallet's balance at zero or more and a transaction key unique. On SQLite the services keep the
same rules; ``manage.py check_signs_ledger`` checks them on either.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Account(models.Model):
    """A wallet (one per player) or a system account (the other side of every movement)."""

    class Kind(models.TextChoices):
        WALLET = "wallet", "Player wallet"
        SYSTEM = "system", "System account"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    # Wallets only. SET_NULL: a deleted player's wallet and its entries stay (the ledger must
    # keep balancing), owned by nobody.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="signs_wallet",
    )
    # System accounts only: rewards, grants, shop.
    slug = models.SlugField(max_length=32, null=True, blank=True, unique=True)
    # A wallet's balance: a cache of the sum of its entries, changed only together with them.
    # Always 0 for a system account (its balance is derived: selectors.system_balances).
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="wallet", slug__isnull=True)
                | Q(kind="system", slug__isnull=False, user__isnull=True),
                name="shop_account_kind_consistent",
            ),
            # A system account's balance is the sum of its entries, never kept on its row:
            # that row would be locked by every movement in the site (see services.ledger._post).
            models.CheckConstraint(
                condition=~Q(kind="system") | Q(balance=0),
                name="shop_system_balance_not_kept",
            ),
            models.CheckConstraint(
                condition=~Q(kind="wallet") | Q(balance__gte=0),
                name="shop_wallet_balance_not_negative",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.SYSTEM:
            return f"system account {self.slug}"
        return f"wallet {self.pk} ({self.user_id or 'closed'})"

    @property
    def is_wallet(self) -> bool:
        return self.kind == self.Kind.WALLET


class Reason(models.TextChoices):
    """Why Signs moved (DESIGN.md section 6)."""

    HEIST = "heist", "Heist finished"
    FEATURED = "featured", "Featured heist"
    WELCOME = "welcome", "Welcome"
    PURCHASE = "purchase", "Purchase"
    GRANT = "grant", "Grant"
    REFUND = "refund", "Refund"
    JOB = "job", "Job done"


class Transaction(models.Model):
    """One movement of Signs. ``key`` is unique: the same award, grant or purchase retried,
    replayed by a second worker or sent twice writes nothing the second time."""

    id = models.BigAutoField(primary_key=True)
    key = models.CharField(max_length=128, unique=True)
    reason = models.CharField(max_length=16, choices=Reason.choices)
    # What it is about: "heist:<uuid>", "purchase:<id>", "transaction:<id>" for a refund...
    reference = models.CharField(max_length=100, blank=True)
    # For a person: a staff grant's stated reason, or what a heist earned for.
    memo = models.CharField(max_length=200, blank=True)
    # The staff member who made a grant or a refund. SET_NULL: the only change the database
    # allows to a transaction, so a staff account can still be deleted.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # A refund names its purchase; one-to-one, so a purchase is refunded at most once.
    refund_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="refund"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(key=""), name="shop_transaction_key_not_empty"),
            models.CheckConstraint(
                condition=Q(reason="refund", refund_of__isnull=False)
                | (~Q(reason="refund") & Q(refund_of__isnull=True)),
                name="shop_transaction_refund_names_purchase",
            ),
        ]

    def __str__(self) -> str:
        return f"transaction {self.pk} ({self.reason}, {self.key})"


class Entry(models.Model):
    """One line of a transaction: ``amount`` added to ``account``'s balance. Append-only.

    ``balance_after`` is the wallet's balance once this entry is applied (wallets only; system
    accounts keep no running balance, see :class:`Account`).
    """

    id = models.BigAutoField(primary_key=True)
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]
        indexes = [models.Index(fields=["account", "-id"], name="shop_entry_account_newest")]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="shop_entry_amount_not_zero"),
            models.CheckConstraint(
                condition=Q(balance_after__isnull=True) | Q(balance_after__gte=0),
                name="shop_entry_balance_after_not_negative",
            ),
            models.UniqueConstraint(
                fields=["transaction", "account"], name="shop_entry_one_line_per_account"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} on account {self.account_id} (transaction {self.transaction_id})"


class SignsReason(models.TextChoices):
    """What a finished (or abandoned) heist earned, and why nothing when it earned nothing.
    The game stores it on the heist, so the result page can say it."""

    EARNED = "earned", "Earned"
    DAILY_LIMIT = "daily_limit", "Daily limit reached"
    GUEST = "guest", "Played as a guest"
    ABANDONED = "abandoned", "Abandoned"
    INCOMPLETE = "incomplete", "Not every night sealed"
    PRACTICE = "practice", "A practice retry of a night"
    CHALLENGE = "challenge", "A friend's challenge"


class HeistEarning(models.Model):
    """What one finished heist earned a signed-in player: one row per heist, even when it
    earned nothing because of the daily limit or because it was abandoned (the limit counts
    these rows, so a heist left unfinished counts toward the day as one played to the end).

    The shop knows heists only by id (it never imports the game): the game passes what the
    decision needs when the heist finishes.
    """

    class Result(models.TextChoices):
        EARNED = "earned"
        DAILY_LIMIT = "daily_limit"
        # Left unfinished: earns nothing, and counts toward the day's limit (issue 27, S13).
        ABANDONED = "abandoned"

    heist_id = models.UUIDField(unique=True)
    # SET_NULL, as the wallet: a deleted player's earnings stay, anonymised.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    day = models.DateField(help_text="UTC day the heist finished (the daily limit's day).")
    outcome = models.CharField(max_length=8)
    difficulty = models.SlugField(max_length=32)
    economy = models.CharField(max_length=16, help_text="Economy version of the table used.")
    amount = models.PositiveIntegerField()
    result = models.CharField(max_length=16, choices=Result.choices)
    transaction = models.OneToOneField(
        Transaction, null=True, blank=True, on_delete=models.PROTECT, related_name="earning"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-pk"]
        indexes = [models.Index(fields=["user", "day"], name="shop_earning_user_day")]
        constraints = [
            models.CheckConstraint(
                condition=Q(result="earned", amount__gt=0, transaction__isnull=False)
                | Q(result__in=["daily_limit", "abandoned"], amount=0, transaction__isnull=True),
                name="shop_earning_result_consistent",
            )
        ]

    def __str__(self) -> str:
        return f"heist {self.heist_id}: {self.amount} ({self.result})"


# --- The shop: catalogue, purchases, collection (DESIGN.md sections 5-7) -----------------------


class ItemKind(models.TextChoices):
    CREW = "crew", "Crew card"
    CARD_BACK = "card_back", "Card back"
    BOARD_THEME = "board_theme", "Board theme"
    TITLE = "title", "Title"


# What a player can put on (one of each at a time); crew go into decks instead.
COSMETIC_KINDS = (ItemKind.CARD_BACK, ItemKind.BOARD_THEME, ItemKind.TITLE)
COSMETIC_CHOICES = [(kind.value, kind.label) for kind in COSMETIC_KINDS]


class ShopItem(models.Model):
    """One thing the shop sells, copied from ``shop/data/catalogue.json`` by ``load_catalogue``
    (services.shop_catalogue_load). Never deleted once sold (purchases name it): an item that
    leaves the file stays here with ``active`` False, still owned by whoever bought it."""

    slug = models.SlugField(max_length=40, unique=True)
    kind = models.CharField(max_length=16, choices=ItemKind.choices)
    name = models.CharField(max_length=60)
    description = models.CharField(max_length=300)
    price = models.PositiveIntegerField(help_text="Signs, from the catalogue file.")
    active = models.BooleanField(default=True, help_text="On sale.")
    # Cosmetics: the name the CSS and SVG art key on (static/css/cosmetics.css). Empty for crew.
    art = models.SlugField(max_length=60, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order in the catalogue file.")

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(price__gt=0), name="shop_item_price_positive"),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in ItemKind]), name="shop_item_kind_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}, {self.price} Signs)"

    @property
    def is_cosmetic(self) -> bool:
        return self.kind in COSMETIC_KINDS


class Purchase(models.Model):
    """One item bought: the price paid and the ledger transaction that paid it, written in one
    database transaction with the player's :class:`Ownership` and the stored answer of the
    request (:class:`IdempotencyRecord`)."""

    id = models.BigAutoField(primary_key=True)
    # SET_NULL, as the wallet: a deleted player's purchases stay with the ledger, anonymised.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="shop_purchases",
    )
    item = models.ForeignKey(ShopItem, on_delete=models.PROTECT, related_name="purchases")
    price = models.PositiveIntegerField()
    transaction = models.OneToOneField(
        Transaction, on_delete=models.PROTECT, related_name="purchase"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(price__gt=0), name="shop_purchase_price_positive")
        ]

    def __str__(self) -> str:
        return f"purchase {self.pk}: {self.item_id} for {self.price}"


class Ownership(models.Model):
    """A player owns an item (their collection). One row per player and item: the database
    refuses a second, so two purchases of one item at once cannot both land. A refund of the
    purchase deletes the row (services.signs_refund)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shop_ownerships"
    )
    item = models.ForeignKey(ShopItem, on_delete=models.PROTECT, related_name="owners")
    purchase = models.OneToOneField(
        Purchase, null=True, blank=True, on_delete=models.PROTECT, related_name="ownership"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "item"], name="shop_ownership_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} owns {self.item_id}"


class Equipped(models.Model):
    """The cosmetic a player wears of one kind (at most one per kind). ``kind`` repeats the
    item's kind so the database can keep one per kind; the service checks they agree."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shop_equipped"
    )
    kind = models.CharField(max_length=16, choices=ItemKind.choices)
    item = models.ForeignKey(ShopItem, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="shop_equipped_one_per_kind"),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in COSMETIC_KINDS]),
                name="shop_equipped_cosmetic_only",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} wears {self.item_id} as {self.kind}"


class IdempotencyRecord(models.Model):
    """The stored answer of a purchase request, by the player's ``Idempotency-Key``.

    Written in the purchase's own database transaction, so a key has an answer exactly when its
    purchase happened. ``request_hash`` is the SHA-256 of the request body in canonical JSON:
    the same key with another body is refused. ``body`` is the answer as sent, byte for byte.
    Removed after IDEMPOTENCY_KEY_HOURS by a beat task (services.idempotency_records_clear).
    """

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.TextField()
    purchase = models.OneToOneField(
        Purchase, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="shop_idempotency_key_once"),
            models.CheckConstraint(condition=~Q(key=""), name="shop_idempotency_key_not_empty"),
        ]

    def __str__(self) -> str:
        return f"key {self.key!r} of {self.user_id} ({self.status_code})"
