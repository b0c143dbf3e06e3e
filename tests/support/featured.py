"""Shared steps of the featured-heist tests: a clock standing at a slot boundary, slots made by
the rotation, featured starts, and clients that keep every answer they receive."""

from __future__ import annotations

import datetime as dt
import random

from django.test import Client

from game.models import FeaturedEntry, FeaturedSlot, Heist
from tests.support.heists import ADULT_BIRTH_DATE, crew_costs, legal_plan, post, seal

# A whole hour, so with FEATURED_SLOT_MINUTES = 60 the first slot starts at T0 exactly.
T0 = dt.datetime(2027, 3, 1, 9, 0, tzinfo=dt.UTC)
HOUR = dt.timedelta(hours=1)


def start_featured(client: Client, slug: str, status: int = 201):
    response = post(client, f"/api/v1/featured/{slug}/heists/")
    assert response.status_code == status, response.content
    return response.json()


class RecordingClient(Client):
    """A test client that keeps every response, to scan all of them afterwards."""

    def __init__(self, log: list, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log = log

    def request(self, **request):
        response = super().request(**request)
        self.log.append(response)
        return response


def recording_guest(log: list) -> RecordingClient:
    client = RecordingClient(log)
    response = post(client, "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE})
    assert response.status_code == 200
    return client


def make_finished_heist(slot: FeaturedSlot, user, *, ranked: bool = True) -> Heist:
    """A finished heist row of ``slot`` for ``user`` without playing it (leaderboard tests)."""
    return Heist.objects.create(
        user=user,
        ruleset=slot.ruleset,
        rival=slot.rival,
        difficulty=slot.difficulty,
        player_deck=slot.deck,
        rival_deck=slot.deck,
        featured_slot=slot,
        ranked=ranked,
        server_seed=slot.server_seed,
        seed_commitment=slot.seed_commitment,
        status=Heist.Status.FINISHED,
        outcome=Heist.Outcome.WIN,
        night=7,
        finished_at=slot.starts_at + dt.timedelta(minutes=1),
    )


def make_entry(slot, user, *, score: int, rival_score: int, finished_at) -> FeaturedEntry:
    from game.services.ranked import _tally_add

    heist = make_finished_heist(slot, user)
    _tally_add(slot.slug, score, score - rival_score)
    return FeaturedEntry.objects.create(
        heist=heist,
        slot=slot,
        user=user,
        score=score,
        rival_score=rival_score,
        margin=score - rival_score,
        finished_at=finished_at,
    )


def without_nonces(history: list[dict]) -> list[dict]:
    """A heist's nights as the rules played them: the rival's nonce and commitment (fresh
    randomness per heist, RULES.md step 4) left out."""
    out = []
    for night in history:
        rival = {k: v for k, v in night["rival"].items() if k not in ("nonce", "commitment")}
        out.append({**night, "rival": rival})
    return out


def scores(view: dict) -> tuple[int, int]:
    return view["you"]["score"], view["rival"]["score"]


def play_same(client, view, *, diverge_at: int | None = None):
    """Seal plans chosen from the view alone by a seeded policy (night number as the seed), so
    the same position gets the same plan; from ``diverge_at`` on, another seed."""
    costs = crew_costs()
    while view["status"] == "active":
        night = view["night"]
        rng = random.Random(night + (1000 if diverge_at and night >= diverge_at else 0))
        response = seal(client, view["id"], legal_plan(view, rng, costs))
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    return view
