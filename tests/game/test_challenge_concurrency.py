"""Challenges under concurrency, on PostgreSQL with separate connections and real commits: two
starts of one challenge at once by one player (or one guest) make one heist, with the service's
check and with the constraints alone; two makes at once of one heist's challenge make one."""

from __future__ import annotations

import pytest
from django.test import Client

from game.models import Challenge, Heist
from game.services import challenges as challenge_services
from tests.support.challenges import make_challenge
from tests.support.heists import age_checked_client, make_player, play_out, post, start
from tests.support.threads import run_threads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _challenge() -> str:
    owner = age_checked_client()
    return make_challenge(owner, play_out(owner, start(owner), seed=8)["id"])["slug"]


def _starts_at_once(client: Client, slug: str, count: int = 3) -> list[int]:
    def one():
        return post(client, f"/api/v1/challenges/{slug}/heists/").status_code

    return run_threads(*[one] * count)


@pytest.mark.parametrize("check", [True, False], ids=["service-check", "constraints-only"])
@pytest.mark.parametrize("who", ["player", "guest"])
def test_starts_at_once_make_one_heist(monkeypatch, check, who):
    slug = _challenge()
    if not check:
        # Every start finds no answer yet: only the constraints keep one.
        monkeypatch.setattr(challenge_services, "challenge_answer", lambda **kw: None)
    client = make_player("racer@example.com")[1] if who == "player" else age_checked_client()
    statuses = _starts_at_once(client, slug)
    assert sorted(statuses) == [201, 409, 409], statuses
    assert Heist.objects.filter(challenge_id=slug).count() == 1
    # The refused starts rolled back whole, the heist each had dealt included: the original
    # and one answer are all there is.
    assert Heist.objects.count() == 2


def test_makes_at_once_make_one_challenge():
    owner = age_checked_client()
    heist_id = play_out(owner, start(owner), seed=2)["id"]

    def one():
        response = post(owner, f"/api/v1/heists/{heist_id}/challenge/")
        return response.status_code, response.json()["slug"]

    results = run_threads(*[one] * 3)
    assert sorted(status for status, _ in results) == [200, 200, 201]
    assert len({slug for _, slug in results}) == 1
    assert Challenge.objects.filter(heist_id=heist_id).count() == 1
