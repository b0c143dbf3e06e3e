"""Challenges through the JSON API: make one of a finished heist, answer it, and play the
challenger's own plans again in the friend's heist."""

from __future__ import annotations

from django.test import Client

from game.models import HeistNight
from tests.support.heists import post, seal


def make_challenge(client: Client, heist_id: str, status: int = 201) -> dict:
    response = post(client, f"/api/v1/heists/{heist_id}/challenge/")
    assert response.status_code == status, response.content
    return response.json()


def accept(client: Client, slug: str, status: int = 201) -> dict:
    response = post(client, f"/api/v1/challenges/{slug}/heists/")
    assert response.status_code == status, response.content
    return response.json()


def sealed_plans(heist_id: str) -> list[dict]:
    """The player's sealed plans of a heist, night by night, as the seal route takes them."""
    nights = HeistNight.objects.filter(heist_id=heist_id, player_plan__isnull=False)
    return [
        {"night": n.night, "crew": n.player_plan["crew"], "boost": n.player_plan["boost"]}
        for n in nights.order_by("night")
    ]


def play_plans(client: Client, view: dict, plans: list[dict], *, on_response=None) -> dict:
    """Seal ``plans`` in order (each must be legal in this heist); returns the last view."""
    for plan in plans:
        response = seal(client, view["id"], plan)
        assert response.status_code == 200, response.content
        if on_response:
            on_response(response)
        view = response.json()["heist"]
    return view


def night_without_proofs(result: dict) -> dict:
    """A night result without the rival's nonce and commitment (each heist seals its own)."""
    rival = {k: v for k, v in result["rival"].items() if k not in ("nonce", "commitment")}
    return {**result, "rival": rival}
