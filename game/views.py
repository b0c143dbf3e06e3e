"""Pages. Server-rendered; the heist board itself is static/js/board.js talking to the JSON API.

Pages read through selectors, build their context with game.presenters and hold no rules: deck
legality is the engine's validate_deck, the same check the API runs, and every rule sentence
comes from game.engine.text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from urllib.parse import quote, urlencode

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET, require_http_methods

from accounts.decorators import adult_required
from accounts.guest import existing_guest_id
from game import catalogue
from game.engine import DeckError, RulesetError, get_ruleset, text, validate_deck
from game.owners import Owner, owner_from_request
from game.presenters import board as present_board
from game.presenters import catalogue as present_catalogue
from game.presenters import featured as present_featured
from game.presenters import heists as present_heists
from game.presenters import pages
from game.presenters.pages import SAVED
from game.selectors import catalogue as catalogue_selectors
from game.selectors import featured as featured_selectors
from game.selectors.decks import saved_deck_playable, saved_decks
from game.selectors.heists import heist_get, heist_in_play, heist_load_any, heist_snapshot
from game.services.decks import (
    DECK_NAME_MAX,
    SAVED_DECKS_MAX,
    deck_delete,
    deck_owned_check,
    deck_save,
)
from game.services.featured import featured_heist_start
from game.services.heists import heist_start
from shop import selectors as shop_selectors
from veyltak_site import throttling
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
        for r in shop_selectors.shop_items(request.user)
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


# --- pages ------------------------------------------------------------------------------------


def home(request):
    ruleset = get_ruleset()
    return render(
        request,
        "home.html",
        {
            "crew": catalogue_selectors.crew_types(),
            "ruleset": ruleset,
            "summary": text.summary(ruleset),
            "steps": text.night_steps(ruleset),
            "boost_and_heat": text.boost_and_heat(ruleset),
            "deck_rule": text.deck_rule(ruleset),
            "difficulties": text.either(d.name for d in catalogue_selectors.difficulties()),
            "featured_home": _featured_home(ruleset),
            "in_play": _in_play(request),
        },
    )


def _in_play(request):
    """The visitor's heist in play, for "Continue your heist" (home and Play), or None. A
    visitor with no session yet has none, and none is started for asking."""
    user_id = request.user.pk if request.user.is_authenticated else None
    guest = existing_guest_id(request) or ""
    if user_id is None and not guest:
        return None
    game = heist_in_play(owner=Owner(user_id=user_id, guest_id=guest))
    if game is None:
        return None
    return pages.in_play_card(
        game,
        rival_name=catalogue_selectors.rival_get(game.rival).name,
        nights=get_ruleset(game.ruleset).nights,
        url=reverse("heist", kwargs={"heist_id": game.pk}),
    )


def rules(request):
    """How to play, generated from the active ruleset (its numbers, its crew, the rulings)."""
    ruleset = catalogue.active_ruleset()
    active = catalogue.active()
    context = pages.rules_context(ruleset)
    # Every encounter of the catalogue, as the picker shows them, and the featured rules.
    context["encounters"] = present_catalogue.encounter_choices(active.encounters.values(), ruleset)
    context["featured_rules"] = text.featured_rules(
        slot_minutes=settings.FEATURED_SLOT_MINUTES,
        ranked_finish=active.prizes.ranked_finish,
        top=active.prizes.top,
    )
    return render(request, "game/rules.html", context)


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
        "difficulty": _choice(request, "difficulty") or difficulties[0].slug,
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
            error = (
                "You have started a lot of heists in a short time. "
                f"Please try again in {wait} second{'s' if wait != 1 else ''}."
            )
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
            "standard_heist": text.standard_heist(ruleset),
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
            reason = text.deck_reason(counts, ruleset)
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
            "reason": reason or text.deck_reason(counts, ruleset),
            # The builder's words, for static/js/deck.js (it says the same as the page).
            "deck_texts": json.dumps(
                {**text.DECK_BUILDER, **pages.LOCKED_TEXT}, separators=(",", ":")
            ),
            "legal_text": text.DECK_BUILDER["legal"],
            "legal": text.deck_reason(counts, ruleset) is None,
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
            reason = reason or text.DECK_BUILDER["count_invalid"].format(
                name=row["name"], max_copies=ruleset.max_copies
            )
            continue
        n = int(raw)
        if n > ruleset.max_copies:
            reason = reason or text.DECK_BUILDER["too_many_copies"].format(
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
        return text.DECK_BUILDER["too_many_copies"].format(
            max_copies=ruleset.max_copies, name=names[slug]
        )
    if sum(counts.values()) >= ruleset.deck_size:
        return text.DECK_BUILDER["full"].format(size=ruleset.deck_size)
    counts[slug] += 1
    return None


def _owned_heist(request, heist_id):
    """The player's own heist, or 404 (another player's heist is a 404 too, as in the API)."""
    try:
        return heist_get(heist_id=heist_id, owner=owner_from_request(request))
    except ApplicationError as exc:
        raise Http404(exc.message) from None


def _urls(heist_id):
    return {
        "board": reverse("heist", kwargs={"heist_id": heist_id}),
        "result": reverse("heist-result", kwargs={"heist_id": heist_id}),
        "replay": reverse("heist-replay", kwargs={"heist_id": heist_id}),
    }


def _board_data_url(version: str) -> str:
    _, digest = pages.board_data(version)
    return f"{reverse('board-data', kwargs={'version': version})}?v={digest}"


@require_GET
@gzip_page
def board_data(request, version):
    """The board's ruleset data and words: public and the same for every player, so cached for a
    year under an address that names its content, and compressed (no secret and nothing the
    request sends is in it)."""
    try:
        body, _ = pages.board_data(version)
    except RulesetError:
        raise Http404("No such ruleset.") from None
    response = HttpResponse(body, content_type="application/json")
    patch_cache_control(response, public=True, max_age=365 * 24 * 3600, immutable=True)
    return response


@adult_required
def heist(request, heist_id):
    """The heist board. The page is a frame: board.js fills it from GET /api/v1/heists/{id}/."""
    game = _owned_heist(request, heist_id)
    if game.is_closed:
        return redirect("heist-result", heist_id=heist_id)
    ruleset = get_ruleset(game.ruleset)
    you = present_heists.heist_cosmetics(game, "you")
    rival = present_heists.heist_cosmetics(game, "rival")
    return render(
        request,
        "game/board.html",
        {
            "heist_id": heist_id,
            # The board's hooks (data-board-theme, .card-back[data-card-back]): the cosmetics
            # fixed when the heist started, "default" where none (static/css/cosmetics.css).
            "board_theme": you["board_theme"] or "default",
            "card_back": {
                "you": you["card_back"] or "default",
                "rival": rival["card_back"] or "default",
            },
            "cosmetics": {"you": you, "rival": rival},
            "api": "/api/v1/",
            "rules_url": _board_data_url(ruleset.version),
            "board_modules": present_board.board_modules(),
            "rival_name": catalogue_selectors.rival_get(game.rival).name,
            # The vaults are drawn by the page and filled by the board, which keeps the same
            # elements from planning through the reveal.
            "vaults": [{"slug": v.slug, "name": v.name} for v in ruleset.vaults],
            "night": game.night,
            "nights": ruleset.nights,
            "urls": _urls(heist_id),
        },
    )


_SHARE_SALT = "game.replay.share"


def _share_url(request, game) -> str | None:
    """The replay's address for anyone holding it: signed with the heist's id, so a replay is
    seen by its player and by those they gave the link to, never found by trying ids. None while
    a featured slot is open (its heists share one seed: a replay would help the others)."""
    if game.featured_slot_id is not None and game.featured_slot.closed_at is None:
        return None
    token = signing.dumps(str(game.pk), salt=_SHARE_SALT)
    url = reverse("heist-replay", kwargs={"heist_id": game.pk})
    return request.build_absolute_uri(f"{url}?{urlencode({'share': token})}")


def _shared_heist(request, heist_id):
    """The heist a share link names (any owner), or None when the link does not name it."""
    token = request.GET.get("share", "")[:200]
    try:
        shared = signing.loads(token, salt=_SHARE_SALT)
    except signing.BadSignature:
        return None
    if shared != str(heist_id):
        return None
    found = heist_load_any(heist_id=heist_id)
    if found is None or not found.heist.is_closed:
        return None
    game = found.heist
    if game.featured_slot_id is not None and game.featured_slot.closed_at is None:
        return None
    return game


@adult_required
def heist_result(request, heist_id):
    """Outcome, final score, Signs, rematch and the replay link."""
    game = _owned_heist(request, heist_id)
    if not game.is_closed:
        return redirect("heist", heist_id=heist_id)
    view = present_heists.heist_view(heist_snapshot(game))
    result = view["result"]
    difficulties = catalogue_selectors.difficulties()
    outcome = result["outcome"] if result else "abandoned"
    share_url = _share_url(request, game)
    return render(
        request,
        "game/result.html",
        {
            "view": view,
            "result": result,
            "outcome_kind": outcome,
            "outcome": pages.OUTCOME_TEXT.get(outcome, "Over") if result else "Abandoned",
            "nights": pages.result_nights(view["history"]),
            "highlights": pages.result_highlights(
                view["history"], {v["slug"]: v["name"] for v in view["vaults"]}
            ),
            "difficulties": difficulties,
            "difficulty": next(
                (d for d in difficulties if d.slug == view["rival"]["difficulty"]), None
            ),
            "next_level": (
                pages.next_level(difficulties, view["rival"]["difficulty"])
                if outcome == "win"
                else None
            ),
            "share_url": share_url,
            "share_text": pages.share_text(
                outcome, view["rival"]["name"], view["you"]["score"], view["rival"]["score"]
            )
            if share_url
            else "",
            # Why no Signs, when none (guest, daily limit, abandoned): the page says it.
            "signs_reason": game.signs_reason,
            "urls": _urls(heist_id),
        },
    )


@adult_required
def heist_replay(request, heist_id):
    """Step through the nights of a finished heist, one night per page (?night=N): both hands
    as they were, the plans and the results; the technical details folded away. Its player sees
    it, and so does anyone holding its share link (?share=, from the result page)."""
    game = _shared_heist(request, heist_id) if "share" in request.GET else None
    shared = game is not None
    if game is None:
        game = _owned_heist(request, heist_id)
    if not game.is_closed:
        return redirect("heist", heist_id=heist_id)
    snapshot = heist_snapshot(game)
    view = present_heists.heist_view(snapshot)
    # A featured heist's seed is its slot's, published when the slot closes.
    record = present_heists.replay_record(game, snapshot.nights, seed_pending=True)
    history = view["history"]
    asked = request.GET.get("night", "1")
    night = int(asked) if _COUNT.fullmatch(asked) else 1
    night = min(max(night, 1), max(len(history), 1))
    current = history[night - 1] if history else None
    engine = next(
        (n.get("result") for n in record.get("nights", []) if n.get("night") == night), None
    )
    ruleset = get_ruleset(game.ruleset)
    hands = pages.replay_hands(record, ruleset).get(night)
    return render(
        request,
        "game/replay.html",
        {
            "view": view,
            "record": record,
            "night": night,
            "count": len(history),
            "current": pages.replay_night(current, ruleset, engine) if current else None,
            "hands": hands,
            "history": history,
            "urls": _urls(heist_id),
            "shared": shared,
            # A shared replay's steps keep the link's token, so a visitor can step through it.
            "step_query": f"share={quote(request.GET['share'][:200])}&" if shared else "",
        },
    )


# --- Featured heists ----------------------------------------------------------------------------


def _featured_home(ruleset):
    """The home page's featured block (templates/game/_featured_home.html): the slot in play."""
    now = timezone.now()
    slot = featured_selectors.slot_current(now=now)
    return present_featured.slot_card(slot, ruleset, now) if slot else None


def featured(request, slug=None):
    """A featured slot (the one in play at /featured/, any other at /featured/<slug>/): its
    heist, rules, leaderboard, your place and heists, and the latest closed slots with their
    winners. A closed slot's page shows its published seed and links every heist on its board
    to its replay record, for anyone to verify."""
    now = timezone.now()
    if slug is None:
        slot = featured_selectors.slot_current(now=now)
    else:
        slot = featured_selectors.slot_get(slug=slug)
        if slot is None:
            raise Http404("There is no such featured heist.")
    owner = owner_from_request(request)
    context = {
        "rules": text.featured_rules(
            slot_minutes=settings.FEATURED_SLOT_MINUTES,
            ranked_finish=catalogue.active().prizes.ranked_finish,
            top=catalogue.active().prizes.top,
        ),
        "past": [
            present_featured.slot_card(s, get_ruleset(s.ruleset), now)
            for s in featured_selectors.slots_past()
        ],
        "next": featured_selectors.slot_next(now=now),
        "slot": None,
    }
    if slot is not None:
        ranked_used = owner.user_id is not None and any(
            h.ranked for h in featured_selectors.slot_heists(slot=slot, owner=owner)
        )
        context.update(
            {
                "slot": present_featured.slot_card(slot, get_ruleset(slot.ruleset), now),
                # Only once closed: the one page that shows a slot's seed.
                "server_seed": slot.server_seed if slot.closed_at is not None else None,
                "entries": present_featured.entry_rows(
                    featured_selectors.leaderboard_top(slot=slot)
                ),
                "you": featured_selectors.player_standing(slot=slot, user_id=owner.user_id),
                "mine": featured_selectors.slot_heists(slot=slot, owner=owner),
                "signed_in": owner.user_id is not None,
                "ranked_used": ranked_used,
            }
        )
    return render(request, "game/featured.html", context)


@adult_required
@require_http_methods(["GET", "POST"])
def featured_play(request, slug):
    """Start the slot's heist from a page (the same service as POST
    /api/v1/featured/{slug}/heists/, with the same limits) and open its board. A GET (back
    from the age check) shows the slot's page, where Play posts."""
    if request.method == "GET":
        return redirect("featured-slot", slug=slug)
    wait = throttling.hit("featured_start", request)
    if wait is not None:
        # 429 `rate_limited` with Retry-After, as every limited door answers.
        return throttling.too_many_requests(request, wait)
    try:
        snapshot = featured_heist_start(owner=owner_from_request(request), slug=slug)
    except ApplicationError as exc:
        if exc.status_code == 404:
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
        return redirect("featured")
    return redirect("heist", heist_id=snapshot.heist.pk)
