"""Fixtures for the heist app: age-checked guests and players, and a helper that plays heists."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import profile_attest

ADULT_BIRTH_DATE = "1990-04-02"
RIVAL = "furnace"
DIFFICULTY = "rookie"


@pytest.fixture(autouse=True)
def _no_worker_wait(settings):
    # Most tests run without a Celery worker (and inside a transaction a worker could not see
    # the rows anyway): the seal service seals the rival's plan in-process at once. Tests of
    # the worker and of the wait set this themselves.
    settings.RIVAL_FALLBACK_SECONDS = 0


def age_checked_client() -> Client:
    client = Client()
    response = client.post(
        "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return client


@pytest.fixture
def guest(db) -> Client:
    """A guest browser that passed the age check."""
    return age_checked_client()


def make_player(email: str = "player@example.com") -> tuple[Any, Client]:
    user = get_user_model().objects.create_user(
        username=email, email=email, password="a long enough password 42"
    )
    profile_attest(user=user)
    client = Client()
    client.force_login(user)
    return user, client


@pytest.fixture
def player(db) -> tuple[Any, Client]:
    """A signed-in player who passed the age gate at sign-up."""
    return make_player()


def post(client: Client, path: str, data: dict | None = None):
    return client.post(path, data or {}, content_type="application/json")


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
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", plan)
        assert response.status_code == 200, response.content
        if on_response:
            on_response(response, view)
        view = response.json()["heist"]
    return view
