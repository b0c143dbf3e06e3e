"""Jobs end to end (DESIGN.md sections 5, 6 and 11): the route, what a finished heist pays and
where the player sees it (the result page's Signs, home, the profile), once whatever is retried,
and the first Night Market crew within three heists for a new account."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.test import Client

from game.models import Heist, JobPeriod
from game.selectors.heists import heist_snapshot
from game.services.heists import heist_finish, heists_claim_guest
from game.services.jobs import job_key, jobs_heist_finished
from shop import selectors as shop_selectors
from shop.economy import get_economy
from shop.models import Transaction
from shop.services import shop_catalogue_load, signs_welcome
from tests.support.heists import age_checked_client, make_player, post
from tests.support.jobs import play, pool_of, use_pool

pytestmark = [pytest.mark.django_db, pytest.mark.jobs]

# What each tier pays (shop/data/economy/<current>.json).
PAY = dict(get_economy().jobs)
EASY, MEDIUM, WEEKLY, STARTER = PAY["easy"], PAY["medium"], PAY["weekly"], PAY["starter"]


def _job(slug: str, kind: str, goal: int, tier: str = "easy", **params) -> dict:
    return {"slug": slug, "kind": kind, "params": params, "goal": goal, "tier": tier,
            "text": f"Do {slug}"}  # fmt: skip


@pytest.fixture
def small_pool(monkeypatch):
    """Jobs whose progress a test can tell in advance: one heist takes some loot, the second
    finishes two, the third three."""
    pool = pool_of(
        daily=[
            _job("loot-1", "loot", 1),
            _job("finish-2", "finish", 2, tier="medium"),
            _job("vaults-far", "vaults", 10**6),
        ],
        weekly=[_job("finish-3", "finish", 3, tier="weekly")],
        starter=_job("first-3", "finish", 3, tier="starter"),
    )
    use_pool(monkeypatch, pool)
    return pool


def page_text(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def jobs(client: Client) -> dict:
    response = client.get("/api/v1/jobs/")
    assert response.status_code == 200, response.content
    return response.json()


def by_slug(answer: dict) -> dict:
    return {j["slug"]: j for j in (*answer["daily"], *answer["weekly"], answer["starter"] or {})}


def test_a_guest_gets_sign_in_required_and_no_jobs_on_the_pages():
    guest = age_checked_client()
    response = guest.get("/api/v1/jobs/")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "sign_in_required"
    assert guest.get("/api/v1/me/").json()["time_zone"] is None
    assert 'id="jobs"' not in guest.get("/").content.decode()


def test_the_answer_holds_three_daily_jobs_one_weekly_and_the_starter(small_pool):
    user, client = make_player()
    answer = jobs(client)
    assert set(answer) == {"resets_at", "daily", "weekly", "weekly_resets_at", "time_zone",
                           "starter"}  # fmt: skip
    assert len(answer["daily"]) == 3 and len(answer["weekly"]) == 1
    assert {j["slug"] for j in answer["daily"]} == {"loot-1", "finish-2", "vaults-far"}
    first = answer["daily"][0]
    assert set(first) == {"slug", "text", "progress", "goal", "reward", "done", "paid"}
    assert answer["starter"] == {
        "slug": "first-3", "text": "Do first-3", "progress": 0, "goal": 3, "reward": STARTER,
        "done": False, "paid": False,
    }  # fmt: skip
    assert answer["time_zone"] == "UTC" == client.get("/api/v1/me/").json()["time_zone"]
    # The rewards are the economy's, by tier.
    assert {j["slug"]: j["reward"] for j in answer["daily"]} == {
        "loot-1": EASY, "finish-2": MEDIUM, "vaults-far": EASY
    }  # fmt: skip
    assert answer["weekly"][0]["reward"] == WEEKLY
    # Asking again opens nothing new: one period of each kind.
    jobs(client)
    assert JobPeriod.objects.filter(user=user).count() == 2


def test_a_job_pays_once_in_the_heists_own_transaction_and_the_result_page_says_so(small_pool):
    user, client = make_player()
    view = play(client, "greedy", seed=1)
    assert view["you"]["score"] >= 1
    heist = Heist.objects.get(pk=view["id"])
    period = JobPeriod.objects.get(user=user, kind="daily")
    paid = Transaction.objects.get(key=job_key(user_id=user.pk, period=period, slug="loot-1"))
    assert (paid.reason, paid.reference, paid.memo) == (
        "job",
        f"heist:{heist.pk}",
        "Job done: Do loot-1",
    )
    amounts = {e.account.slug or "wallet": e.amount for e in paid.entries.select_related("account")}
    assert amounts == {"wallet": EASY, "rewards": -EASY}
    assert shop_selectors.wallet_balance(user=user) == heist.signs_awarded + EASY
    state = by_slug(jobs(client))
    assert state["loot-1"]["done"] and state["loot-1"]["paid"]
    assert state["finish-2"] == {**state["finish-2"], "progress": 1, "done": False, "paid": False}
    # The result page's Signs list every ledger line about the heist: the award and the job.
    text = page_text(client, f"/heists/{heist.pk}/result/")
    assert f"Job done: +{EASY} Signs · Do loot-1" in text
    assert f"You earned {heist.signs_awarded + EASY} Signs for this heist." in text

    # Retried: the finish hook again, or the whole finish again, pays nothing more.
    assert jobs_heist_finished(heist=heist) == []
    heist_finish(heist=heist, state=heist_snapshot(heist).state)
    assert Transaction.objects.filter(reason="job").count() == 1
    assert shop_selectors.wallet_balance(user=user) == heist.signs_awarded + EASY

    # The second heist finishes "finish-2"; the third the week's job and the starter.
    second = play(client, "idle")
    assert list(Transaction.objects.filter(reference=f"heist:{second['id']}", reason="job")
                .values_list("memo", flat=True)) == ["Job done: Do finish-2"]  # fmt: skip
    third = play(client, "idle")
    memos = Transaction.objects.filter(reference=f"heist:{third['id']}", reason="job")
    assert sorted(memos.values_list("memo", flat=True)) == [
        "Job done: Do finish-3",
        "Job done: Do first-3",
    ]
    answer = jobs(client)
    assert answer["starter"] is None  # paid: gone
    assert all(j["paid"] for j in answer["weekly"])
    awards = sum(Heist.objects.filter(user=user).values_list("signs_awarded", flat=True))
    assert shop_selectors.wallet_balance(user=user) == awards + EASY + MEDIUM + WEEKLY + STARTER
    call_command("check_signs_ledger")


def test_home_and_the_profile_show_the_jobs_with_their_progress(small_pool):
    _user, client = make_player()
    play(client, "greedy", seed=1)
    home = page_text(client, "/")
    assert "Your jobs 1/3 today" in home
    assert f"Do loot-1 +{EASY} Signs ✓ Done, paid" in home
    assert f"Do finish-2 +{MEDIUM} Signs 1 of 2" in home
    assert f"First job Do first-3 +{STARTER} Signs 1 of 3" in home
    assert "This week" in home and f"Do finish-3 +{WEEKLY} Signs 1 of 3" in home
    assert "at midnight UTC" in home
    profile = page_text(client, "/accounts/profile/")
    assert f"Do loot-1 +{EASY} Signs ✓ Done, paid" in profile
    assert "Your time zone" in profile


def test_the_wallet_calls_a_job_payout_job_done(small_pool):
    _user, client = make_player()
    play(client, "greedy", seed=1)
    entries = client.get("/api/v1/wallet/").json()["entries"]
    assert [e["reason"] for e in entries][:2] == ["job", "heist"]


def test_a_new_account_buys_its_first_night_market_crew_within_three_heists():
    """Pacing (docs/economy.md): the welcome grant and the starter job, with three heists lost
    at Rookie (the least a heist earns), pay for the cheapest Night Market crew."""
    shop_catalogue_load()
    user, client = make_player()
    signs_welcome(user=user)
    for _ in range(3):
        view = play(client, "idle")
        assert view["result"]["outcome"] == "loss"
    balance = shop_selectors.wallet_balance(user=user)
    shelf = client.get("/api/v1/shop/").json()["items"]
    cheapest = min((i for i in shelf if i["kind"] == "crew"), key=lambda i: i["price"])
    assert balance >= cheapest["price"], (balance, cheapest)
    bought = client.post(
        "/api/v1/shop/purchases/",
        {"item": cheapest["slug"], "price": cheapest["price"]},
        content_type="application/json",
        headers={"Idempotency-Key": "first-crew"},
    )
    assert bought.status_code == 201, bought.content


def test_a_heist_finished_as_a_guest_and_claimed_later_pays_no_job(small_pool):
    browser = age_checked_client()
    view = play(browser, "greedy", seed=1)
    user, _ = make_player("claimer@example.com")
    guest_id = Heist.objects.get(pk=view["id"]).guest_id
    assert heists_claim_guest(user=user, guest_id=guest_id) == 1  # as signing in does
    heist = Heist.objects.get(pk=view["id"])
    assert heist.user_id == user.pk and heist.signs_reason == "guest"
    assert jobs_heist_finished(heist=heist) == []
    client = Client()
    client.force_login(user)
    assert by_slug(jobs(client))["loot-1"]["progress"] == 0
    assert not Transaction.objects.filter(reason="job").exists()


def test_the_time_zone_route_refuses_a_guest_and_an_unknown_zone():
    guest = age_checked_client()
    response = guest.put("/api/v1/me/time-zone/", {"time_zone": "Europe/Paris"},
                         content_type="application/json")  # fmt: skip
    assert response.status_code == 403 and response.json()["error"]["code"] == "sign_in_required"
    _user, client = make_player()
    bad = client.put("/api/v1/me/time-zone/", {"time_zone": "Mars/Olympus"},
                     content_type="application/json")  # fmt: skip
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "unknown_time_zone"
    assert post(client, "/api/v1/me/time-zone/").status_code == 405
