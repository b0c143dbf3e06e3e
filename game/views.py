"""Pages. Server-rendered; the heist board itself is static/js/board.js talking to the JSON API.

Pages read through selectors and the rivals/engine data, never the models directly, and hold no
rules: deck legality is the engine's validate_deck, the same check the API runs.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.decorators import adult_required
from accounts.guest import guest_id
from game import selectors, services
from game.engine.errors import DeckError
from game.engine.rules import get_ruleset, validate_deck
from game.rivals.personas import get_persona, list_difficulties, list_personas
from game.selectors import Owner, crew_catalogue
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError

# A guest keeps one deck in the session (issue 6); signed-in players save named decks
# (SavedDeck, through services.deck_save).
SESSION_DECK = "veyltak_deck"
SAVED = "saved:"  # the picker's value for a saved deck: "saved:<id>"


# --- helpers ----------------------------------------------------------------------------------


def _crew_rows(ruleset):
    return [
        {"slug": c.slug, "name": c.name, "cost": c.cost, "power": c.power, "text": c.text}
        for c in ruleset.crew.values()
    ]


def _deck_summary(ruleset, deck):
    """[(count, name)] in ruleset order: how a public decklist is shown."""
    counts = Counter(deck)
    return [(counts[s], c.name) for s, c in ruleset.crew.items() if counts[s]]


def _join_nights(nights) -> str:
    nights = sorted(nights)
    if not nights:
        return "no night"
    if len(nights) > 2 and nights == list(range(nights[0], nights[-1] + 1)):
        return f"nights {nights[0]} to {nights[-1]}"
    if len(nights) == 1:
        return f"night {nights[0]}"
    return "nights " + ", ".join(str(n) for n in nights[:-1]) + f" and {nights[-1]}"


def describe_modifiers(modifiers, ruleset) -> list[str]:
    """An encounter's modifiers in full, as sentences (RULES.md: disclosed before play)."""
    if not modifiers:
        return []
    lines = []
    who = {"player": "You start", "you": "You start", "rival": "The rival starts"}
    for side, heat in (modifiers.get("start_heat") or {}).items():
        lines.append(f"{who.get(side, side)} at Heat {heat} (Energy {ruleset.energy_at(heat)}).")
    names = {v.slug: v.name for v in ruleset.vaults}
    for mod in modifiers.get("vault_mods") or []:
        vault = names.get(mod.get("vault"), mod.get("vault"))
        when = _join_nights(mod.get("nights") or [])
        kind, amount = mod.get("kind"), mod.get("amount", 0)
        text = {
            "fixed": f"{vault}: loot is fixed at {amount} on {when}.",
            "raise": f"{vault}: loot is raised by {amount} on {when}.",
            "double": f"{vault}: loot is doubled on {when}.",
            "closed": f"{vault} is closed on {when}: no crew may be sent there.",
        }.get(kind, f"{vault}: {kind} {amount} on {when}.")
        lines.append(text)
    return lines


def _encounters(ruleset):
    """Encounters with their modifiers as sentences, for the picker."""
    return [
        dict(e, lines=describe_modifiers(e["modifiers"], ruleset))
        for e in selectors.encounter_list()
    ]


def _saved_decks(request, ruleset):
    """A signed-in player's saved decks for a page: each with its summary and whether the
    current ruleset still accepts it."""
    return [
        {
            "id": d.pk,
            "name": d.name,
            "cards": list(d.cards),
            "choice": f"{SAVED}{d.pk}",
            "summary": _deck_summary(ruleset, d.cards),
            "legal": selectors.saved_deck_playable(d, ruleset=ruleset.version),
            "updated_at": d.updated_at,
        }
        for d in selectors.saved_decks(user=request.user)
    ]


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
    featured = getattr(selectors, "featured_heist", None)  # the featured-heist rotation, when built
    return render(
        request,
        "home.html",
        {
            "crew": crew_catalogue(),
            "featured": featured() if featured else None,
            "ruleset": get_ruleset(),
        },
    )


@adult_required
@require_http_methods(["GET", "POST"])
def play(request):
    """The rival picker: rival, difficulty, encounter, deck, Start."""
    ruleset = get_ruleset()
    personas = list_personas()
    difficulties = list_difficulties()
    encounters = _encounters(ruleset)
    my_deck = _session_deck(request, ruleset)
    saved = [d for d in _saved_decks(request, ruleset) if d["legal"]]
    starters = selectors.deck_list()
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
            deck = next((d["deck"] for d in starters if d["slug"] == chosen["deck"]), None)
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
            "deck": _deck_summary(ruleset, p.deck),
            "emblem": f"images/emblems/{p.slug}.svg",
        }
        for p in personas
    ]
    response = render(
        request,
        "game/play.html",
        {
            "rivals": rivals,
            "difficulties": difficulties,
            "encounters": encounters,
            "chosen": chosen,
            "my_deck": _deck_summary(ruleset, my_deck) if my_deck else None,
            "saved_decks": saved,
            "starters": [dict(d, summary=_deck_summary(ruleset, d["deck"])) for d in starters],
            "error": error,
            "active_max": settings.HEIST_ACTIVE_MAX,
        },
        status=429 if wait else 400 if error else 200,
    )
    if wait:
        response["Retry-After"] = str(wait)
    return response


_CHOICE_MAX = 64  # the longest slug or choice a page posts (the API's own bound)


def _choice(request, name: str) -> str:
    """A picker value from the form or the query, cut to the length of a slug: an overlong one
    is refused as unknown, and no echo of a client's text in an error is larger than that."""
    return (request.POST.get(name) or request.GET.get(name) or "")[:_CHOICE_MAX]


def _owner(request) -> Owner:
    if request.user.is_authenticated:
        return Owner(user_id=request.user.pk, guest_id=guest_id(request))
    return Owner(user_id=None, guest_id=guest_id(request))


def _start_heist(request, *, rival, difficulty, deck, encounter):
    """Start a heist through the heist service (the same one POST /api/v1/heists/ calls)."""
    snapshot = services.heist_start(
        owner=_owner(request), rival=rival, difficulty=difficulty, deck=deck, encounter=encounter
    )
    return snapshot.heist.pk


@require_http_methods(["GET", "POST"])
def deck(request):
    """The Heist board: build a 12-card deck. Guests keep one in the session; signed-in players
    save it under a name (services.deck_save) and load or delete their saved decks here."""
    ruleset = get_ruleset()
    crew = _crew_rows(ruleset)
    starters = [
        {"slug": d["slug"], "name": d["name"], "deck": d["deck"]} for d in selectors.deck_list()
    ] + [
        {"slug": p.slug, "name": f"{p.name}'s deck", "deck": list(p.deck)} for p in list_personas()
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
            reason = _adjust(counts, slug, op, ruleset, crew)
        elif action.startswith("delete:") and signed_in:
            reason = _delete_saved(request, action.removeprefix("delete:"), mine)
            mine = _saved_decks(request, ruleset)
        elif action == "save":
            # Every count is 0..max_copies by now; the total is checked before the list exists.
            reason = _deck_reason(counts, ruleset)
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
                        deck_row, _ = services.deck_save(
                            user=request.user, name=name, cards=deck_list
                        )
                    except ApplicationError as exc:
                        reason = exc.message
                    else:
                        messages.success(
                            request, f"Deck “{deck_row.name}” saved. Pick it in the rival picker."
                        )
                        return redirect(f"{reverse('deck')}?load={deck_row.pk}")
                else:
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
            "reason": reason or _deck_reason(counts, ruleset),
            "legal": _deck_reason(counts, ruleset) is None,
            "starters": starters,
            "saved": saved is not None,
            "saved_decks": mine,
            "loaded": loaded if request.method == "GET" else None,
            "saved_max": services.SAVED_DECKS_MAX,
            "name": name,
            "name_max": services.DECK_NAME_MAX,
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
            reason = reason or (
                f"The count of {row['name']} must be a whole number from 0 to {ruleset.max_copies}."
            )
            continue
        n = int(raw)
        if n > ruleset.max_copies:
            reason = reason or f"At most {ruleset.max_copies} copies of {row['name']}."
            n = ruleset.max_copies
        counts[row["slug"]] = n
    return counts, reason


def _delete_saved(request, deck_id, mine):
    """Delete one of the player's saved decks; returns why it was refused, if it was."""
    deck_row = next((d for d in mine if str(d["id"]) == deck_id), None)
    try:
        services.deck_delete(user=request.user, name_or_id=int(deck_id))
    except (ValueError, ApplicationError):
        return "There is no such saved deck."
    messages.success(request, f"Deck “{deck_row['name'] if deck_row else deck_id}” deleted.")
    return None


def _adjust(counts, slug, op, ruleset, crew):
    """One + or - press without JavaScript; returns why it was refused, if it was."""
    names = {row["slug"]: row["name"] for row in crew}
    if slug not in names:
        return "There is no such crew."
    if op == "remove":
        counts[slug] = max(0, counts[slug] - 1)
        return None
    if counts[slug] >= ruleset.max_copies:
        return f"At most {ruleset.max_copies} copies of {names[slug]}."
    if sum(counts.values()) >= ruleset.deck_size:
        return f"Your deck already has {ruleset.deck_size} cards: take one out first."
    counts[slug] += 1
    return None


def _deck_reason(counts, ruleset):
    """Why the deck is not legal yet, for a person; None when it is."""
    total = sum(counts.values())
    over = [s for s, n in counts.items() if n > ruleset.max_copies]
    if over:
        name = ruleset.crew[over[0]].name
        return f"At most {ruleset.max_copies} copies of {name}."
    size = ruleset.deck_size
    if total < size:
        missing = size - total
        return f"Add {missing} more card{'s' if missing != 1 else ''} to make {size}."
    if total > size:
        return f"Take out {total - size}: a deck has exactly {size} cards."
    return None


def _rules_json(ruleset) -> str:
    """The ruleset numbers and names the board needs, for its data-rules attribute."""
    return json.dumps(
        {
            "version": ruleset.version,
            "nights": ruleset.nights,
            "max_crew": ruleset.max_crew,
            "heat_max": ruleset.heat_max,
            "boost_lock_heat": ruleset.boost_lock_heat,
            "boost_power": ruleset.boost_power,
            "boost_heat": ruleset.boost_heat,
            "energy_by_heat": list(ruleset.energy_by_heat),
            "vaults": [{"slug": v.slug, "name": v.name} for v in ruleset.vaults],
            "crew": {
                c.slug: {"name": c.name, "cost": c.cost, "power": c.power, "text": c.text}
                for c in ruleset.crew.values()
            },
        },
        separators=(",", ":"),
    )


def _owned_heist(request, heist_id):
    """The player's own heist, or 404 (another player's heist is a 404 too, as in the API)."""
    try:
        return selectors.heist_get(heist_id=heist_id, owner=_owner(request))
    except ApplicationError as exc:
        raise Http404(exc.message) from None


def _urls(heist_id):
    return {
        "board": reverse("heist", kwargs={"heist_id": heist_id}),
        "result": reverse("heist-result", kwargs={"heist_id": heist_id}),
        "replay": reverse("heist-replay", kwargs={"heist_id": heist_id}),
    }


@adult_required
def heist(request, heist_id):
    """The heist board. The page is a frame: board.js fills it from GET /api/v1/heists/{id}/."""
    game = _owned_heist(request, heist_id)
    if game.is_closed:
        return redirect("heist-result", heist_id=heist_id)
    ruleset = get_ruleset(game.ruleset)
    return render(
        request,
        "game/board.html",
        {
            "heist_id": heist_id,
            "api": "/api/v1/",
            "rules_json": _rules_json(ruleset),
            "rival_name": get_persona(game.rival).name,
            "night": game.night,
            "nights": ruleset.nights,
            "urls": _urls(heist_id),
        },
    )


_OUTCOME_TEXT = {"win": "You win", "loss": "The rival wins", "draw": "A draw"}


@adult_required
def heist_result(request, heist_id):
    """Outcome, final score, Signs, rematch and the replay link."""
    game = _owned_heist(request, heist_id)
    if not game.is_closed:
        return redirect("heist", heist_id=heist_id)
    view = selectors.heist_view(game)
    result = view["result"]
    nights = [
        {
            "night": n["night"],
            "you": sum(v["loot"] for v in n["vaults"] if v["winner"] == "you"),
            "rival": sum(v["loot"] for v in n["vaults"] if v["winner"] == "rival"),
            "score": n["score"],
        }
        for n in view["history"]
    ]
    return render(
        request,
        "game/result.html",
        {
            "view": view,
            "result": result,
            "outcome": _OUTCOME_TEXT.get(result["outcome"], "Over") if result else "Abandoned",
            # Why no Signs, when none (guest, daily limit, abandoned): the page says it.
            "signs_reason": game.signs_reason,
            "nights": nights,
            "difficulties": list_difficulties(),
            "urls": _urls(heist_id),
        },
    )


@adult_required
def heist_replay(request, heist_id):
    """Step through the nights of a finished heist, one night per page (?night=N)."""
    game = _owned_heist(request, heist_id)
    if not game.is_closed:
        return redirect("heist", heist_id=heist_id)
    view = selectors.heist_view(game)
    record = selectors.heist_replay(game)
    history = view["history"]
    asked = request.GET.get("night", "1")
    night = int(asked) if _COUNT.fullmatch(asked) else 1
    night = min(max(night, 1), max(len(history), 1))
    current = history[night - 1] if history else None
    engine = next(
        (n.get("result") for n in record.get("nights", []) if n.get("night") == night), None
    )
    ruleset = get_ruleset(game.ruleset)
    return render(
        request,
        "game/replay.html",
        {
            "view": view,
            "record": record,
            "night": night,
            "count": len(history),
            "current": _replay_night(current, ruleset, engine) if current else None,
            "history": history,
            "urls": _urls(heist_id),
        },
    )


_SWAP = re.compile(r"\bthe rival's\b|\bthe rival\b|\byour\b|\byou\b")
_SWAPPED = {"the rival's": "your", "the rival": "you", "your": "its", "you": "it"}


def _from_rival_side(reason: str) -> str:
    """A condition as the engine words it for its owner, reworded for the rival's own crew."""
    return _SWAP.sub(lambda m: _SWAPPED[m.group(0)], reason)


def _parts(entry, *, rival: bool) -> str:
    """An engine breakdown as one line: base 1 · Boost +2 · bonus +2 (you Boosted)."""
    words = []
    for part in entry.get("breakdown", []):
        amount = f"{part['amount']:+d}" if part["kind"] != "base" else str(part["amount"])
        if part["kind"] == "bonus":
            why = part.get("reason", "").split(": ", 1)[-1]
            words.append(f"bonus {amount} ({_from_rival_side(why) if rival else why})")
        else:
            words.append(
                f"{part['kind'].capitalize() if part['kind'] == 'boost' else 'base'} {amount}"
            )
    return " · ".join(words)


def _replay_night(result, ruleset, engine=None):
    """One night of a finished heist, arranged per vault for the replay page. ``engine`` is the
    replay record's copy of the night (with each crew's power breakdown), when there is one."""
    name = {c.slug: c.name for c in ruleset.crew.values()}
    engine_crew = {
        side: (engine or {}).get(key, {}).get("crew", [])
        for side, key in (("you", "player"), ("rival", "rival"))
    }

    def rows(side, vault):
        out = []
        for i, c in enumerate(result[side]["crew"]):
            if c["vault"] != vault:
                continue
            detail = engine_crew[side][i] if i < len(engine_crew[side]) else {}
            out.append(
                {
                    "name": name.get(c["crew"], c["crew"]),
                    "power": c["power"],
                    "parts": _parts(detail, rival=side == "rival"),
                }
            )
        return out

    vaults = [
        {
            "name": ruleset.vault_name(v["slug"]),
            "loot": result["loot"].get(v["slug"], v["loot"]),
            "you_power": v["you_power"],
            "rival_power": v["rival_power"],
            "winner": v["winner"],
            "won": v["loot"],
            "you": rows("you", v["slug"]),
            "rival": rows("rival", v["slug"]),
        }
        for v in result["vaults"]
    ]
    return dict(result, vault_rows=vaults)
