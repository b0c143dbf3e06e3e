"""Secrets never leave the server early. Over 200 full heists through the API, every response
body and header is scanned: no rival nonce before its reveal, no server seed (or heist key)
before the end, no field that could carry the rival's hand or either deck's order, no future
night's loot.

The view is checked two ways: every JSON path must be on an allow-list (a new field cannot
smuggle anything out unnoticed), and each field that could hold a secret holds exactly the
public truth, recomputed from the engine (the rival's decklist, its discard pile, this night's
loot). The scanner is tests/support/secrets.py's (the challenge tests use it too).
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from game.models import Heist, HeistNight
from game.rivals.personas import get_persona
from game.tasks import plan_rival_night
from tests.support.heists import crew_costs, legal_plan, play_out, post, start
from tests.support.secrets import Scanner

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HEISTS = int(__import__("os").environ.get("SECRETS_HEISTS", "200"))


def test_no_secret_leaves_early_over_200_heists():
    rng = random.Random(2026)
    costs = crew_costs()
    rivals = [p.slug for p in (get_persona(s) for s in ("furnace", "quiet-hands"))]
    rivals += ["the-reader", "split-circuit"]
    # The policy does not matter here (it only ever sees its observation): the quick levels.
    difficulties = ["rookie", "hustler"]
    encounters = [None, "hot-start", "crown-finale", "tower-blackout", "ledger-night", "overtime"]
    decks = [None, "live-wire", "shadow-play"]
    from django.test import Client

    from tests.support.heists import ADULT_BIRTH_DATE

    scanner = Scanner()
    combos = itertools.cycle(itertools.product(rivals, difficulties))
    for i in range(HEISTS):
        client = Client()
        assert (
            post(client, "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE}).status_code == 200
        )
        rival, difficulty = next(combos)
        body = {"rival": rival, "difficulty": difficulty, "client_seed": f"seed-{i}"}
        if enc := encounters[i % len(encounters)]:
            body["encounter"] = enc
        if deck_slug := decks[i % len(decks)]:
            body["deck"] = next(
                d["deck"] for d in client.get("/api/v1/decks/").json() if d["slug"] == deck_slug
            )
        response = post(client, "/api/v1/heists/", body)
        assert response.status_code == 201, response.content
        heist_id = response.json()["id"]
        scanner.check(response, heist_id)
        view = response.json()
        while view["status"] == "active":
            # Half the nights the "worker" seals before the player looks (the commitment and a
            # secret nonce are then stored while the view is served); the other half the
            # fallback seals at the player's seal.
            if rng.random() < 0.5:
                plan_rival_night(heist_id, view["night"])
            response = client.get(f"/api/v1/heists/{heist_id}/")
            scanner.check(response, heist_id)
            view = response.json()
            response = post(
                client, f"/api/v1/heists/{heist_id}/seal/", legal_plan(view, rng, costs)
            )
            assert response.status_code == 200, response.content
            scanner.check(response, heist_id)
            view = response.json()["heist"]
        assert view["status"] == "finished"
    assert Heist.objects.filter(status="finished").count() == HEISTS
    assert HeistNight.objects.filter(result__isnull=False).count() == HEISTS * 6
    assert scanner.responses == HEISTS * 13


def test_no_secret_leaves_a_practice_retry_early(guest):
    """A retry plays its original's seeds from a stored position: nothing of what is still
    hidden in the retry (the rival's hand and sealed plan, later loot) shows before its end."""
    rng = random.Random(25)
    costs = crew_costs()
    scanner = Scanner()
    for i in range(12):
        first = play_out(guest, start(guest, rival="split-circuit", difficulty="hustler"), seed=i)
        response = post(guest, f"/api/v1/heists/{first['id']}/retry/", {"night": 1 + i % 6})
        assert response.status_code == 201, response.content
        heist_id = response.json()["id"]
        scanner.check(response, heist_id)
        view = response.json()
        while view["status"] == "active":
            if rng.random() < 0.5:
                plan_rival_night(heist_id, view["night"])
            response = guest.get(f"/api/v1/heists/{heist_id}/")
            scanner.check(response, heist_id)
            view = response.json()
            response = post(guest, f"/api/v1/heists/{heist_id}/seal/", legal_plan(view, rng, costs))
            assert response.status_code == 200, response.content
            scanner.check(response, heist_id)
            view = response.json()["heist"]
        assert view["practice_of"]["compared"]


def test_scanner_catches_a_leak(guest):
    """The scanner is not blind: a view that carried the rival's hand, or a secret, fails it."""
    view = start(guest)
    plan_rival_night(view["id"], 1)
    response = guest.get(f"/api/v1/heists/{view['id']}/")
    Scanner().check(response, view["id"])
    heist = Heist.objects.get(pk=view["id"])
    night = heist.nights.get(night=1)

    class Fake:
        def __init__(self, data, extra_header=""):
            self.content = json.dumps(data).encode()
            self.headers = {"X-Debug": extra_header}
            self.cookies = response.cookies
            self._data = data

        def json(self):
            return self._data

    leaks = [
        Fake({**view, "rival": {**view["rival"], "hand": [{"card": 0, "crew": "spark"}]}}),
        Fake(view, extra_header=night.rival_nonce),
        Fake({**view, "debug": heist.server_seed}),
    ]
    for leak in leaks:
        with pytest.raises(AssertionError):
            Scanner().check(leak, view["id"])
    assert re.fullmatch(r"[0-9a-f]{64}", night.rival_nonce)
