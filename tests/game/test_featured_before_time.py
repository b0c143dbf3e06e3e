"""What a featured slot shows before its time (issue 27): nothing of a slot not yet open
beyond the featured list (S7), and practice that teaches nothing of the ranked heist, played on
a seed of its own (S1). Slots are an hour long here (FEATURED_SLOT_MINUTES = 60), from T0."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from game.models import FeaturedSlot, Heist
from game.services import featured as featured_services
from tests.support.featured import T0, play_same, start_featured, without_nonces
from tests.support.heists import age_checked_client, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def slot(settings) -> FeaturedSlot:
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True):
        featured_services.featured_reconcile()
        yield FeaturedSlot.objects.get(starts_at=T0)


# --- Slots not yet open (issue 27, S7) -----------------------------------------------------------


def test_nothing_of_a_slot_not_yet_open_is_shown_beyond_the_featured_list(slot, player, guest):
    # The next slot's (and the one after's) leaderboard and page showed its deck and seed
    # commitment before it opened; only GET /api/v1/featured/'s `next` may speak of it.
    _user, client = player
    future = list(FeaturedSlot.objects.filter(starts_at__gt=slot.starts_at).order_by("starts_at"))
    assert len(future) == 2
    for viewer in (client, guest):
        for later in future:
            board = viewer.get(f"/api/v1/featured/{later.slug}/leaderboard/")
            assert board.status_code == 404 and board.json()["error"]["code"] == "not_found"
            assert viewer.get(f"/featured/{later.slug}/").status_code == 404
            replay = viewer.get(f"/api/v1/featured/{later.slug}/replays/{slot.pk}/")
            assert replay.status_code == 404
            started = post(viewer, f"/api/v1/featured/{later.slug}/heists/")
            assert started.status_code == 409 and started.json()["error"]["code"] == "slot_closed"
            for answer in (board, started):
                text = answer.content.decode()
                assert later.seed_commitment not in text and later.server_seed not in text
        listed = viewer.get("/api/v1/featured/").content.decode()
        for later in future:
            assert later.seed_commitment not in listed and later.server_seed not in listed
    # Once it opens, it is shown like any slot.
    clock_at = future[0].starts_at + dt.timedelta(minutes=1)
    with time_machine.travel(clock_at, tick=False):
        assert client.get(f"/api/v1/featured/{future[0].slug}/leaderboard/").status_code == 200
        assert client.get(f"/featured/{future[0].slug}/").status_code == 200


# --- Practice teaches nothing of the ranked heist (issue 27, S1) ---------------------------------


def test_practice_in_an_open_slot_is_played_on_a_seed_of_its_own(slot, player):
    # Every heist of a slot shared one seed and rival stream, so a guest's practice run played
    # first showed the ranked heist's loot and rival plans night by night. Ranked tries play
    # the slot's seed; every practice heist of an open slot, a seed of its own.
    _user, client = player
    guest = age_checked_client()
    practice = [start_featured(guest, slot.slug) for _ in range(2)]
    assert [p["ranked"] for p in practice] == [False, False]
    ranked = start_featured(client, slot.slug)  # the player's ranked try, still in play
    assert ranked["ranked"] is True and ranked["seed_commitment"] == slot.seed_commitment
    during = start_featured(client, slot.slug)  # practice before the ranked try has finished
    assert during["ranked"] is False
    finished = play_same(client, ranked)
    after = start_featured(client, slot.slug)  # practice after it
    for view in (*practice, during, after):
        assert view["featured"] == slot.slug
        assert view["seed_commitment"] != slot.seed_commitment
    commitments = {v["seed_commitment"] for v in (*practice, during, after)}
    assert len(commitments) == 4  # and each its own
    # Played with the ranked heist's own plans, a practice heist is another heist.
    replayed = play_same(guest, practice[0])
    assert [n["loot"] for n in without_nonces(replayed["history"])] != [
        n["loot"] for n in without_nonces(finished["history"])
    ]
    # The database holds the slot's seed on ranked heists only.
    holders = Heist.objects.filter(featured_slot=slot, server_seed=slot.server_seed)
    assert set(holders.values_list("ranked", flat=True)) == {True}
    assert Heist.objects.filter(featured_slot=slot, ranked=False).count() == 4


def test_the_featured_rules_say_practice_is_a_heist_of_its_own(client):
    page = client.get("/featured/").content.decode()
    assert "seed of its own" in page
