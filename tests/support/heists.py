"""Guests and players with their browsers' clients, and heists started and played through the
JSON API as the board plays them."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import secrets
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import profile_attest

ADULT_BIRTH_DATE = "1990-04-02"
RIVAL = "furnace"
DIFFICULTY = "rookie"
# The starter deck (game/data/decks.json), in its order.
STARTER_SLUGS = [
    "mirror-courier",
    "mirror-courier",
    "ghost-locksmith",
    "ghost-locksmith",
    "paper-decoy",
    "paper-decoy",
    "borrowed-face",
    "borrowed-face",
    "coolant-carrier",
    "coolant-carrier",
    "spark",
    "conductor",
]


def age_checked_client() -> Client:
    client = Client()
    response = client.post(
        "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return client


def make_player(email: str = "player@example.com") -> tuple[Any, Client]:
    user = get_user_model().objects.create_user(
        username=email, email=email, password="a long enough password 42"
    )
    profile_attest(user=user)
    client = Client()
    client.force_login(user)
    return user, client


def post(client: Client, path: str, data: dict | None = None):
    return client.post(path, data or {}, content_type="application/json")


def seal(client: Client, heist_id: str, body: dict):
    """Seal as the board does: read the heist first (with no worker, the view seals the rival's
    night once it is RIVAL_FALLBACK_SECONDS old, at once here), then post the plan."""
    client.get(f"/api/v1/heists/{heist_id}/")
    return post(client, f"/api/v1/heists/{heist_id}/seal/", body)


def start(client: Client, **body) -> dict:
    body = {"rival": RIVAL, "difficulty": DIFFICULTY, **body}
    response = post(client, "/api/v1/heists/", body)
    assert response.status_code == 201, response.content
    return response.json()


def legal_plan(view: dict, rng: random.Random, crew_costs: dict[str, int]) -> dict:
    """A random legal plan for the player, worked out from the heist view alone."""
    you = view["you"]
    open_vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
    hand = list(you["hand"])
    rng.shuffle(hand)
    chosen, spent = [], 0
    for card in hand[: rng.randint(0, 2)]:
        cost = crew_costs[card["crew"]]
        if spent + cost <= you["energy"] and open_vaults:
            chosen.append({"card": card["card"], "vault": rng.choice(open_vaults)})
            spent += cost
    boost = bool(chosen) and you["heat"] < 6 and rng.random() < 0.4
    return {"night": view["night"], "crew": chosen, "boost": boost}


def crew_costs() -> dict[str, int]:
    from game.engine import get_ruleset

    return {slug: crew.cost for slug, crew in get_ruleset().crew.items()}


def play_out(client: Client, view: dict, *, seed: int = 0, on_response=None) -> dict:
    """Seal random legal plans night by night until the heist is over; returns the last view."""
    rng = random.Random(seed)
    costs = crew_costs()
    heist_id = view["id"]
    while view["status"] == "active":
        plan = legal_plan(view, rng, costs)
        response = seal(client, heist_id, plan)
        assert response.status_code == 200, response.content
        if on_response:
            on_response(response, view)
        view = response.json()["heist"]
    return view


def wait_for_phase(client: Client, heist_id: str, phase: str, timeout: float = 30.0) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/v1/heists/{heist_id}/").json()
        if view["phase"] == phase or time.monotonic() > deadline:
            return view
        time.sleep(0.02)


def commitment_of(nonce: str, crew: list[dict], boost: bool) -> str:
    # DESIGN.md section 5, verbatim: the canonical plan binds (crew slug, vault) pairs.
    canonical = json.dumps(
        {"boost": boost, "crew": sorted([[c["crew"], c["vault"]] for c in crew])},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256((nonce + canonical).encode()).hexdigest()


def fix_the_game_seeds(monkeypatch, tag: str = "tests") -> None:
    """The game's own draws (server seeds and rival nonces: ``secrets.token_hex`` called from
    ``game.*``) become a fixed sequence, so heists played by fixed plans end the same way on
    every run. Django's and the libraries' calls keep the real function."""
    counter = itertools.count(1)
    real = secrets.token_hex

    def token_hex(nbytes: int = 32) -> str:
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("game."):
            return real(nbytes)
        return hashlib.sha256(f"{tag}/{next(counter)}".encode()).hexdigest()[: nbytes * 2]

    monkeypatch.setattr(secrets, "token_hex", token_hex)


def heists_by_outcome(client: Client, *, limit: int = 80, **body) -> dict[str, dict]:
    """Start and play whole heists (random legal plans, a seed each) until one has ended in a
    win, one in a draw and one in a loss; returns each one's last view, by outcome. With
    ``fix_the_game_seeds`` the same heists are found every run."""
    found: dict[str, dict] = {}
    for seed in range(limit):
        view = play_out(client, start(client, **body), seed=seed)
        found.setdefault(view["result"]["outcome"], view)
        if len(found) == 3:
            return found
    raise AssertionError(f"{limit} heists ended only in {sorted(found)}")
