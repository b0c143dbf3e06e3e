"""How one seal request travels through the layers: the view calls one service, which reads the
heist through one selector, and the answer is built by the presenters (issue 11: it used to enter
the services four times and the selectors three). Counted by a profiler hook: an entry is a call
into a module of the layer from code outside it."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from tests.game.conftest import post, start

pytestmark = pytest.mark.django_db

LAYERS = ("game.services", "game.selectors")


def _layer(module: str) -> str | None:
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def entries(call) -> tuple[object, Counter]:
    counts: Counter = Counter()

    def profile(frame, event, arg):
        if event != "call":
            return
        layer = _layer(frame.f_globals.get("__name__", ""))
        if layer is None:
            return
        caller = frame.f_back
        if caller is not None and _layer(caller.f_globals.get("__name__", "")) == layer:
            return
        counts[layer] += 1

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, counts


def test_one_seal_enters_the_services_once_and_the_selectors_once(guest):
    view = start(guest)
    # The board's poll seals the rival's night first (RIVAL_FALLBACK_SECONDS is 0 here).
    view = guest.get(f"/api/v1/heists/{view['id']}/").json()
    assert view["phase"] == "planning"
    body = {"night": 1, "crew": [], "boost": False}
    answer, counts = entries(lambda: post(guest, f"/api/v1/heists/{view['id']}/seal/", body))
    assert answer.status_code == 200, answer.content
    print(f"\nseal request entries: {dict(counts)}")
    assert counts == {"game.services": 1, "game.selectors": 1}
