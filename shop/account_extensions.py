"""What the shop adds to accounts' pages and data (accounts.extensions), registered from
ShopConfig.ready: the wallet on the profile page, the wallet and the collection in the export,
the balance in /me."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts import extensions
from shop import presenters, selectors

PROFILE_ENTRIES = 20


def wallet_profile(user) -> dict[str, Any]:
    account = selectors.wallet_get(user=user)
    entries = list(selectors.wallet_entries(account=account)[: PROFILE_ENTRIES + 1])
    return {
        "balance": account.balance if account else 0,
        "entries": [presenters.entry_row(e) for e in entries[:PROFILE_ENTRIES]],
        "more": len(entries) > PROFILE_ENTRIES,
    }


def register() -> None:
    extensions.register_profile_section(
        "wallet", template="shop/_profile_wallet.html", context=wallet_profile, order=10
    )
    extensions.register_export_section(
        "wallet", data=lambda user: presenters.wallet_export(user=user)
    )
    extensions.register_export_section(
        "collection", data=lambda user: presenters.collection_export(user=user)
    )
    extensions.register_name_title(
        "title", value=lambda user: selectors.titles_for([user.pk]).get(user.pk)
    )
    extensions.register_me_field(
        "signs",
        field=serializers.IntegerField(help_text="The player's Signs; 0 for a guest."),
        value=lambda user: selectors.wallet_balance(user=user) or 0,
    )
