"""The collection page (/collection/, issue 26): every crew type of the rules the site plays as a
card with its art (the base set, free to everyone; the Night Market types the player owns; those
still locked, with their price in the shop), and every cosmetic the player owns, with what they
wear. A guest sees what the base set is and a prompt to sign in.

The same reads as ``GET /api/v1/collection/`` and the shop's shelf (shop.selectors,
shop.presenters.shop_items); wearing goes through the shop's equip form and comes back here.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import render
from django.urls import reverse

from game.engine import get_ruleset
from shop import selectors
from shop.models import COSMETIC_KINDS, ItemKind
from shop.presenters import shop_items

# Each cosmetic kind's heading and what it changes, in the page's order.
COSMETIC_SECTIONS = {
    ItemKind.CARD_BACK: ("Card backs", "the standard card back"),
    ItemKind.BOARD_THEME: ("Board themes", "the standard board"),
    ItemKind.TITLE: ("Titles", "no title"),
}


def _crew_rows(user) -> dict[str, list[dict[str, Any]]]:
    """The ruleset's crew in order, split into the base set and the Night Market (owned or
    locked, with the shop's price)."""
    ruleset = get_ruleset()
    sold = {r["slug"]: r for r in shop_items(user) if r["kind"] == ItemKind.CREW}
    locked = set(selectors.unowned_crew(user, list(ruleset.crew)))
    base, market = [], []
    for crew in ruleset.crew.values():
        row = {
            "slug": crew.slug,
            "name": crew.name,
            "cost": crew.cost,
            "power": crew.power,
            "text": crew.text,
            "set": crew.set,
            "price": sold[crew.slug]["price"] if crew.slug in sold else None,
        }
        if crew.set != "night-market" and crew.slug not in sold:
            base.append({**row, "state": "base"})
        else:
            market.append({**row, "state": "locked" if crew.slug in locked else "owned"})
    return {"base": base, "market": market}


def _cosmetic_sections(user) -> list[dict[str, Any]]:
    owned = [r for r in shop_items(user) if r["owned"] and r["kind"] in COSMETIC_KINDS]
    sections = []
    for kind, (title, default) in COSMETIC_SECTIONS.items():
        items = [r for r in owned if r["kind"] == kind]
        sections.append(
            {
                "kind": kind.value,
                "title": title,
                "default": default,
                "items": items,
                "worn": next((r["name"] for r in items if r["equipped"]), None),
            }
        )
    return sections


def collection_context(user) -> dict[str, Any]:
    signed_in = user is not None and user.is_authenticated
    crew = _crew_rows(user)
    owned_market = [c for c in crew["market"] if c["state"] == "owned"]
    cosmetics = _cosmetic_sections(user) if signed_in else []
    return {
        "signed_in": signed_in,
        "crew": crew,
        "crew_usable": len(crew["base"]) + len(owned_market),
        "crew_total": len(crew["base"]) + len(crew["market"]),
        "cosmetics": cosmetics,
        "cosmetics_owned": sum(len(s["items"]) for s in cosmetics),
        "balance": selectors.wallet_balance(user=user),
        "login_next": f"{reverse('account_login')}?next={reverse('collection')}",
    }


def collection(request):
    """Every crew type and cosmetic, and which are the player's (the header's menu and the
    profile link here)."""
    return render(request, "shop/collection.html", collection_context(request.user))
