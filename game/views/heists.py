"""A heist's pages: the board (a frame board.js fills from the API, with the board's data for its
ruleset at its own cached address), the result and the replay (its player's, or anyone's holding
its share link)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

from django.core import signing
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from accounts.decorators import adult_required
from game.engine import RulesetError, get_ruleset
from game.owners import owner_from_request
from game.presenters import board as present_board
from game.presenters import heists as present_heists
from game.presenters import pages
from game.presenters import rating as present_rating
from game.presenters import replay as present_replay
from game.selectors import catalogue as catalogue_selectors
from game.selectors.challenges import seed_in_play
from game.selectors.heists import heist_get, heist_load_any, heist_snapshot
from game.views.challenges import challenge_board_note, challenge_context
from game.views.debrief import debrief_context
from game.views.jobs import jobs_for
from shop import selectors as shop_selectors
from veyltak_site.exceptions import ApplicationError

# A night number asked for in the replay's query: at most three digits.
_NIGHT = re.compile(r"[0-9]{1,3}")


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
            "practice": {"night": game.practice_night, "of": game.practice_of_id}
            if game.is_practice
            else None,
            "challenge_from": challenge_board_note(game),
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
    # Someone playing a heist of this seed (a challenge of it, or of the heist it answers or
    # retries) would see their own hands and loot: not until they finish.
    if seed_in_play(heist=game, owner=owner_from_request(request)):
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
    debrief = debrief_context(request, game)
    shown = debrief["debrief"]
    share_text = (
        pages.share_text(
            outcome,
            view["rival"]["name"],
            view["you"]["score"],
            view["rival"]["score"],
            grid=shown["grid"] if shown else "",
            accuracy=shown["accuracy"] if shown else None,
        )
        if share_url
        else ""
    )
    return render(
        request,
        "game/result.html",
        {
            **debrief,
            **challenge_context(request, game),
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
            "share_text": share_text,
            # Around the grid, so the page can draw its marks (the copied text keeps them).
            "share_parts": share_text.split(shown["grid"], 1) if shown and share_text else None,
            # Why no Signs, when none (guest, daily limit, abandoned): the page says it.
            "signs_reason": game.signs_reason,
            # Every Sign it paid, by reason, read from the ledger itself.
            "signs_paid": _signs_paid(request, game),
            "rating": present_rating.result_rating(game, signed_in=request.user.is_authenticated),
            "jobs": jobs_for(request.user),
            "urls": _urls(heist_id),
        },
    )


def _signs_paid(request, game):
    """The ledger's lines about this heist for its player: its award and featured bonus
    (``heist:<id>``) and, once its slot has closed with it on the podium, its place's prize."""
    references = [f"heist:{game.pk}"]
    place, slot_name = None, ""
    if game.featured_slot_id is not None and game.featured_slot.closed_at is not None:
        slot = game.featured_slot
        place = next((w for w in slot.winners or [] if w.get("heist") == str(game.pk)), None)
        if place is not None:
            references.append(f"featured:{slot.slug}")
            slot_name = slot.name
    entries = shop_selectors.wallet_entries_about(user=request.user, references=references)
    return pages.signs_paid(entries, place=place, slot_name=slot_name)


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
    record = present_replay.replay_record(game, snapshot.nights, seed_pending=True)
    history = view["history"]
    asked = request.GET.get("night", "1")
    night = int(asked) if _NIGHT.fullmatch(asked) else 1
    night = min(max(night, 1), max(len(history), 1))
    current = history[night - 1] if history else None
    engine = next(
        (n.get("result") for n in record.get("nights", []) if n.get("night") == night),
        # A practice retry's earlier nights are in its start's history.
        next(
            (r for r in (record.get("start") or {}).get("history", []) if r["night"] == night),
            None,
        ),
    )
    ruleset = get_ruleset(game.ruleset)
    hands = pages.replay_hands(record, ruleset).get(night)
    # The debrief is its owner's alone: a shared replay shows none.
    debrief = debrief_context(request, game) if not shared else {"debrief": None}
    review = debrief["debrief"]["by_night"].get(night) if debrief["debrief"] else None
    return render(
        request,
        "game/replay.html",
        {
            **debrief,
            **(challenge_context(request, game) if not shared else {"challenge_section": None}),
            "review": review,
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
