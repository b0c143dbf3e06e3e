"""The rival's worker keeps the player model's work from one night of a heist to the next
(issue 29: the rival's CPU per turn), and plays the same plans as a rival that starts afresh."""

from __future__ import annotations

import random

import pytest

from game.engine import RIVAL, observe, rival_stream
from game.models import HeistNight
from game.rivals import playermodel
from game.rivals.policy import choose_plan
from game.selectors.heists import heist_load_any, heist_states
from game.services import rivals
from tests.support.heists import crew_costs, legal_plan, post, start

pytestmark = pytest.mark.django_db


def test_a_heists_rival_turns_share_the_player_models_work(guest, settings, monkeypatch):
    settings.RIVAL_FALLBACK_SECONDS = 600  # the rival seals when this test says so
    cache = playermodel.FitsCache()
    monkeypatch.setattr(rivals, "_player_fits", cache)
    asked = []
    fits = cache.fits
    monkeypatch.setattr(cache, "fits", lambda key, obs: asked.append(key) or fits(key, obs))
    made = []  # per HeistFits made: True when it kept an earlier night's work
    real_init = playermodel.HeistFits.__init__

    def counted(self, latest, earlier=None):
        made.append(earlier is not None)
        real_init(self, latest, earlier)

    monkeypatch.setattr(playermodel.HeistFits, "__init__", counted)

    view = start(guest, difficulty="kingpin")
    heist_id = view["id"]
    costs, rng = crew_costs(), random.Random(3)
    while True:
        assert rivals.rival_plan_seal(heist_id=heist_id, night=view["night"])
        view = guest.get(f"/api/v1/heists/{heist_id}/").json()
        answer = post(guest, f"/api/v1/heists/{heist_id}/seal/", legal_plan(view, rng, costs))
        assert answer.status_code == 200
        view = answer.json()["heist"]
        if view["status"] != "active":
            break
        # Between nights the worker holds this heist's work.
        assert len(cache) == 1

    # One lookup a night by the heist's id; made afresh on night 1 only, advanced after.
    snapshot = heist_load_any(heist_id=heist_id)
    assert asked == [snapshot.heist.pk] * 6
    assert made == [False, True, True, True, True, True]
    assert len(cache) == 0  # dropped after the heist's last night

    # Every plan the worker sealed is the level's plan worked out from scratch.
    states = heist_states(snapshot.heist, snapshot.nights)
    rows = HeistNight.objects.filter(heist_id=heist_id).order_by("night")
    for state, row in zip(states, rows, strict=False):
        alone = choose_plan(
            observe(state, RIVAL),
            persona=snapshot.heist.rival,
            difficulty="kingpin",
            stream=rival_stream(state.key, row.night),
        )
        assert alone.to_dict() == row.rival_plan
