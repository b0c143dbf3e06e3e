"""Admin of the Signs ledger: everything read-only (the ledger is append-only); staff grant and
refund through the same services as everything else, with their account recorded as the actor.

Both actions ask first (amount, reason) on an intermediate page. The grant form carries a key
made when the page is shown, so sending it twice grants once.
"""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.template.response import TemplateResponse

from shop import selectors, services
from shop.models import (
    Account,
    Entry,
    Equipped,
    HeistEarning,
    Ownership,
    Purchase,
    Reason,
    ShopItem,
    Transaction,
)
from veyltak_site.exceptions import ApplicationError


class GrantForm(forms.Form):
    amount = forms.IntegerField(min_value=1, max_value=services.GRANT_MAX)
    reason = forms.CharField(max_length=200, help_text="The player sees this in their wallet.")
    key = forms.CharField(widget=forms.HiddenInput, max_length=32)


class RefundForm(forms.Form):
    amount = forms.IntegerField(
        min_value=1, required=False, help_text="Leave empty to refund each purchase in full."
    )
    note = forms.CharField(max_length=200, required=False)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _action_page(modeladmin, request, queryset, *, form, action: str, title: str, button: str):
    return TemplateResponse(
        request,
        "admin/shop/action_form.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "button": button,
            "form": form,
            "queryset": queryset,
            "action": action,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        },
    )


def _may_move_signs(request) -> bool:
    # Grants and refunds write to the ledger: staff holding the transaction "change"
    # permission (superusers hold every permission), though no transaction is ever edited.
    return request.user.has_perm("shop.change_transaction")


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "kind", "user", "slug", "shown_balance", "created_at"]
    list_filter = ["kind"]
    search_fields = ["user__email", "user__username", "slug"]
    actions = ["grant_signs"]

    @admin.display(description="balance")
    def shown_balance(self, account: Account) -> int:
        if account.kind == Account.Kind.SYSTEM:
            # Not kept on the row: the sum of its entries.
            return selectors.system_balances().get(account.slug, 0)
        return account.balance

    def has_grant_permission(self, request) -> bool:
        return _may_move_signs(request)

    @admin.action(description="Grant Signs to the selected wallets", permissions=["grant"])
    def grant_signs(self, request, queryset: QuerySet[Account]):
        wallets = queryset.filter(kind=Account.Kind.WALLET, user__isnull=False)
        if "apply" not in request.POST:
            form = GrantForm(initial={"key": uuid.uuid4().hex})
        else:
            form = GrantForm(request.POST)
            if form.is_valid():
                data, granted = form.cleaned_data, 0
                for account in wallets.select_related("user"):
                    try:
                        posted = services.signs_grant(
                            user=account.user,
                            amount=data["amount"],
                            reason_text=data["reason"],
                            actor=request.user,
                            key=f"admin:{data['key']}:{account.pk}",
                        )
                    except ApplicationError as exc:
                        self.message_user(request, f"{account}: {exc.message}", messages.ERROR)
                        continue
                    granted += posted.created
                self.message_user(
                    request,
                    f"Granted {data['amount']} Signs to {granted} wallet(s).",
                    messages.SUCCESS,
                )
                return None
        return _action_page(
            self,
            request,
            wallets,
            form=form,
            action="grant_signs",
            title="Grant Signs",
            button="Grant",
        )


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ["account", "amount", "balance_after"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "reason", "key", "reference", "memo", "actor", "refund_of"]
    list_filter = ["reason"]
    search_fields = ["key", "reference", "memo", "entries__account__user__email"]
    date_hierarchy = "created_at"
    inlines = [EntryInline]
    actions = ["refund_purchases"]

    def has_refund_permission(self, request) -> bool:
        return _may_move_signs(request)

    @admin.action(
        description="Refund the selected purchases (a shop item leaves the collection)",
        permissions=["refund"],
    )
    def refund_purchases(self, request, queryset: QuerySet[Transaction]):
        purchases = queryset.filter(reason=Reason.PURCHASE)
        form = RefundForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = 0
            for purchase in purchases.order_by("pk"):
                try:
                    services.signs_refund(
                        purchase_id=purchase.pk,
                        amount=form.cleaned_data["amount"],
                        actor=request.user,
                        note=form.cleaned_data["note"],
                    )
                except ApplicationError as exc:
                    self.message_user(request, f"{purchase}: {exc.message}", messages.ERROR)
                    continue
                done += 1
            self.message_user(request, f"Refunded {done} purchase(s).", messages.SUCCESS)
            return None
        if not purchases.exists():
            self.message_user(request, "Only purchases can be refunded.", messages.WARNING)
            return None
        return _action_page(
            self,
            request,
            purchases,
            form=form,
            action="refund_purchases",
            title="Refund purchases",
            button="Refund",
        )


@admin.register(HeistEarning)
class HeistEarningAdmin(ReadOnlyAdmin):
    list_display = ["heist_id", "user", "day", "outcome", "difficulty", "amount", "result"]
    list_filter = ["result", "outcome", "difficulty", "day"]
    search_fields = ["heist_id", "user__email"]


# --- The shop: items are data (shop/data/catalogue.json, load_catalogue), the rest is written by
# purchases and refunds; all read-only here. A refund is made on the purchase's transaction.


@admin.register(ShopItem)
class ShopItemAdmin(ReadOnlyAdmin):
    list_display = ["slug", "kind", "name", "price", "active", "art", "position"]
    list_filter = ["kind", "active"]
    search_fields = ["slug", "name"]


@admin.register(Purchase)
class PurchaseAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "user", "item", "price", "transaction"]
    list_filter = ["item__kind"]
    search_fields = ["user__email", "item__slug"]
    date_hierarchy = "created_at"


@admin.register(Ownership)
class OwnershipAdmin(ReadOnlyAdmin):
    list_display = ["user", "item", "purchase", "created_at"]
    list_filter = ["item__kind"]
    search_fields = ["user__email", "item__slug"]


@admin.register(Equipped)
class EquippedAdmin(ReadOnlyAdmin):
    list_display = ["user", "kind", "item", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["user__email", "item__slug"]
