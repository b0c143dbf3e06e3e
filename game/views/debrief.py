"""The debrief on the pages (DESIGN.md section 10): what the result and replay pages show of it,
and "Try this night again" from them. Only the heist's owner ever sees a debrief: the pages
that show it are the owner's (a shared replay shows none)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from accounts.decorators import adult_required
from game.engine import get_ruleset
from game.models import Heist
from game.owners import owner_from_request
from game.presenters import debrief as present_debrief
from game.services.debriefs import debrief_ready
from game.services.practice import heist_retry
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError, try_again

_NIGHT = re.compile(r"[0-9]{1,3}")


def debrief_context(request, game: Heist) -> dict[str, Any]:
    """``debrief``: the page's debrief (None until there is one); ``debrief_state``: ``ready``,
    ``pending`` (being worked out: the page asks again), ``slot_open`` (a featured heist whose
    slot is open) or None (nothing to debrief: an abandoned heist)."""
    try:
        found = debrief_ready(heist_id=game.pk, owner=owner_from_request(request))
    except ApplicationError as exc:
        state = "slot_open" if exc.code == "slot_open" else None
        return {"debrief": None, "debrief_state": state}
    if found is None:
        return {"debrief": None, "debrief_state": "pending"}
    page = present_debrief.debrief_page(found, get_ruleset(game.ruleset))
    return {"debrief": page, "debrief_state": "ready"}


@adult_required
@require_POST
def heist_retry_page(request, heist_id):
    """Try a night again (the result and replay pages' buttons): a practice heist from that
    night's position, then its board; a refusal goes back to the result page and says why."""
    wait = throttling.hit("heist_start", request)
    if wait is not None:
        messages.error(
            request, f"You have started a lot of heists in a short time: {try_again(wait)}."
        )
        return redirect("heist-result", heist_id=heist_id)
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    night = request.POST.get("night", "")
    try:
        snapshot = heist_retry(
            heist_id=heist_id,
            owner=owner_from_request(request),
            night=int(night) if _NIGHT.fullmatch(night) else 0,
        )
    except ApplicationError as exc:
        if exc.status_code == 404:
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
        return redirect("heist-result", heist_id=heist_id)
    return redirect("heist", heist_id=snapshot.heist.pk)
