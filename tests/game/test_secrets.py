"""Secrets never leave the server early. Over 200 full heists through the API, every response
body and header is scanned: no rival nonce before its reveal, no server seed (or heist key)
before the end, no field that could carry the rival's hand or either deck's order, no future
night's loot.

The view is checked two ways: every JSON path must be on an allow-list (a new field cannot
smuggle anything out unnoticed), and each field that could hold a secret holds exactly the
public truth, recomputed from the engine (the rival's decklist, its discard pile, this night's
loot).
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from game.engine import PLAYER, RIVAL
from game.engine.setup import night_loot
from game.models import Heist, HeistNight
from game.rivals.personas import get_persona
from game.selectors.heists import heist_nights, heist_state
from game.tasks import plan_rival_night
from tests.support.heists import crew_costs, legal_plan, play_out, post, start

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HEISTS = int(__import__("os").environ.get("SECRETS_HEISTS", "200"))
VAULTS = ("memory-archive", "crown-vault", "signal-tower")

_RESULT = {
    "night", "loot", "loot.{vault}", "closed", "closed[]",
    "you", "you.heat_start", "you.heat_end", "you.boost", "you.crew", "you.crew[]",
    "you.heat_parts", "you.heat_parts[]", "you.heat_parts[].kind", "you.heat_parts[].amount",
    "you.heat_parts[].reason",
    "rival.heat_parts", "rival.heat_parts[]", "rival.heat_parts[].kind",
    "rival.heat_parts[].amount", "rival.heat_parts[].reason",
    "you.crew[].card", "you.crew[].crew", "you.crew[].vault", "you.crew[].power",
    "you.crew[].breakdown", "you.crew[].breakdown[]", "you.crew[].breakdown[].kind",
    "you.crew[].breakdown[].amount", "you.crew[].breakdown[].reason",
    "rival", "rival.heat_start", "rival.heat_end", "rival.boost", "rival.crew", "rival.crew[]",
    "rival.crew[].crew", "rival.crew[].vault", "rival.crew[].power",
    "rival.crew[].breakdown", "rival.crew[].breakdown[]", "rival.crew[].breakdown[].kind",
    "rival.crew[].breakdown[].amount", "rival.crew[].breakdown[].reason",
    "rival.nonce", "rival.commitment",
    "vaults", "vaults[]", "vaults[].slug", "vaults[].you_power", "vaults[].rival_power",
    "vaults[].winner", "vaults[].loot",
    "score", "score.you", "score.rival",
}  # fmt: skip
_ENCOUNTER = {
    "slug", "name", "description", "modifiers", "modifiers.start_heat",
    "modifiers.start_heat.player", "modifiers.start_heat.rival", "modifiers.vault_mods",
    "modifiers.vault_mods[]", "modifiers.vault_mods[].vault", "modifiers.vault_mods[].nights",
    "modifiers.vault_mods[].nights[]", "modifiers.vault_mods[].kind",
    "modifiers.vault_mods[].amount",
}  # fmt: skip
VIEW_PATHS = {
    "id", "ruleset", "status", "night", "nights", "phase",
    "vaults", "vaults[]", "vaults[].slug", "vaults[].name", "vaults[].loot", "vaults[].closed",
    "you", "you.heat", "you.energy", "you.score", "you.hand", "you.hand[]", "you.hand[].card",
    "you.hand[].crew", "you.deck_count", "you.discard", "you.discard[]", "you.deck",
    "you.deck[]",
    "you.cosmetics", *(f"you.cosmetics.{k}" for k in ("card_back", "board_theme", "title")),
    "rival", "rival.slug", "rival.name", "rival.difficulty", "rival.heat", "rival.energy",
    "rival.score", "rival.hand_count", "rival.deck_count", "rival.discard", "rival.discard[]",
    "rival.deck", "rival.deck[]", "rival.commitment",
    "rival.cosmetics", *(f"rival.cosmetics.{k}" for k in ("card_back", "board_theme", "title")),
    "encounter", *(f"encounter.{p}" for p in _ENCOUNTER),
    "seed_commitment", "featured", "ranked",
    "history", "history[]", *(f"history[].{p}" for p in _RESULT),
    "result", "result.outcome", "result.you", "result.rival", "result.signs_awarded",
    "result.featured_bonus",
    "practice_of", "practice_of.heist", "practice_of.night", "practice_of.then",
    "practice_of.then.outcome", "practice_of.then.you", "practice_of.then.rival",
    "practice_of.compared",
}  # fmt: skip
SEAL_PATHS = {"result", *(f"result.{p}" for p in _RESULT), "heist"} | {
    f"heist.{p}" for p in VIEW_PATHS
}


def _expand(paths: set[str]) -> set[str]:
    return {p.replace("{vault}", v) for p in paths for v in VAULTS}


VIEW_PATHS, SEAL_PATHS = _expand(VIEW_PATHS), _expand(SEAL_PATHS)


def json_paths(value, prefix: str = "") -> set[str]:
    out = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            out.add(path)
            out |= json_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            out.add(f"{prefix}[]")
            out |= json_paths(item, f"{prefix}[]")
    return out


def _loot_dicts(value) -> list[dict]:
    if isinstance(value, dict):
        found = [value] if set(value) == set(VAULTS) else []
        for item in value.values():
            found += _loot_dicts(item)
        return found
    if isinstance(value, list):
        return [d for item in value for d in _loot_dicts(item)]
    return []


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


class Scanner:
    """Checks one response against what the server knows at the moment it was sent."""

    def __init__(self) -> None:
        self.responses = 0

    def check(self, response, heist_id: str) -> None:
        self.responses += 1
        body = response.content.decode()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        headers += "\n" + response.cookies.output()
        text = body + "\n" + headers
        heist = Heist.objects.get(pk=heist_id)
        nights = heist_nights(heist)
        state = heist_state(heist, nights)

        # The server seed and the heist key: nowhere, in the body or the headers.
        assert heist.server_seed not in text
        assert state.key.hex() not in text
        # A sealed, unplayed night's nonce: nowhere.
        for night in nights:
            if night.rival_nonce and night.result is None:
                assert night.rival_nonce not in text, f"nonce of night {night.night} leaked"
        data = response.json()
        # Future loot: every loot-shaped object is a night already disclosed; and a future
        # night's loot that differs from every disclosed night appears nowhere.
        disclosed = [n.loot for n in nights]
        for found in _loot_dicts(data):
            assert found in disclosed
        for future in range(state.night + 1, state.ruleset.nights + 1):
            loot, _ = night_loot(state.ruleset, state.key, future, state.encounter)
            if loot not in disclosed:
                assert loot not in _loot_dicts(data)
                assert _compact(loot) not in body

        if "result" in data and "heist" in data:
            assert json_paths(data) <= SEAL_PATHS, json_paths(data) - SEAL_PATHS
            view = data["heist"]
        else:
            assert json_paths(data) <= VIEW_PATHS, json_paths(data) - VIEW_PATHS
            view = data
        self._check_view(view, heist, nights, state)

    def _check_view(self, view, heist, nights, state) -> None:
        rival, you = view["rival"], view["you"]
        truth_r, truth_p = state.side(RIVAL), state.side(PLAYER)
        # The decklists are the public ones, never a draw order.
        assert rival["deck"] == list(get_persona(heist.rival).deck) == list(truth_r.decklist)
        assert you["deck"] == list(truth_p.decklist)
        assert rival["discard"] == list(truth_r.discard_slugs())
        assert you["discard"] == list(truth_p.discard_slugs())
        assert rival["hand_count"] == len(truth_r.hand)
        assert rival["deck_count"] == len(truth_r.deck)
        assert you["hand"] == [{"card": c, "crew": truth_p.decklist[c]} for c in truth_p.hand]
        # This night's loot only.
        current = next((n for n in nights if n.night == heist.night), None)
        if heist.status == "active":
            assert current is not None
            assert {v["slug"]: v["loot"] for v in view["vaults"]} == current.loot
        else:
            assert all(v["loot"] == 0 for v in view["vaults"]) or heist.status == "abandoned"
        # The rival's commitment is for this night's sealed plan, and nothing else of it shows.
        sealed = current.rival_commitment if current and heist.status == "active" else None
        assert rival["commitment"] == sealed


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
