"""Signs for heists, end to end: the heist finish pays through the shop in its own transaction,
once, and the heist and its result page say what it earned or why nothing (guest, daily limit,
abandoned, finished as a guest before signing up)."""

from __future__ import annotations

import datetime as dt
import re
import threading
import uuid

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.utils import timezone

from game.models import Heist
from game.owners import Owner
from game.selectors import heists as selectors
from game.services import abandon
from game.services import heists as services
from game.tasks import plan_rival_night
from shop import services as shop_services
from shop.models import Account, Entry, HeistEarning, Transaction
from tests.support.challenges import accept, make_challenge
from tests.support.heists import age_checked_client, make_player, play_out, seal, start

TABLE = {
    "rookie": {"win": 10, "draw": 5, "loss": 3},
    "kingpin": {"win": 60, "draw": 30, "loss": 12},
}


def ledger_counts() -> tuple[int, int, int, int]:
    return (
        Account.objects.filter(kind="wallet").count(),
        Transaction.objects.count(),
        Entry.objects.count(),
        HeistEarning.objects.count(),
    )


def result_page(client: Client, heist_id: str) -> str:
    response = client.get(f"/heists/{heist_id}/result/")
    assert response.status_code == 200
    # The text a person reads: tags out, white space collapsed.
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def wallet_balance(user) -> int:
    return Account.objects.get(kind="wallet", user=user).balance


@pytest.mark.django_db
def test_a_signed_in_player_earns_the_tables_signs_once():
    user, client = make_player()
    view = play_out(client, start(client, difficulty="kingpin"), seed=4)
    outcome = view["result"]["outcome"]
    earned = TABLE["kingpin"][outcome]
    assert view["result"]["signs_awarded"] == earned
    heist = Heist.objects.get(pk=view["id"])
    assert (heist.signs_awarded, heist.signs_reason) == (earned, "earned")
    tx = Transaction.objects.get(key=f"heist:{heist.pk}")
    assert tx.reason == "heist" and tx.reference == f"heist:{heist.pk}"
    assert wallet_balance(user) == earned
    assert client.get("/api/v1/me/").json()["signs"] == earned
    plural = "s" if earned != 1 else ""
    assert f"You earned {earned} Sign{plural} for this heist." in result_page(client, view["id"])
    # A retried finish (a second worker, a replayed request) pays nothing more.
    nights = selectors.heist_nights(heist)
    state = selectors.heist_state(heist, nights)
    again = services.heist_finish(heist=heist, state=state)
    assert again.signs_awarded == earned
    assert Transaction.objects.count() == 1 and wallet_balance(user) == earned


@pytest.mark.django_db
def test_a_guest_heist_writes_no_ledger_rows_at_all():
    guest = age_checked_client()
    view = play_out(guest, start(guest, difficulty="kingpin"), seed=5)
    heist = Heist.objects.get(pk=view["id"])
    assert (heist.signs_awarded, heist.signs_reason) == (None, "guest")
    assert view["result"]["signs_awarded"] is None
    assert ledger_counts() == (0, 0, 0, 0)
    page = result_page(guest, view["id"])
    assert "Sign up or sign in to earn Signs" in page


@pytest.mark.django_db
def test_an_abandoned_heist_earns_nothing_and_the_result_page_says_so():
    _, client = make_player()
    view = start(client)
    assert seal(client, view["id"], {"night": 1, "crew": []}).status_code == 200
    Heist.objects.filter(pk=view["id"]).update(
        last_activity_at=timezone.now() - dt.timedelta(days=2)
    )
    assert abandon.heists_abandon_stale(older_than=dt.timedelta(days=1)) == 1
    heist = Heist.objects.get(pk=view["id"])
    assert (heist.status, heist.signs_awarded, heist.signs_reason) == (
        "abandoned",
        None,
        "abandoned",
    )
    # No Signs moved; the heist counts toward the day's limit (an earning of 0, abandoned,
    # under the wallet's lock: issue 27, S13).
    assert ledger_counts() == (1, 0, 0, 1)
    assert HeistEarning.objects.get().result == "abandoned"
    assert "This heist was abandoned, so it earned no Signs." in result_page(client, view["id"])
    # The admin's abandon says the same.
    other = start(client)
    abandon.heist_abandon(heist_id=other["id"])
    assert Heist.objects.get(pk=other["id"]).signs_reason == "abandoned"


@pytest.mark.django_db
def test_the_21st_finished_heist_of_the_utc_day_earns_0_and_the_page_says_why():
    user, client = make_player()
    for _ in range(20):  # twenty heists finished earlier today (UTC)
        shop_services.signs_award(
            player_id=user.pk,
            heist_id=uuid.uuid4(),
            outcome="loss",
            difficulty="rookie",
            nights_sealed=6,
            nights=6,
            finished_at=timezone.now(),
        )
    assert wallet_balance(user) == 60
    view = play_out(client, start(client), seed=6)
    assert view["result"]["signs_awarded"] == 0
    heist = Heist.objects.get(pk=view["id"])
    assert (heist.signs_awarded, heist.signs_reason) == (0, "daily_limit")
    assert wallet_balance(user) == 60
    assert HeistEarning.objects.get(heist_id=heist.pk).result == "daily_limit"
    page = result_page(client, view["id"])
    assert "only your first 20 finished heists of a day (UTC) earn Signs" in page


@pytest.mark.django_db
def test_a_guest_heist_claimed_at_sign_up_does_not_earn_and_one_in_play_earns_once():
    from tests.support.accounts import make_player as sign_up

    cache.clear()  # the sign-up's rate limits start clean
    browser = age_checked_client()
    finished = play_out(browser, start(browser, difficulty="kingpin"), seed=7)
    in_play = start(browser)
    assert seal(browser, in_play["id"], {"night": 1, "crew": []}).status_code == 200

    user = sign_up(browser, email="late@example.com")
    claimed = Heist.objects.get(pk=finished["id"])
    assert claimed.user_id == user.pk  # the account keeps it (game.signals)
    assert (claimed.signs_awarded, claimed.signs_reason) == (None, "guest")
    # The welcome grant, and nothing for the heist finished as a guest.
    assert wallet_balance(user) == 100
    assert not HeistEarning.objects.filter(heist_id=claimed.pk).exists()
    assert "This heist was finished as a guest, so it earned no Signs" in result_page(
        browser, finished["id"]
    )

    # The heist that was still in play is finished signed in: it earns, once.
    done = play_out(browser, browser.get(f"/api/v1/heists/{in_play['id']}/").json(), seed=8)
    earned = TABLE["rookie"][done["result"]["outcome"]]
    assert done["result"]["signs_awarded"] == earned
    assert wallet_balance(user) == 100 + earned
    # Signing out and in again claims nothing new and pays nothing more.
    browser.logout()
    browser.force_login(user)  # sends user_logged_in, which claims this browser's heists
    assert wallet_balance(user) == 100 + earned
    assert Transaction.objects.filter(reason="heist").count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_50_threads_finishing_the_same_heist_award_it_once():
    user, client = make_player()
    view = start(client, difficulty="kingpin")
    heist_id = view["id"]
    for night in range(1, 6):
        assert seal(client, heist_id, {"night": night, "crew": []}).status_code == 200
    plan_rival_night(heist_id, 6)  # every thread goes straight for the heist's lock
    owner = Owner(user_id=user.pk)
    barrier = threading.Barrier(50)
    outcomes: list = []

    def finish():
        try:
            barrier.wait(timeout=30)
            services.plan_seal(heist_id=heist_id, owner=owner, night=6, crew=[], boost=False)
            outcomes.append("sealed")
        except Exception as exc:
            outcomes.append(getattr(exc, "code", repr(exc)))
        finally:
            connection.close()

    threads = [threading.Thread(target=finish) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(set(outcomes)) == ["heist_finished", "sealed"]
    assert outcomes.count("sealed") == 1 and len(outcomes) == 50
    heist = Heist.objects.get(pk=heist_id)
    earned = TABLE["kingpin"][heist.outcome]
    assert (heist.status, heist.signs_awarded) == ("finished", earned)
    assert Transaction.objects.filter(reason="heist").count() == 1
    assert HeistEarning.objects.count() == 1
    assert wallet_balance(user) == earned


# --- an abandoned heist counts toward the day (issue 27, S13) ------------------------------------


def _earn_today(user, count: int) -> None:
    for _ in range(count):
        shop_services.signs_award(
            player_id=user.pk,
            heist_id=uuid.uuid4(),
            outcome="win",
            difficulty="rookie",
            nights_sealed=6,
            nights=6,
            finished_at=timezone.now(),
        )


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["admin", "cap", "stale"])
def test_an_abandoned_heist_counts_toward_the_days_twenty(settings, how):
    # Leaving a losing heist unfinished cost nothing: the limit capped good results, not play.
    settings.HEIST_ACTIVE_MAX = 1
    user, client = make_player()
    _earn_today(user, 19)
    left = start(client)
    if how == "admin":
        abandon.heist_abandon(heist_id=left["id"])
    elif how == "stale":
        Heist.objects.filter(pk=left["id"]).update(
            last_activity_at=timezone.now() - dt.timedelta(days=2)
        )
        assert abandon.heists_abandon_stale(older_than=dt.timedelta(days=1)) == 1
    view = start(client)  # with HEIST_ACTIVE_MAX 1, "cap" abandons the first one here
    assert Heist.objects.get(pk=left["id"]).status == "abandoned"
    done = play_out(client, view)
    heist = Heist.objects.get(pk=done["id"])
    assert (heist.signs_awarded, heist.signs_reason) == (0, "daily_limit"), how
    row = HeistEarning.objects.get(heist_id=left["id"])
    assert (row.amount, row.result, row.user_id) == (0, "abandoned", user.pk)


@pytest.mark.django_db
def test_an_abandoned_heist_is_a_loss_on_the_profile():
    user, client = make_player()
    view = start(client)
    abandon.heist_abandon(heist_id=view["id"])
    page = client.get("/accounts/profile/").content.decode()
    from game.presenters.profile import profile_context

    tallies = profile_context(user)["tallies"]
    assert [(t["win"], t["draw"], t["loss"]) for t in tallies] == [(0, 0, 1)]
    # The page shows that record: one loss, nothing won or drawn.
    cells = re.findall(r'data-label="(Won|Drawn|Lost)">(\d+)<', page)
    assert cells == [("Won", "0"), ("Drawn", "0"), ("Lost", "1")], cells


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["admin", "cap", "stale"])
def test_an_abandoned_practice_retry_counts_toward_nothing(settings, how):
    # A practice retry never earns (DESIGN.md section 10), so leaving one unfinished must not
    # use up one of the day's 20 earnings either: trying night 3 again and walking away is
    # practice, not an escape from a loss.
    settings.HEIST_ACTIVE_MAX = 1
    user, client = make_player()
    _earn_today(user, 18)
    first = play_out(client, start(client))  # the day's 19th earning
    assert HeistEarning.objects.filter(user=user).count() == 19
    retry = client.post(
        f"/api/v1/heists/{first['id']}/retry/", {"night": 3}, content_type="application/json"
    )
    assert retry.status_code == 201, retry.content
    left = retry.json()["id"]
    if how == "admin":
        abandon.heist_abandon(heist_id=left)
    elif how == "stale":
        Heist.objects.filter(pk=left).update(last_activity_at=timezone.now() - dt.timedelta(days=2))
        assert abandon.heists_abandon_stale(older_than=dt.timedelta(days=1)) == 1
    view = start(client)  # with HEIST_ACTIVE_MAX 1, "cap" abandons the retry here
    assert Heist.objects.get(pk=left).status == "abandoned"
    assert not HeistEarning.objects.filter(heist_id=left).exists(), how
    done = Heist.objects.get(pk=play_out(client, view)["id"])
    assert done.signs_reason != "daily_limit" and done.signs_awarded > 0, how


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["admin", "cap", "stale"])
def test_an_abandoned_challenge_counts_toward_nothing(settings, how):
    # A challenge never earns (DESIGN.md section 11), so walking away from one must not use up
    # one of the day's 20 earnings either, as for a practice retry.
    settings.HEIST_ACTIVE_MAX = 1
    _challenger, challenger_client = make_player("challenger@example.com")
    slug = make_challenge(
        challenger_client, play_out(challenger_client, start(challenger_client))["id"]
    )["slug"]
    user, client = make_player()
    _earn_today(user, 18)
    play_out(client, start(client))  # the day's 19th earning
    assert HeistEarning.objects.filter(user=user).count() == 19
    left = accept(client, slug)["id"]
    if how == "admin":
        abandon.heist_abandon(heist_id=left)
    elif how == "stale":
        Heist.objects.filter(pk=left).update(last_activity_at=timezone.now() - dt.timedelta(days=2))
        assert abandon.heists_abandon_stale(older_than=dt.timedelta(days=1)) >= 1
    view = start(client)  # with HEIST_ACTIVE_MAX 1, "cap" abandons the challenge here
    assert Heist.objects.get(pk=left).status == "abandoned"
    assert not HeistEarning.objects.filter(heist_id=left).exists(), how
    done = Heist.objects.get(pk=play_out(client, view)["id"])
    assert done.signs_reason != "daily_limit" and done.signs_awarded > 0, how
