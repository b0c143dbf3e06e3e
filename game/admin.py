"""Admin: heists are read-only records (the engine state is derived from them, never edited);
staff may close a stuck heist through the same service the periodic task uses."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet

from game.models import CrewType, FeaturedSlot, Heist, HeistNight
from game.services import abandon as services


@admin.register(CrewType)
class CrewTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "cost", "power", "set", "ruleset"]
    list_filter = ["ruleset", "set"]
    search_fields = ["slug", "name"]


class HeistNightInline(admin.TabularInline):
    model = HeistNight
    extra = 0
    can_delete = False
    # No nonce: an unplayed night's nonce stays secret even from the admin's pages.
    fields = ["night", "loot", "closed", "rival_commitment", "rival_sealed_at", "resolved_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Heist)
class HeistAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "rival", "difficulty", "status", "night", "outcome", "created_at"]
    list_filter = ["status", "rival", "difficulty", "outcome"]
    search_fields = ["id", "user__email", "user__username", "guest_id"]
    date_hierarchy = "created_at"
    inlines = [HeistNightInline]
    actions = ["abandon_selected"]
    # The server seed is left out: it is published with the replay when the heist ends.
    fields = [
        "id", "user", "guest_id", "ruleset", "rival", "difficulty", "encounter_slug",
        "player_deck", "rival_deck", "client_seed", "seed_commitment", "status", "night",
        "outcome", "signs_awarded", "signs_reason", "featured_slot", "ranked", "featured_bonus",
        "created_at", "last_activity_at", "finished_at",
    ]  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.action(description="Close the selected active heists as abandoned (no award)")
    def abandon_selected(self, request, queryset: QuerySet[Heist]) -> None:
        count = 0
        for heist in queryset.filter(status=Heist.Status.ACTIVE):
            count += services.heist_abandon(heist_id=heist.pk)
        self.message_user(request, f"{count} heist(s) closed as abandoned.", messages.SUCCESS)


@admin.register(FeaturedSlot)
class FeaturedSlotAdmin(admin.ModelAdmin):
    """Slots are made and closed by the rotation (game.services.featured) only: read-only here,
    and without the server seed, which no page shows before the close."""

    list_display = ["slug", "name", "starts_at", "ends_at", "encounter_slug", "rival", "closed_at"]
    list_filter = ["rival", "difficulty"]
    fields = [
        "slug", "name", "starts_at", "ends_at", "position", "ruleset", "encounter_slug", "rival",
        "difficulty", "deck", "seed_commitment", "closed_at", "winners",
    ]  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
