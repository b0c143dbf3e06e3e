"""Each process keeps the engine state after a heist's resolved nights (issue 29: a seal, the
board's next read and the rival's next turn had each rebuilt the heist from its start): the
state kept is the rebuilt one, a night costs one resolve, and a night resolved in a rolled-back
transaction never lends its state to the night's real resolution."""

from __future__ import annotations

import dataclasses
import random

import pytest

from game.kept import Kept
from game.models import HeistNight
from game.selectors import heists as heist_selectors
from game.selectors.heists import heist_load_any, heist_state, heist_states
from tests.support.heists import crew_costs, legal_plan, seal, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def kept(monkeypatch):
    """An empty memory of states for the test, and a count of rebuilds from the start."""
    monkeypatch.setattr(heist_selectors, "_states_kept", Kept(1024))
    rebuilt = []
    real = heist_selectors.heist_states
    monkeypatch.setattr(heist_selectors, "heist_states", lambda *a: rebuilt.append(1) or real(*a))
    return rebuilt


def test_a_heist_played_in_one_process_is_never_rebuilt_from_its_start(guest, kept):
    view = start(guest)
    assert kept == []  # the start kept the state it dealt
    costs, rng = crew_costs(), random.Random(5)
    while view["status"] == "active":
        # The board's read (which seals the rival's night here), then the seal.
        response = seal(guest, view["id"], legal_plan(view, rng, costs))
        assert response.status_code == 200
        view = response.json()["heist"]
        # The board's next read (the rival's next night sealed by the view, here).
        assert guest.get(f"/api/v1/heists/{view['id']}/").json()["night"] == view["night"]
    assert kept == []

    # Every state kept is the one rebuilt from the heist's start.
    snapshot = heist_load_any(heist_id=view["id"])
    states = heist_states(snapshot.heist, snapshot.nights)
    for n in range(len(snapshot.nights) + 1):
        assert heist_state(snapshot.heist, snapshot.nights[:n]) == states[n]


def test_a_night_resolved_then_rolled_back_lends_nothing(guest, kept):
    view = start(guest)
    costs, rng = crew_costs(), random.Random(6)
    response = seal(guest, view["id"], legal_plan(view, rng, costs))
    assert response.status_code == 200
    snapshot = heist_load_any(heist_id=view["id"])
    heist, nights = snapshot.heist, snapshot.nights
    real = heist_states(heist, nights)
    # A resolution of night 1 that was rolled back: its own moment, another state kept.
    undone = dataclasses.replace(real[0], night=99)
    ghost = HeistNight(
        **{**{f.attname: getattr(nights[0], f.attname) for f in HeistNight._meta.concrete_fields}}
    )
    ghost.resolved_at = nights[0].resolved_at.replace(
        microsecond=(nights[0].resolved_at.microsecond + 1) % 10**6
    )
    heist_selectors.heist_state_keep(heist, [ghost, nights[1]], undone)
    assert heist_state(heist, nights) == real[-1]
    assert heist_state(heist, [ghost, nights[1]]) == undone  # only under its own moment
