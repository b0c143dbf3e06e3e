"""The shop's pages (DESIGN.md sections 5-7): the shelf at /shop/, a purchase's confirmation
and the wearing of cosmetics. They work without JavaScript: buying is a form that posts its
Idempotency-Key in a hidden field and goes through the same service as
``POST /api/v1/shop/purchases/`` (``item_purchase``), so a form sent twice buys once; wearing
is a form through ``item_equip``, the service of ``PUT /api/v1/collection/equipped/``. With
JavaScript, static/js/shop.js asks the same questions of the JSON API instead.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from game.engine import available_versions, get_ruleset
from shop import selectors
from shop.models import COSMETIC_KINDS, ItemKind
from shop.presenters import purchase_answer, shop_items
from shop.services import item_equip, item_purchase, purchase_request_hash
from veyltak_site.exceptions import ApplicationError

# A cosmetic just bought is shown big once, on the shelf the purchase returns to (the page's
# way; with JavaScript, static/js/shop.js opens the same unveiling as a dialog).
UNVEIL_SESSION_KEY = "shop_unveil"

# The shelf's sections, in the order the page shows them, with their headings.
SECTIONS = (
    (ItemKind.CREW, "Night Market crew", "New crew types for your decks: yours to play for good."),
    (ItemKind.CARD_BACK, "Card backs", "On the backs of your deck and hand, in every heist."),
    (ItemKind.BOARD_THEME, "Board themes", "Your board's colours. They change nothing else."),
    (ItemKind.TITLE, "Titles", "Shown beside your name on your profile and on leaderboards."),
)


def _crew_details() -> dict[str, dict[str, Any]]:
    """Each crew type's numbers and words, from the newest ruleset that has it."""
    details: dict[str, dict[str, Any]] = {}
    for version in available_versions():
        for slug, crew in get_ruleset(version).crew.items():
            details[slug] = {
                "cost": crew.cost,
                "power": crew.power,
                "text": crew.text,
                "set": crew.set,
            }
    return details


def _item_rows(user) -> list[dict[str, Any]]:
    balance = selectors.wallet_balance(user=user)
    crew = _crew_details()
    rows = []
    for row in shop_items(user):
        row = dict(row)
        row["crew"] = crew.get(row["slug"]) if row["kind"] == ItemKind.CREW else None
        row["wearable"] = row["kind"] in COSMETIC_KINDS
        row["after"] = balance - row["price"] if balance is not None else None
        row["short"] = max(0, row["price"] - balance) if balance is not None else None
        rows.append(row)
    return rows


def shop(request):
    """The shelf: every item by kind with its art, price, and whether the player owns and
    wears it; the balance. Guests see it all with a prompt to sign in."""
    user = request.user
    rows = _item_rows(user)
    unveil_slug = request.session.pop(UNVEIL_SESSION_KEY, None)
    unveil = next((r for r in rows if r["slug"] == unveil_slug and r["owned"]), None)
    sections = [
        {
            "kind": kind.value,
            "title": title,
            "blurb": blurb,
            "items": [r for r in rows if r["kind"] == kind],
        }
        for kind, title, blurb in SECTIONS
    ]
    return render(
        request,
        "shop/shop.html",
        {
            "sections": [s for s in sections if s["items"]],
            "unveil": unveil,
            "balance": selectors.wallet_balance(user=user),
            "signed_in": user.is_authenticated,
            "login_next": f"{reverse('account_login')}?next={reverse('shop')}",
        },
    )


def _shelf_item(user, slug: str) -> dict[str, Any]:
    row = next((r for r in _item_rows(user) if r["slug"] == slug), None)
    if row is None:
        raise Http404("The shop sells nothing by that name.")
    return row


@login_required
@require_http_methods(["GET", "POST"])
def buy(request, slug: str):
    """Confirm a purchase: the price, the balance and the balance after it. Confirming posts
    the page's Idempotency-Key (made when the page was drawn) with the price shown."""
    user = request.user
    item = _shelf_item(user, slug)
    error = None
    status = 200
    key = uuid.uuid4().hex
    if request.method == "POST":
        key = request.POST.get("idempotency_key", "")
        raw_price = request.POST.get("price", "")
        price = int(raw_price) if raw_price.isdigit() and len(raw_price) <= 9 else raw_price
        try:
            answer = item_purchase(
                user=user,
                key=key,
                request_hash=purchase_request_hash({"item": slug, "price": price}),
                item=slug,
                price=price,
                render=purchase_answer,
            )
        except ApplicationError as exc:
            error = exc.message
            status = exc.status_code
            if exc.code == "idempotency_key_reused":
                key = uuid.uuid4().hex  # that form was for another purchase: a new one
            item = _shelf_item(user, slug)  # the price or the balance may have moved
        else:
            body = json.loads(answer.body)
            if answer.replayed:
                messages.info(request, f"That purchase was already made: {item['name']} is yours.")
            else:
                messages.success(
                    request,
                    f"You bought {item['name']} for {item['price']} Signs. "
                    f"You hold {body['balance']} Signs now.",
                )
                if item["wearable"]:
                    request.session[UNVEIL_SESSION_KEY] = slug
                    return redirect(f"{reverse('shop')}#unveil")
            return redirect(f"{reverse('shop')}#item-{slug}")
    if item["owned"] and error is None:
        messages.info(request, f"{item['name']} is yours already.")
        return redirect(f"{reverse('shop')}#item-{slug}")
    return render(
        request,
        "shop/buy.html",
        {
            "item": item,
            "balance": selectors.wallet_balance(user=user),
            "key": key,
            "error": error,
        },
        status=status,
    )


@login_required
@require_POST
def equip(request):
    """Wear a cosmetic the player owns, or take one off (``item`` empty)."""
    kind = request.POST.get("kind", "")
    item = request.POST.get("item", "") or None
    # The collection page wears and takes off through this form too, and comes back to itself.
    back = "collection" if request.POST.get("back") == "collection" else "shop"
    try:
        item_equip(user=request.user, kind=kind, item=item)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    names = {r["slug"]: r["name"] for r in shop_items(request.user)}
    if item is None:
        label = dict(ItemKind.choices).get(kind, kind).lower()
        messages.success(request, f"Your {label} is back to the default.")
    else:
        messages.success(request, f"You now wear {names.get(item, item)}.")
    anchor = f"#item-{item}" if item else ""
    return redirect(f"{reverse(back)}{anchor}")
