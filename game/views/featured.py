"""Featured heists' pages: a slot with its leaderboard (/featured/), its Play, and the home
page's block."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.decorators import adult_required
from game import catalogue
from game.engine import get_ruleset
from game.owners import owner_from_request
from game.presenters import featured as present_featured
from game.presenters import words
from game.selectors import featured as featured_selectors
from game.services.featured import featured_heist_start
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError


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
        slot = featured_selectors.slot_shown(slug=slug, now=now)
        if slot is None:
            raise Http404("There is no such featured heist.")
    owner = owner_from_request(request)
    context = {
        "rules": words.featured_rules(
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
