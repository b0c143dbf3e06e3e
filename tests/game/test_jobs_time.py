"""A player's day turns at midnight in their own time zone (DESIGN.md section 11), with the
clock moved: across midnight in three zones (one of them on the day its clocks go forward), a
missed day, and time zone changes, which never make a day shorter than 20 hours nor pay a job
twice. Heists are played through the API; the jobs are a small pool whose first job every heist
that takes any loot completes."""

from __future__ import annotations

import datetime as dt
import itertools
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.db import IntegrityError, transaction

from game.models import JobPeriod
from shop.models import Transaction
from tests.support.heists import make_player
from tests.support.jobs import play, pool_of, use_pool

pytestmark = [pytest.mark.django_db, pytest.mark.jobs, pytest.mark.usefixtures("long_sessions")]

TWENTY_HOURS = dt.timedelta(hours=20)


@pytest.fixture(autouse=True)
def small_pool(monkeypatch):
    job = {"kind": "loot", "goal": 1, "tier": "easy"}
    use_pool(
        monkeypatch,
        pool_of(
            daily=[
                {**job, "slug": "loot-1", "text": "Take some Loot"},
                {"slug": "win-far", "kind": "win", "goal": 10**6, "tier": "easy", "text": "Far"},
                {"slug": "far", "kind": "finish", "goal": 10**6, "tier": "easy", "text": "Far"},
            ],
            weekly=[{"slug": "wk", "kind": "vaults", "goal": 10**6, "tier": "weekly", "text": "W"}],
        ),
    )


def local(zone: str, *args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=ZoneInfo(zone)).astimezone(dt.UTC)


def set_zone(client, zone: str) -> dict:
    response = client.put(
        "/api/v1/me/time-zone/", {"time_zone": zone}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def jobs(client) -> dict:
    response = client.get("/api/v1/jobs/")
    assert response.status_code == 200, response.content
    return response.json()


def loot_job(answer: dict) -> dict:
    return next(j for j in answer["daily"] if j["slug"] == "loot-1")


def loot_payouts(user) -> list[Transaction]:
    return list(
        Transaction.objects.filter(reason="job", key__startswith=f"job:{user.pk}:daily:")
        .filter(key__endswith=":loot-1")
        .order_by("pk")
    )


def assert_periods_sound(user) -> list[JobPeriod]:
    """No period of the player shorter than 20 hours, none overlapping another."""
    days = list(JobPeriod.objects.filter(user=user, kind="daily").order_by("starts_at"))
    for period in days:
        assert period.ends_at - period.starts_at >= TWENTY_HOURS, period
    for before, after in itertools.pairwise(days):
        assert before.ends_at <= after.starts_at, (before, after)
    return days


@pytest.mark.parametrize(
    ("zone", "day", "hours"),
    [
        ("Pacific/Auckland", (2027, 3, 10), 24),
        ("Asia/Kolkata", (2027, 3, 10), 24),
        # The day its clocks go forward: 23 hours long, and still a whole day of jobs.
        ("America/Los_Angeles", (2027, 3, 14), 23),
    ],
)
def test_the_day_turns_at_midnight_in_the_players_zone(zone, day, hours):
    user, client = make_player()
    evening = local(zone, *day, 23, 40)
    with time_machine.travel(evening, tick=False) as clock:
        assert set_zone(client, zone) == {"time_zone": zone, "changed": True}
        answer = jobs(client)
        midnight = local(zone, *day, 0, 0)
        next_midnight = midnight + dt.timedelta(hours=hours)
        assert dt.datetime.fromisoformat(answer["resets_at"]) == next_midnight
        assert answer["time_zone"] == zone
        period = JobPeriod.objects.get(user=user, kind="daily")
        assert (period.starts_at, period.ends_at) == (midnight, next_midnight)

        # A heist finished a second before midnight counts for the day that is ending.
        clock.move_to(next_midnight - dt.timedelta(seconds=1))
        play(client, "greedy", seed=1)
        job = loot_job(jobs(client))
        assert job["done"] and job["paid"] and job["progress"] == 1
        assert len(loot_payouts(user)) == 1

        # Past midnight: a new day, the job to do again, and paid again, once.
        clock.move_to(next_midnight + dt.timedelta(minutes=10))
        fresh = jobs(client)
        assert loot_job(fresh)["progress"] == 0 and not loot_job(fresh)["paid"]
        assert dt.datetime.fromisoformat(fresh["resets_at"]) > next_midnight + TWENTY_HOURS
        play(client, "greedy", seed=1)
        play(client, "greedy", seed=2)
        first, second = loot_payouts(user)
        assert first.key != second.key
        assert len(assert_periods_sound(user)) == 2
    call_command("check_signs_ledger")


def test_a_missed_day_is_simply_never_opened():
    user, client = make_player()
    zone = "Europe/Paris"
    with time_machine.travel(local(zone, 2027, 5, 3, 9, 0), tick=False) as clock:
        set_zone(client, zone)
        play(client, "greedy", seed=1)
        clock.move_to(local(zone, 2027, 5, 5, 18, 0))  # the 4th passed without a visit
        answer = jobs(client)
        assert loot_job(answer)["progress"] == 0
        days = assert_periods_sound(user)
        assert [p.starts_at for p in days] == [
            local(zone, 2027, 5, 3, 0, 0),
            local(zone, 2027, 5, 5, 0, 0),
        ]


def test_changing_zone_never_makes_a_day_shorter_than_20_hours_nor_pays_twice():
    user, client = make_player()
    start = dt.datetime(2027, 3, 2, 0, 0, tzinfo=dt.UTC)
    with time_machine.travel(start + dt.timedelta(hours=10), tick=False) as clock:
        play(client, "greedy", seed=1)  # the UTC day opens at midnight UTC, and pays loot-1
        assert len(loot_payouts(user)) == 1
        # Kiritimati (UTC+14) turned its day at 10:00 UTC, right now: this day goes on to its
        # next midnight instead (34 hours in all), and loot-1 is not to be done again today.
        assert set_zone(client, "Pacific/Kiritimati")["changed"]
        answer = jobs(client)
        assert loot_job(answer)["paid"]
        period = JobPeriod.objects.get(user=user, kind="daily")
        assert period.starts_at == start
        assert period.ends_at == dt.datetime(2027, 3, 3, 10, 0, tzinfo=dt.UTC)
        assert period.time_zone == "Pacific/Kiritimati"
        play(client, "greedy", seed=2)
        assert len(loot_payouts(user)) == 1

        # Hopping to whichever zone turns next, again and again, never turns the day early.
        for hours, zone in ((14, "Asia/Tokyo"), (19, "Pacific/Auckland"), (21, "Europe/London")):
            clock.move_to(start + dt.timedelta(hours=hours))
            set_zone(client, zone)
            period.refresh_from_db()
            assert period.starts_at == start
            assert period.ends_at - start >= TWENTY_HOURS
            assert period.ends_at > start + dt.timedelta(hours=hours)
            play(client, "greedy", seed=hours)
            assert len(loot_payouts(user)) == 1
        # London (UTC+0 in March): its next midnight at least 20 hours after the start.
        assert period.ends_at == dt.datetime(2027, 3, 3, 0, 0, tzinfo=dt.UTC)

        # Days later, through more changes: every day at least 20 hours, none overlapping,
        # loot-1 paid at most once a day.
        for step, zone in enumerate(("America/Los_Angeles", "Asia/Kolkata", "UTC", "Asia/Tokyo")):
            clock.move_to(start + dt.timedelta(days=1 + step, hours=7 * step + 1))
            play(client, "greedy", seed=10 + step)
            set_zone(client, zone)
            play(client, "greedy", seed=20 + step)
        days = assert_periods_sound(user)
        payouts = loot_payouts(user)
        assert len(payouts) == len({p.key for p in payouts}) <= len(days)
    call_command("check_signs_ledger")


# Every whole-hour offset from UTC-12 to UTC+14 (the Etc zones' signs are POSIX's, reversed).
EVERY_HOUR = [f"Etc/GMT{-h:+d}" if h else "UTC" for h in range(-12, 15)]


def test_a_player_hopping_zones_every_day_gains_at_most_one_day_in_five():
    """The best a player can do by changing zones (issue 27's pass over the jobs): every day,
    try every offset and keep the one whose midnight comes soonest, then cross midnight there
    and back again. Each day still lasts 20 hours at least, so 10 days of the clock hold at most
    12 days of jobs (24 / 20), and each day pays its job once."""
    user, client = make_player()
    begin = dt.datetime(2027, 3, 2, 0, 0, tzinfo=dt.UTC)
    with time_machine.travel(begin + dt.timedelta(hours=1), tick=False) as clock:
        now = begin + dt.timedelta(hours=1)
        while now < begin + dt.timedelta(days=10):
            play(client, "greedy", seed=int(now.timestamp()) % 1000)
            assert loot_job(jobs(client))["paid"]
            # Try every offset; keep the soonest turn of the day.
            soonest = {}
            for zone in EVERY_HOUR:
                set_zone(client, zone)
                soonest[zone] = dt.datetime.fromisoformat(jobs(client)["resets_at"])
            zone = min(soonest, key=soonest.get)
            set_zone(client, zone)
            resets = dt.datetime.fromisoformat(jobs(client)["resets_at"])
            assert resets == soonest[zone]
            # A minute before that midnight, hop to a zone already past it and back.
            now = resets - dt.timedelta(minutes=1)
            clock.move_to(now)
            set_zone(client, "Pacific/Kiritimati" if zone != "Pacific/Kiritimati" else "UTC")
            set_zone(client, zone)
            assert loot_job(jobs(client))["paid"]  # still the same day, paid already
            play(client, "greedy", seed=7)
            now = resets + dt.timedelta(minutes=1)
            clock.move_to(now)
        hours = (now - begin) / dt.timedelta(hours=1)
        days = assert_periods_sound(user)
        payouts = loot_payouts(user)
    assert len(payouts) == len({p.key for p in payouts}) == len(days)
    assert len(days) <= hours / 20 + 1, (len(days), hours)
    call_command("check_signs_ledger")


def test_the_browser_sets_the_zone_only_while_none_is_set():
    _user, client = make_player()
    browser = {"time_zone": "Asia/Tokyo", "if_unset": True}
    put = client.put("/api/v1/me/time-zone/", browser, content_type="application/json")
    assert put.json() == {"time_zone": "Asia/Tokyo", "changed": True}
    set_zone(client, "Europe/Berlin")  # the player's own choice, on the profile
    again = {"time_zone": "America/Chicago", "if_unset": True}
    put = client.put("/api/v1/me/time-zone/", again, content_type="application/json")
    assert put.json() == {"time_zone": "Europe/Berlin", "changed": False}
    assert client.get("/api/v1/me/").json()["time_zone"] == "Europe/Berlin"


def test_the_profile_form_sets_the_zone_and_the_day_turns_there():
    user, client = make_player()
    with time_machine.travel(dt.datetime(2027, 6, 1, 12, 0, tzinfo=dt.UTC), tick=False):
        jobs(client)  # opened in UTC; the first zone set redraws it (nothing paid yet)
        response = client.post("/accounts/profile/time-zone/", {"time_zone": "Asia/Kolkata"})
        assert response.status_code == 302
        page = client.get(response["Location"]).content.decode()
        assert "Your time zone is Asia/Kolkata now." in page
        assert '<option value="Asia/Kolkata" selected>' in page
        period = JobPeriod.objects.get(user=user, kind="daily")
        assert (period.starts_at, period.ends_at) == (
            local("Asia/Kolkata", 2027, 6, 1, 0, 0),
            local("Asia/Kolkata", 2027, 6, 2, 0, 0),
        )
        bad = client.post("/accounts/profile/time-zone/", {"time_zone": "Nowhere/Else"})
        assert "not one we know" in client.get(bad["Location"]).content.decode()


@pytest.mark.postgres(reason="the 20-hour floor is a CHECK of PostgreSQL's (migration 0008)")
def test_the_database_refuses_a_day_shorter_than_20_hours():
    user, _client = make_player()
    start = dt.datetime(2027, 3, 2, tzinfo=dt.UTC)
    fields = {"user": user, "time_zone": "UTC", "pool": "t", "economy": "t", "jobs": []}
    with pytest.raises(IntegrityError), transaction.atomic():
        JobPeriod.objects.create(
            kind="daily", starts_at=start, ends_at=start + dt.timedelta(hours=19), **fields
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        JobPeriod.objects.create(
            kind="weekly", starts_at=start, ends_at=start + dt.timedelta(days=6), **fields
        )
    JobPeriod.objects.create(kind="daily", starts_at=start, ends_at=start + TWENTY_HOURS, **fields)
