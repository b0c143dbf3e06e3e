"""The rival picker (/play/): rival, difficulty, encounter, deck, Start."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.decorators import adult_required
from game.engine import get_ruleset
from game.owners import owner_from_request
from game.presenters import catalogue as present_catalogue
from game.presenters import pages, words
from game.presenters.pages import SAVED
from game.selectors import catalogue as catalogue_selectors
from game.services.heists import heist_start
from game.views.decks import _saved_decks, _session_deck
from game.views.home import _in_play, _last_level
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError, try_again


@adult_required
@require_http_methods(["GET", "POST"])
def play(request):
    """The rival picker: rival, difficulty, encounter, deck, Start."""
    ruleset = get_ruleset()
    personas = catalogue_selectors.rivals()
    difficulties = catalogue_selectors.difficulties()
    encounters = present_catalogue.encounter_choices(catalogue_selectors.encounters(), ruleset)
    my_deck = _session_deck(request, ruleset)
    saved = [d for d in _saved_decks(request, ruleset) if d["legal"]]
    starters = catalogue_selectors.ready_decks()
    # The deck offered first: the saved deck saved last, else the guest's session deck.
    latest = max(saved, key=lambda d: d["updated_at"], default=None)
    default_deck = latest["choice"] if latest else "mine" if my_deck else "starter"
    chosen = {
        "rival": _choice(request, "rival") or personas[0].slug,
        # Quick heist starts at the level played last (issue 26), the weakest before any.
        "difficulty": _choice(request, "difficulty")
        or _last_level(request, difficulties)
        or difficulties[0].slug,
        "encounter": _choice(request, "encounter"),
        "deck": _choice(request, "deck") or default_deck,
    }
    error = None
    wait = None  # seconds until a refused start may be tried again (the heist_start limit)
    if request.method == "POST":
        deck = None
        if request.POST.get("deck_cards"):  # a rematch plays the same deck again
            # At most one item more than a deck holds (so a long list is still refused as the
            # wrong size): the posted text never sizes a list.
            cards = request.POST["deck_cards"].split(",", ruleset.deck_size)
            deck = [card[:_CHOICE_MAX] for card in cards]
        elif chosen["deck"] == "mine":
            deck = my_deck
        elif chosen["deck"].startswith(SAVED):
            deck = next((d["cards"] for d in saved if d["choice"] == chosen["deck"]), None)
            if deck is None:  # deleted meanwhile, or not this player's
                error = "That saved deck is not there any more: pick another."
        elif chosen["deck"]:
            deck = next((list(d.deck) for d in starters if d.slug == chosen["deck"]), None)
        wait = throttling.hit("heist_start", request) if error is None else None
        if wait is not None:
            error = f"You have started a lot of heists in a short time: {try_again(wait)}."
        if error is None:
            try:
                heist_id = _start_heist(
                    request,
                    rival=chosen["rival"],
                    difficulty=chosen["difficulty"],
                    deck=deck,
                    encounter=chosen["encounter"] or None,
                )
            except ApplicationError as exc:
                error = exc.message
            else:
                return redirect("heist", heist_id=heist_id)
    rivals = [
        {
            "slug": p.slug,
            "name": p.name,
            "tagline": p.tagline,
            "bio": p.bio,
            "deck": pages.deck_summary(ruleset, p.deck),
            "emblem": f"images/emblems/{p.slug}.svg",
        }
        for p in personas
    ]
    by_slug = {
        "rival": {p.slug: p.name for p in personas},
        "difficulty": {d.slug: d.name for d in difficulties},
        "encounter": {e["slug"]: e["name"] for e in encounters},
    }
    response = render(
        request,
        "game/play.html",
        {
            "quick": pages.quick_heist(
                chosen, by_slug, _deck_name(chosen["deck"], saved, starters)
            ),
            # The choices stay folded unless the player came to change them or something failed.
            "choices_open": bool(error) or any(k in request.GET for k in chosen),
            "in_play": _in_play(request),
            "rivals": rivals,
            "difficulties": difficulties,
            "encounters": encounters,
            "standard_heist": words.standard_heist(ruleset),
            "chosen": chosen,
            "my_deck": pages.deck_summary(ruleset, my_deck) if my_deck else None,
            "saved_decks": saved,
            "starters": [
                {
                    "slug": d.slug,
                    "name": d.name,
                    "description": d.description,
                    "summary": pages.deck_summary(ruleset, d.deck),
                }
                for d in starters
            ],
            "error": error,
            "active_max": settings.HEIST_ACTIVE_MAX,
        },
        status=429 if wait else 400 if error else 200,
    )
    if wait:
        response["Retry-After"] = str(wait)
    return response


def _deck_name(choice, saved, starters):
    if choice == "mine":
        return "Your deck"
    found = next((d["name"] for d in saved if d["choice"] == choice), None)
    return found or next((d.name for d in starters if d.slug == choice), "")


_CHOICE_MAX = 64  # the longest slug or choice a page posts (the API's own bound)


def _choice(request, name: str) -> str:
    """A picker value from the form or the query, cut to the length of a slug: an overlong one
    is refused as unknown, and no echo of a client's text in an error is larger than that."""
    return (request.POST.get(name) or request.GET.get(name) or "")[:_CHOICE_MAX]


def _start_heist(request, *, rival, difficulty, deck, encounter):
    """Start a heist through the heist service (the same one POST /api/v1/heists/ calls)."""
    snapshot = heist_start(
        owner=owner_from_request(request),
        rival=rival,
        difficulty=difficulty,
        deck=deck,
        encounter=encounter,
    )
    return snapshot.heist.pk
