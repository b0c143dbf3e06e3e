"""The rating moves once per heist under real concurrency (PostgreSQL row locks, one connection
per thread, real commits): the last night sealed twice at once, the rating of one heist run
twice at once, two heists of one player rated at once and finishing at once (neither update
lost), and the abandon task sent four times at once to a real Celery worker. Without the rating
row's lock, or without the second look for the change under it, the direct races fail on the
constraints (checked by hand when these were written)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from game.models import Heist, PlayerRating, RatingChange
from game.rating import glicko2
from game.services import rating as rating_services
from game.tasks import abandon_stale_heists, plan_rival_night
from tests.support.heists import make_player, post, seal, start
from tests.support.rating import assert_history_chained
from tests.support.threads import run_threads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture
def slow_rating(monkeypatch):
    """The rating's arithmetic takes a while, so a second rater surely arrives while the first
    holds the player's rating row (and has looked for the heist's change before it was
    written)."""
    real = glicko2.update
    calls = []

    def update(*args, **kwargs):
        calls.append(1)
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(glicko2, "update", update)
    return calls


def _at_last_night(client: Client) -> str:
    heist_id = start(client)["id"]
    for night in range(1, 6):
        assert seal(client, heist_id, {"night": night, "crew": []}).status_code == 200
    plan_rival_night(heist_id, 6)
    return heist_id


def _browser(client: Client):
    """Another request of the same signed-in browser, on its own connection."""
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}

    def make() -> Client:
        other = Client()
        other.cookies.load(cookies)
        return other

    return make


def test_the_last_night_sealed_twice_at_once_rates_once(slow_rating):
    user, client = make_player("twice@example.com")
    heist_id = _at_last_night(client)
    browser = _browser(client)

    def last_seal():
        return post(browser(), f"/api/v1/heists/{heist_id}/seal/", {"night": 6, "crew": []})

    answers = run_threads(last_seal, last_seal)
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert RatingChange.objects.filter(heist_id=heist_id).count() == 1
    assert len(slow_rating) == 1
    assert PlayerRating.objects.get(user=user).heists == 1


def test_one_heist_rated_twice_at_once_moves_the_rating_once(slow_rating, monkeypatch):
    user, client = make_player("raced@example.com")
    heist_id = _at_last_night(client)
    assert seal(client, heist_id, {"night": 6, "crew": []}).status_code == 200
    rated = RatingChange.objects.get(heist_id=heist_id)
    # As if the finish had not rated it yet (the rating row as it was before): both raters
    # find no change before the lock.
    RatingChange.objects.all().delete()
    PlayerRating.objects.filter(user=user).update(
        value=rated.before_value,
        deviation=rated.before_deviation,
        volatility=rated.before_volatility,
        heists=0,
    )
    slow_rating.clear()
    locked = []
    real_lock = rating_services._rating_locked

    def counting_lock(*args, **kwargs):
        locked.append(1)
        return real_lock(*args, **kwargs)

    monkeypatch.setattr(rating_services, "_rating_locked", counting_lock)
    heist = Heist.objects.get(pk=heist_id)

    def rate():
        return rating_services.rating_heist_finished(heist=heist)

    results = run_threads(rate, rate)
    # Both went for the lock; the second found the first's change under it.
    assert len(locked) == 2 and len(slow_rating) == 1
    assert sum(r is not None for r in results) == 1
    change = RatingChange.objects.get(heist_id=heist_id)
    assert (change.after_value, change.after_deviation) == (
        rated.after_value,
        rated.after_deviation,
    )
    assert assert_history_chained(user.pk) == [change]


def test_two_heists_of_one_player_rated_at_once_both_count(slow_rating):
    """The rating's own lock, without the shop's (whose wallet lock also queues one player's
    finishes on the real path, below): two heists of one player rated at once."""
    user, client = make_player("rated-at-once@example.com")
    ids = [_at_last_night(client), _at_last_night(client)]
    for heist_id in ids:
        assert seal(client, heist_id, {"night": 6, "crew": []}).status_code == 200
    changes = {c.heist_id: c for c in RatingChange.objects.all()}
    start_row = min(changes.values(), key=lambda c: c.number)
    RatingChange.objects.all().delete()
    PlayerRating.objects.filter(user=user).update(
        value=start_row.before_value,
        deviation=start_row.before_deviation,
        volatility=start_row.before_volatility,
        heists=0,
    )
    heists = [Heist.objects.get(pk=heist_id) for heist_id in ids]
    run_threads(*(lambda h=h: rating_services.rating_heist_finished(heist=h) for h in heists))
    changes = assert_history_chained(user.pk)
    assert len(changes) == 2
    assert changes[1].before_value == changes[0].after_value != changes[0].before_value


def test_two_heists_of_one_player_finishing_at_once_both_count(slow_rating):
    user, client = make_player("two-at-once@example.com")
    first, second = _at_last_night(client), _at_last_night(client)
    browser = _browser(client)

    def finish(heist_id):
        return lambda: post(browser(), f"/api/v1/heists/{heist_id}/seal/", {"night": 6, "crew": []})

    answers = run_threads(finish(first), finish(second))
    assert [a.status_code for a in answers] == [200, 200]
    changes = assert_history_chained(user.pk)
    assert {str(c.heist_id) for c in changes} == {first, second}
    # Neither update was lost: the second started from the first's after.
    assert changes[1].before_value == changes[0].after_value != changes[0].before_value


@pytest.mark.slow
@pytest.mark.celery_worker
def test_the_abandon_task_sent_four_times_at_once_rates_each_heist_once(live_worker):
    players = [make_player(f"stale-{n}@example.com") for n in range(3)]
    stale = [
        start(client, difficulty=difficulty)["id"]
        for _user, client in players
        for difficulty in ("rookie", "kingpin")
    ]
    # Older than the worker's HEIST_ABANDON_MINUTES (its default: a day).
    Heist.objects.filter(pk__in=stale).update(
        last_activity_at=timezone.now() - timedelta(days=1, minutes=1)
    )
    results = [abandon_stale_heists.delay() for _ in range(4)]
    deadline = time.monotonic() + 60
    while len(live_worker.task_returns("game.abandon_stale_heists")) < len(results):
        assert time.monotonic() < deadline, live_worker.log()
        time.sleep(0.05)
    returns = sorted(live_worker.task_returns("game.abandon_stale_heists"))
    assert returns == ["0", "0", "0", str(len(stale))], live_worker.log()
    connection.close()  # see the worker's commits from a fresh connection
    assert set(Heist.objects.filter(pk__in=stale).values_list("status", flat=True)) == {"abandoned"}
    for user, _ in players:
        changes = assert_history_chained(user.pk)
        assert len(changes) == 2 and {c.result for c in changes} == {"abandoned"}
