"""The rating's writes through the heist's real paths (issue 26, DESIGN.md section 11): a
finished heist rates its signed-in player once, whatever calls the finish again; an abandoned
heist is a loss by every door that abandons; practice, featured practice, challenges and
guests never rate; the history chains from one heist to the next."""

from __future__ import annotations

import datetime as dt
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts.services import account_delete
from game.models import FeaturedSlot, Heist, PlayerRating, RatingChange
from game.rating.anchors import current
from game.selectors.heists import heist_snapshot
from game.selectors.rating import heist_rates, rating_now
from game.services import featured as featured_services
from game.services.abandon import heist_abandon
from game.services.heists import heist_finish, heists_claim_guest
from game.tasks import abandon_stale_heists
from tests.support.challenges import accept, make_challenge
from tests.support.featured import T0, start_featured
from tests.support.heists import (
    fix_the_game_seeds,
    heists_by_outcome,
    make_player,
    play_out,
    post,
    seal,
    start,
)
from tests.support.rating import assert_history_chained

pytestmark = pytest.mark.django_db

SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def _age(heist_id: str, minutes: int) -> None:
    Heist.objects.filter(pk=heist_id).update(
        last_activity_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_a_finished_heist_rates_its_player_once_even_if_finished_again(player):
    user, client = player
    view = play_out(client, start(client, difficulty="hustler"), seed=3)
    outcome = view["result"]["outcome"]
    change = RatingChange.objects.get(heist_id=view["id"])
    anchor = current().anchor("hustler")
    start_rating = current().start
    assert (change.user_id, change.number, change.result, change.score) == (
        user.pk,
        1,
        outcome,
        SCORES[outcome],
    )
    assert (change.level, change.opponent, change.opponent_deviation, change.anchors) == (
        "hustler",
        anchor.rating,
        anchor.deviation,
        current().version,
    )
    assert (change.before_value, change.before_deviation) == (
        start_rating.value,
        start_rating.deviation,
    )
    assert change.after_deviation < change.before_deviation
    assert_history_chained(user.pk)
    # The finish called again (a retried request, a second worker): nothing moves.
    heist = Heist.objects.get(pk=view["id"])
    heist_finish(heist=heist, state=heist_snapshot(heist).state)
    assert RatingChange.objects.filter(user=user).count() == 1
    row = PlayerRating.objects.get(user=user)
    assert (row.value, row.heists) == (change.after_value, 1)


def test_a_win_lifts_a_loss_lowers_each_scored_as_its_outcome(player, monkeypatch):
    fix_the_game_seeds(monkeypatch, "rating-outcomes")
    user, client = player
    found = heists_by_outcome(client)
    for outcome, view in found.items():
        change = RatingChange.objects.get(heist_id=view["id"])
        assert (change.result, change.score) == (outcome, SCORES[outcome])
        if outcome == "win":
            assert change.after_value > change.before_value
        if outcome == "loss":
            assert change.after_value < change.before_value
    changes = assert_history_chained(user.pk)
    assert len(changes) == Heist.objects.filter(user=user, status="finished").count()


def test_abandoned_heists_are_losses_by_every_door_once(player, settings):
    settings.HEIST_ABANDON_MINUTES = 60
    settings.HEIST_ACTIVE_MAX = 2
    user, client = player
    # Stale: the periodic task, run twice (a repeated task) closes and rates it once.
    stale = start(client, difficulty="safecracker")
    assert seal(client, stale["id"], {"night": 1, "crew": []}).status_code == 200
    _age(stale["id"], 61)
    assert abandon_stale_heists() == 1
    assert abandon_stale_heists() == 0
    # Staff, from the admin.
    staffed = start(client, difficulty="kingpin")
    assert heist_abandon(heist_id=staffed["id"]) == 1
    assert heist_abandon(heist_id=staffed["id"]) == 0
    # Crowded out: a third start closes the oldest of two in play.
    crowded = start(client, difficulty="rookie")
    start(client)
    start(client)
    assert Heist.objects.get(pk=crowded["id"]).status == Heist.Status.ABANDONED
    changes = assert_history_chained(user.pk)
    by_heist = {str(c.heist_id): c for c in changes}
    assert set(by_heist) == {stale["id"], crowded["id"], staffed["id"]}
    for heist_id, level in (
        (stale["id"], "safecracker"),
        (crowded["id"], "rookie"),
        (staffed["id"], "kingpin"),
    ):
        change = by_heist[heist_id]
        assert (change.result, change.score, change.level) == ("abandoned", 0.0, level)
        assert change.after_value < change.before_value
    # Only the abandoned three rated: the heists still in play have not.
    assert len(changes) == 3


def test_practice_retries_never_rate_finished_or_abandoned(player):
    user, client = player
    first = play_out(client, start(client), seed=5)
    rated = RatingChange.objects.get(heist_id=first["id"])
    retry = post(client, f"/api/v1/heists/{first['id']}/retry/", {"night": 4})
    assert retry.status_code == 201, retry.content
    practice = play_out(client, retry.json(), seed=6)
    assert practice["status"] == "finished"
    again = post(client, f"/api/v1/heists/{first['id']}/retry/", {"night": 2}).json()
    assert heist_abandon(heist_id=again["id"]) == 1
    assert list(RatingChange.objects.filter(user=user)) == [rated]
    assert PlayerRating.objects.get(user=user).heists == 1
    assert not heist_rates(Heist.objects.get(pk=practice["id"]))


def test_guests_never_rate_and_a_heist_finished_as_guest_stays_unrated(guest):
    view = play_out(guest, start(guest), seed=2)
    abandoned = start(guest)
    assert heist_abandon(heist_id=abandoned["id"]) == 1
    assert not RatingChange.objects.exists()
    user, _ = make_player("was-a-guest@example.com")
    heist = Heist.objects.get(pk=view["id"])
    assert heists_claim_guest(user=user, guest_id=heist.guest_id) == 2
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()
    assert rating_now(user_id=user.pk).heists == 0


def test_a_challenge_heist_never_rates(player):
    # A friend's answer to a challenge, played to the end or walked away from, moves no rating
    # (DESIGN.md section 11); the challenger's own heist rated as usual.
    challenger, client = player
    original = play_out(client, start(client), seed=3)
    assert RatingChange.objects.filter(heist_id=original["id"]).exists()
    slug = make_challenge(client, original["id"])["slug"]
    friend, friend_client = make_player("friend@example.com")
    played = play_out(friend_client, accept(friend_client, slug), seed=4)
    assert Heist.objects.get(pk=played["id"]).status == "finished"
    assert not heist_rates(Heist.objects.get(pk=played["id"]))
    other, other_client = make_player("other-friend@example.com")
    left = accept(other_client, slug)
    assert heist_abandon(heist_id=left["id"]) == 1
    assert not RatingChange.objects.filter(user__in=[friend, other]).exists()
    assert not PlayerRating.objects.filter(user__in=[friend, other]).exists()
    assert rating_now(user_id=challenger.pk).heists == 1


@pytest.fixture
def slot(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True):
        featured_services.featured_reconcile()
        yield FeaturedSlot.objects.get(starts_at=T0)


def test_a_ranked_featured_heist_rates_against_its_level_its_practice_does_not(slot, player):
    user, client = player
    ranked = play_out(client, start_featured(client, slot.slug), seed=1)
    practice = play_out(client, start_featured(client, slot.slug), seed=1)
    assert (ranked["ranked"], practice["ranked"]) == (True, False)
    change = RatingChange.objects.get(user=user)
    assert str(change.heist_id) == ranked["id"] and change.level == slot.difficulty
    assert not RatingChange.objects.filter(heist_id=practice["id"]).exists()


def test_a_deleted_account_takes_its_rating_the_heists_stay(player):
    user, client = player
    view = play_out(client, start(client), seed=4)
    assert RatingChange.objects.filter(user=user).exists()
    account_delete(user=user)
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()
    assert Heist.objects.get(pk=view["id"]).user_id is None
