"""The deck builder (/deck/): build a 12-card deck; guests keep one in the session, signed-in
players save named decks."""

from __future__ import annotations

import json
import re
from collections import Counter

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from game.engine import DeckError, get_ruleset, validate_deck
from game.presenters import pages, words
from game.selectors import catalogue as catalogue_selectors
from game.selectors.decks import saved_deck_playable, saved_decks
from game.services.decks import (
    DECK_NAME_MAX,
    SAVED_DECKS_MAX,
    deck_delete,
    deck_owned_check,
    deck_save,
)
from shop import presenters as shop_presenters
from shop import selectors as shop_selectors
from veyltak_site.exceptions import ApplicationError

# A guest keeps one deck in the session (issue 6); signed-in players save named decks
# (SavedDeck, through game.services.decks.deck_save).
SESSION_DECK = "veyltak_deck"


def _saved_decks(request, ruleset):
    decks = saved_decks(user=request.user)
    playable = {d.pk: saved_deck_playable(d, ruleset=ruleset.version) for d in decks}
    # One question to the shop for every deck: which of their crew the player does not own.
    locked = set(shop_selectors.unowned_crew(request.user, [s for d in decks for s in d.cards]))
    unowned = {d.pk: [s for s in dict.fromkeys(d.cards) if s in locked] for d in decks}
    return pages.saved_deck_rows(decks, ruleset, playable, unowned)


def _crew_locks(request, crew) -> None:
    """Mark the Night Market crew the player does not own (all of them for a guest), with
    their price in the shop."""
    prices = {
        r["slug"]: r["price"]
        for r in shop_presenters.shop_items(request.user)
        if r["kind"] == "crew"
    }
    locked = shop_selectors.unowned_crew(request.user, [row["slug"] for row in crew])
    pages.crew_locks(crew, locked=locked, prices=prices)


def _session_deck(request, ruleset):
    deck = request.session.get(SESSION_DECK)
    if not deck:
        return None
    try:
        return list(validate_deck(ruleset, deck))
    except DeckError:
        return None


@require_http_methods(["GET", "POST"])
def deck(request):
    """The Heist board: build a 12-card deck. Guests keep one in the session; signed-in players
    save it under a name (services.deck_save) and load or delete their saved decks here."""
    ruleset = get_ruleset()
    crew = pages.crew_rows(ruleset)
    _crew_locks(request, crew)
    starters = [
        {"slug": d.slug, "name": d.name, "deck": list(d.deck)}
        for d in catalogue_selectors.ready_decks()
    ] + [
        {"slug": p.slug, "name": f"{p.name}'s deck", "deck": list(p.deck)}
        for p in catalogue_selectors.rivals()
    ]
    signed_in = request.user.is_authenticated
    mine = _saved_decks(request, ruleset) if signed_in else []
    saved = _session_deck(request, ruleset)
    # ?load=<id> opens one of the player's saved decks (a link: works without JavaScript).
    loaded = next((d for d in mine if str(d["id"]) == request.GET.get("load")), None)
    name = loaded["name"] if loaded else ""
    # Nothing saved yet: start from the ready-made starter rather than an empty board.
    counts = Counter(loaded["cards"] if loaded else saved or starters[0]["deck"])
    reason = None
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        counts, reason = _posted_counts(request, crew, ruleset)
        action = request.POST.get("action", "")
        if action.startswith("starter:"):
            starter = next((d for d in starters if d["slug"] == action[8:]), None)
            counts = Counter(starter["deck"] if starter else [])
            reason = None
        elif action == "clear":
            counts = Counter()
            reason = None
        elif reason is not None:
            pass  # a count out of bounds: whatever was asked is refused, nothing is built
        elif action.startswith(("add:", "remove:")):
            op, _, slug = action.partition(":")
            reason = _adjust(counts, slug, op, ruleset, crew, signed_in=signed_in)
        elif action.startswith("delete:") and signed_in:
            reason = _delete_saved(request, action.removeprefix("delete:"), mine)
            mine = _saved_decks(request, ruleset)
        elif action == "save":
            # Every count is 0..max_copies by now; the total is checked before the list exists.
            reason = words.deck_reason(counts, ruleset)
            deck_list = []
            if reason is None:
                deck_list = [s for row in crew for s in [row["slug"]] * counts[row["slug"]]]
                try:
                    validate_deck(ruleset, deck_list)
                except DeckError as exc:
                    reason = str(exc)
            if reason is None:
                if signed_in:
                    try:
                        deck_row, _ = deck_save(user=request.user, name=name, cards=deck_list)
                    except ApplicationError as exc:
                        reason = exc.message
                    else:
                        messages.success(
                            request, f"Deck “{deck_row.name}” saved. Pick it in the rival picker."
                        )
                        return redirect(f"{reverse('deck')}?load={deck_row.pk}")
                else:
                    try:  # a guest owns no Night Market crew: refused here, not at the start
                        deck_owned_check(user_id=None, cards=deck_list, field="deck")
                    except ApplicationError as exc:
                        reason = exc.message
            if reason is None and not signed_in:
                request.session[SESSION_DECK] = deck_list
                messages.success(request, "Deck saved. It is used when you pick “Your deck”.")
                return redirect("deck")
    total = sum(counts.values())
    for row in crew:
        row["count"] = counts[row["slug"]]
    return render(
        request,
        "game/deck.html",
        {
            "crew": crew,
            "total": total,
            "size": ruleset.deck_size,
            "max_copies": ruleset.max_copies,
            "reason": reason or words.deck_reason(counts, ruleset),
            # The builder's words, for static/js/deck.js (it says the same as the page).
            "deck_texts": json.dumps(
                {**words.DECK_BUILDER, **pages.LOCKED_TEXT}, separators=(",", ":")
            ),
            "legal_text": words.DECK_BUILDER["legal"],
            "legal": words.deck_reason(counts, ruleset) is None,
            "starters": starters,
            "saved": saved is not None,
            "saved_decks": mine,
            "loaded": loaded if request.method == "GET" else None,
            "saved_max": SAVED_DECKS_MAX,
            "name": name,
            "name_max": DECK_NAME_MAX,
        },
        status=400 if reason else 200,
    )


_COUNT = re.compile(r"[0-9]{1,3}")


def _posted_counts(request, crew, ruleset) -> tuple[Counter, str | None]:
    """The deck form's ``count-<slug>`` values, each bounded to 0..max_copies before anything
    is built from it (a number from the client never sizes a list). Returns (counts, why the
    form was refused, if it was); a count out of bounds is shown as 0 or the copy limit."""
    counts: Counter = Counter()
    reason = None
    for row in crew:
        raw = request.POST.get(f"count-{row['slug']}", "0").strip() or "0"
        if not _COUNT.fullmatch(raw):
            reason = reason or words.DECK_BUILDER["count_invalid"].format(
                name=row["name"], max_copies=ruleset.max_copies
            )
            continue
        n = int(raw)
        if n > ruleset.max_copies:
            reason = reason or words.DECK_BUILDER["too_many_copies"].format(
                max_copies=ruleset.max_copies, name=row["name"]
            )
            n = ruleset.max_copies
        counts[row["slug"]] = n
    return counts, reason


def _delete_saved(request, deck_id, mine):
    """Delete one of the player's saved decks; returns why it was refused, if it was."""
    deck_row = next((d for d in mine if str(d["id"]) == deck_id), None)
    try:
        deck_delete(user=request.user, name_or_id=int(deck_id))
    except (ValueError, ApplicationError):
        return "There is no such saved deck."
    messages.success(request, f"Deck “{deck_row['name'] if deck_row else deck_id}” deleted.")
    return None


def _adjust(counts, slug, op, ruleset, crew, *, signed_in):
    """One + or - press without JavaScript; returns why it was refused, if it was."""
    names = {row["slug"]: row["name"] for row in crew}
    if slug not in names:
        return "There is no such crew."
    if op == "remove":
        counts[slug] = max(0, counts[slug] - 1)
        return None
    if any(row["locked"] for row in crew if row["slug"] == slug):
        key = "locked" if signed_in else "locked_guest"
        return pages.LOCKED_TEXT[key].format(name=names[slug])
    if counts[slug] >= ruleset.max_copies:
        return words.DECK_BUILDER["too_many_copies"].format(
            max_copies=ruleset.max_copies, name=names[slug]
        )
    if sum(counts.values()) >= ruleset.deck_size:
        return words.DECK_BUILDER["full"].format(size=ruleset.deck_size)
    counts[slug] += 1
    return None
