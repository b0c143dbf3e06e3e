"""The welcome grant and a featured slot's ranked try are once per person (issue 27, S4): an
account deleted and made again with the same address (in any case) gets neither again, and a
deleted player's entry leaves the open slot's board, so its prizes go to the next places.
What is kept of the deleted account to know it is a keyed hash of its address, never the
address."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from accounts import services as account_services
from game.models import FeaturedEntry, FeaturedSlot
from game.services import featured as featured_services
from shop.models import Reason, Transaction
from shop.selectors import wallet_balance
from tests.support.accounts import confirm_email, signup, years_ago
from tests.support.accounts import make_player as sign_up_player
from tests.support.featured import T0, start_featured
from tests.support.heists import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    # allauth's one mail per address every few minutes lives in the cache: start clean.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def clock(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True) as traveller:
        yield traveller


@pytest.fixture
def slot(clock) -> FeaturedSlot:
    featured_services.featured_reconcile()
    return FeaturedSlot.objects.get(starts_at=T0)


def _welcomes(user) -> int:
    return Transaction.objects.filter(reason=Reason.WELCOME, key=f"welcome:{user.pk}").count()


def test_an_account_made_again_with_the_same_address_gets_no_second_welcome_or_ranked_try(
    slot,
):
    first_browser = Client()
    first = sign_up_player(first_browser, email="again@example.com")
    assert wallet_balance(user=first) == 100
    ranked = start_featured(first_browser, slot.slug)
    assert ranked["ranked"] is True
    account_services.account_delete(user=first)

    cache.clear()  # some minutes later (allauth sends one mail per address every few)
    browser = Client()
    assert signup(browser, email="Again@Example.com", birth_date=years_ago(30)).status_code == 302
    assert confirm_email(browser, "again@example.com").status_code == 302
    second = get_user_model().objects.get(email__iexact="again@example.com")
    assert second.pk != first.pk
    assert _welcomes(second) == 0 and wallet_balance(user=second) == 0
    view = start_featured(browser, slot.slug)
    assert view["ranked"] is False  # practice, on a seed of its own
    assert view["seed_commitment"] != slot.seed_commitment
    # Someone else is someone else.
    other_browser = Client()
    other = sign_up_player(other_browser, email="someone@example.com")
    assert wallet_balance(user=other) == 100
    assert start_featured(other_browser, slot.slug)["ranked"] is True


def test_what_is_kept_is_a_keyed_hash_never_the_address(slot):
    from django.utils.crypto import salted_hmac

    from accounts.models import PersonUse

    user = sign_up_player(Client(), email="private.person@example.com")
    account_services.account_delete(user=user)
    kept = list(PersonUse.objects.values_list("person", "what"))
    assert kept and {what for _, what in kept} >= {"welcome"}
    for person, _ in kept:
        assert "@" not in person and "private" not in person.lower()
    expected = salted_hmac(
        "veyltak.accounts.person", "private.person@example.com", algorithm="sha256"
    ).hexdigest()
    assert {person for person, _ in kept} == {expected}
    # The key is of the normalised address: any case, any NFKC form is the same person.
    from accounts.persons import person_key

    assert person_key(" Private.Person@EXAMPLE.com ") == expected
    assert not get_user_model().objects.filter(email__iexact="private.person@example.com")


def test_a_deleted_players_entry_leaves_the_open_board_and_the_prizes_go_to_the_next(slot, clock):
    players = []
    for i in range(4):
        browser = Client()
        user = sign_up_player(browser, email=f"p{i}@example.com")
        play_out(browser, start_featured(browser, slot.slug), seed=i)
        players.append(user)
    order = list(
        FeaturedEntry.objects.filter(slot=slot)
        .order_by("-score", "-margin", "finished_at", "heist")
        .values_list("user_id", flat=True)
    )
    leader = get_user_model().objects.get(pk=order[0])
    account_services.account_delete(user=leader)
    assert FeaturedEntry.objects.filter(slot=slot).count() == 3
    board = Client().get(f"/api/v1/featured/{slot.slug}/leaderboard/").json()["entries"]
    assert [e["rank"] for e in board] == [1, 2, 3] and all(e["player"] for e in board)
    clock.move_to(slot.ends_at + dt.timedelta(seconds=1))
    featured_services.featured_reconcile()
    prizes = [150, 100, 75]
    for user_id, prize in zip(order[1:], prizes, strict=True):
        user = get_user_model().objects.get(pk=user_id)
        assert wallet_balance(user=user) >= 100 + prize, user.email
    paid = Transaction.objects.get(key=f"featured:{slot.slug}")
    assert paid.entries.filter(amount__gt=0).count() == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_a_deletion_at_the_moment_the_slot_closes_pays_the_board_that_stays(settings, round_):
    # The close and the deletion queue on the slot's row (share lock against the close's
    # update): either the close pays first (the entry stays on the closed board, nameless) or
    # the entry leaves first and the next players are paid. Never a prize to nobody.
    from tests.support.featured import make_entry
    from tests.support.threads import run_threads

    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=False):
        featured_services.featured_reconcile()
    slot = FeaturedSlot.objects.get(starts_at=T0)
    users = [
        get_user_model().objects.create_user(f"r{round_}-{i}", f"r{round_}-{i}@example.com")
        for i in range(4)
    ]
    for i, user in enumerate(users):
        make_entry(
            slot, user, score=20 - i, rival_score=0, finished_at=T0 + dt.timedelta(minutes=i)
        )
    with time_machine.travel(slot.ends_at + dt.timedelta(seconds=5), tick=False):
        run_threads(
            featured_services.featured_reconcile,
            lambda: account_services.account_delete(user=users[0]),
        )
    slot.refresh_from_db()
    assert slot.closed_at is not None
    paid = Transaction.objects.get(key=f"featured:{slot.slug}")
    recipients = list(paid.entries.filter(amount__gt=0).values_list("account__user_id", flat=True))
    assert len(recipients) == 3
    board = list(
        FeaturedEntry.objects.filter(slot=slot)
        .order_by("-score", "-margin", "finished_at", "heist")
        .values_list("user_id", flat=True)
    )
    if FeaturedEntry.objects.filter(slot=slot).count() == 4:  # the close came first
        # The leader was paid, then left: the entry and the wallet stay, nameless.
        assert board[0] is None and recipients.count(None) == 1
    else:
        assert set(recipients) == {u.pk for u in users[1:]}
