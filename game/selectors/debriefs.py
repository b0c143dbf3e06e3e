"""Reads around heist debriefs: whether a heist may be debriefed or retried yet."""

from __future__ import annotations

from game.models import Heist
from veyltak_site.exceptions import ApplicationError


def closed_heist_check(heist: Heist) -> None:
    """What the debrief and a retry need: a finished heist, and a featured one only once its
    slot has closed (its debrief and its retries would teach everyone the slot's heist)."""
    if heist.status == Heist.Status.ACTIVE:
        raise ApplicationError("heist_active", "This heist is still being played.", status_code=409)
    if heist.status == Heist.Status.ABANDONED:
        raise ApplicationError(
            "heist_abandoned", "This heist was abandoned before its end.", status_code=409
        )
    slot = heist.featured_slot
    if slot is not None and not slot.is_closed:
        raise ApplicationError(
            "slot_open",
            "This featured heist's slot is still open: its debrief and retries wait until "
            "it closes.",
            status_code=409,
        )
