"""A featured slot's leaderboard: more loot, then the larger margin, then the earlier finish;
the top 100 and your own place; public handles (never anything from the email) and titles;
``limit`` parsed strictly."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model

from game.models import FeaturedEntry, FeaturedSlot
from game.selectors import featured as featured_selectors
from game.services import featured as featured_services
from tests.support.featured import T0, make_entry
from tests.support.heists import make_player

pytestmark = pytest.mark.django_db


def _user(email: str):
    """A player without a password (no hashing: this file makes over a hundred)."""
    return get_user_model().objects.create(username=email, email=email)


@pytest.fixture
def slot(settings) -> FeaturedSlot:
    # The clock stays in the slot: a slot's board is shown only once it has opened.
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=1), tick=False):
        featured_services.featured_reconcile()
        yield FeaturedSlot.objects.get(starts_at=T0)


def _at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def test_order_with_ties_on_loot_and_on_margin(slot, client):
    rows = {
        # name: (loot, rival loot, finished minute)
        "ada": (20, 10, 5),  # tie on loot and margin with cyd, finished later
        "bo": (20, 5, 9),  # tie on loot with ada and cyd, larger margin: ahead of both
        "cyd": (20, 10, 3),
        "dee": (25, 24, 30),  # more loot wins, whatever the margin
        "eve": (10, 0, 1),  # the best margin, the least loot: last
        "fay": (20, 10, 3),  # the same loot, margin and minute as cyd: the heist id decides
    }
    users = {}
    for name, (score, rival, minute) in rows.items():
        user = _user(f"{name}.secret-mail@example.com")
        users[name] = user
        make_entry(slot, user, score=score, rival_score=rival, finished_at=_at(minute))
    board = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()
    handles = {u.profile.handle: name for name, u in users.items()}
    order = [handles[e["player"]] for e in board["entries"]]
    cyd, fay = (FeaturedEntry.objects.get(user=users[n]).heist_id for n in ("cyd", "fay"))
    tied = ["cyd", "fay"] if str(cyd) < str(fay) else ["fay", "cyd"]
    assert order == ["dee", "bo", *tied, "ada", "eve"]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4, 5, 6]
    assert board["you"] is None  # not signed in
    # Each player's own rank, counted, agrees with the board's order.
    for name, user in users.items():
        standing = featured_selectors.player_standing(slot=slot, user_id=user.pk)
        assert standing.rank == order.index(name) + 1, name
    # Handles only: nothing of the emails.
    text = str(board)
    assert "secret-mail" not in text and "example.com" not in text
    for name in rows:
        assert f"{name}." not in text


def test_top_hundred_and_your_own_place_beyond_it(slot):
    me, client = make_player("me@example.com")
    others = [_user(f"o{i}@example.com") for i in range(104)]
    for i, user in enumerate(others):
        make_entry(slot, user, score=30 - i // 10, rival_score=0, finished_at=_at(2))
    make_entry(slot, me, score=1, rival_score=5, finished_at=_at(1))
    board = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()
    assert len(board["entries"]) == 100
    assert board["you"]["rank"] == 105 and board["you"]["player"] == me.profile.handle
    assert board["you"]["score"] == 1 and board["you"]["rival_score"] == 5
    assert board["slot"]["slug"] == slot.slug and board["slot"]["server_seed"] is None
    few = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/?limit=3").json()
    assert [e["rank"] for e in few["entries"]] == [1, 2, 3]
    assert few["you"]["rank"] == 105
    page = client.get(f"/featured/{slot.slug}/").content.decode()
    assert page.count("<tr") == 101  # the head and 100 places
    assert "#105" in page


@pytest.mark.parametrize(
    "limit", ["0", "101", "1000", "-1", "10.0", " 10", "1e2", "0x10", "abc", "", "٣"]
)
def test_limit_is_parsed_strictly(slot, client, limit):
    answer = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/", {"limit": limit})
    assert answer.status_code == 400, limit
    body = answer.json()["error"]
    assert body["code"] == "invalid_input" and "limit" in body["fields"]


@pytest.mark.parametrize("limit", ["1", "100", "42"])
def test_limit_in_range(slot, client, limit):
    answer = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/", {"limit": limit})
    assert answer.status_code == 200


def test_the_title_a_player_wears_shows_on_the_board(slot, client):
    from shop.services import shop_catalogue_load
    from tests.support.shop import own_and_wear

    shop_catalogue_load()
    user, _ = make_player("kingpin@example.com")
    plain, _ = make_player("plain@example.com")
    own_and_wear(user, "title-kingpin")
    make_entry(slot, user, score=3, rival_score=1, finished_at=_at(4))
    make_entry(slot, plain, score=2, rival_score=1, finished_at=_at(5))
    entries = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()["entries"]
    assert [e["title"] for e in entries] == ["Kingpin", None]
    html = client.get(f"/featured/{slot.slug}/").content.decode()
    assert '<span class="visually-hidden">Title: </span>Kingpin</span>' in html


def test_a_deleted_account_stays_nameless_on_a_closed_board(slot, client):
    # A closed board stays as it was paid; an open one drops the entry (tests/game/
    # test_once_per_person.py).
    from accounts.services import account_delete

    user, _ = make_player("gone@example.com")
    make_entry(slot, user, score=3, rival_score=1, finished_at=_at(4))
    with time_machine.travel(slot.ends_at + dt.timedelta(minutes=1), tick=False):
        featured_services.featured_reconcile()
        account_delete(user=user)
        entry = client.get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()["entries"][0]
    assert entry["player"] is None and entry["score"] == 3


def test_tallies_follow_the_entries_of_real_finishes(slot):
    from django.db.models import Count

    from game.models import FeaturedTally
    from tests.support.heists import play_out, post

    with time_machine.travel(T0 + dt.timedelta(minutes=2), tick=True):
        for i in range(4):
            _, client = make_player(f"real{i}@example.com")
            view = post(client, f"/api/v1/featured/{slot.slug}/heists/").json()
            play_out(client, view, seed=i % 2)  # two pairs with the same plans: shared cells
    counted = {
        (r["score"], r["margin"]): r["n"]
        for r in FeaturedEntry.objects.filter(slot=slot)
        .values("score", "margin")
        .annotate(n=Count("pk"))
    }
    tallied = {(t.score, t.margin): t.entries for t in FeaturedTally.objects.filter(slot=slot)}
    assert tallied == counted and sum(counted.values()) == 4
    assert max(counted.values()) >= 2
