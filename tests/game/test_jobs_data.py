"""The jobs' data and their pure parts: the pool file and its checks, the seeded draw, the
economy's job rewards, and the period rules under any time zone and any changes of it
(Hypothesis)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from importlib import resources
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.jobs import conditions, periods
from game.jobs import pool as job_pool
from shop import economy

pytestmark = pytest.mark.jobs  # the packaged pool, not the suite's default

JOB = {"slug": "j", "kind": "win", "goal": 1, "tier": "easy", "text": "Win"}


def _pool(**changes) -> dict:
    daily = [
        {**JOB, "slug": "a"},
        {**JOB, "slug": "b", "kind": "finish"},
        {**JOB, "slug": "c", "kind": "loot", "goal": 40},
    ]
    return {"version": "t", "daily": daily, "weekly": [{**JOB, "slug": "w"}], **changes}


def test_the_packaged_pool_is_valid_and_uses_every_kind_of_condition():
    pool = job_pool.active()
    raw = json.loads(
        resources.files("game").joinpath("data", "jobs", f"{pool.version}.json").read_text()
    )
    assert raw["version"] == pool.version == job_pool.CURRENT_VERSION
    assert len(conditions.KINDS) >= 15
    assert {j.kind for j in (*pool.daily, *pool.weekly)} == set(conditions.KINDS)
    assert pool.starter is not None and pool.starter.goal <= 3
    for job in (*pool.daily, *pool.weekly, pool.starter):
        assert job.tier in economy.get_economy().jobs, job
        if job.goal > 1:
            assert str(job.goal) in job.text, job  # the sentence says how many


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"daily": [{**JOB, "kind": "teleport"}]}, "unknown kind"),
        ({"daily": [{**JOB, "kind": "vault"}]}, "needs"),
        ({"daily": [{**JOB, "kind": "vault", "params": {"vault": "moon-base"}}]}, "no vault"),
        ({"daily": [{**JOB, "kind": "crew", "params": {"crew": "fence"}}]}, "no crew"),
        ({"daily": [{**JOB, "params": {"level": "legend"}}]}, "no level"),
        ({"daily": [{**JOB, "params": {"margin": 3}}]}, "takes no"),
        ({"daily": [{**JOB, "goal": 0}]}, "goal"),
        ({"daily": [{**JOB, "goal": True}]}, "goal"),
        ({"daily": [{**JOB, "tier": "gold"}]}, "tier"),
        ({"daily": [{**JOB, "text": ""}]}, "text"),
        ({"daily": [{**JOB, "text": "x" * 101}]}, "text"),
        ({"daily": [{**JOB, "slug": "a b"}]}, "slug"),
        ({"daily": [{**JOB, "surprise": 1}]}, "unknown fields"),
        ({"daily": [{**JOB, "slug": "a"}, {**JOB, "slug": "b"}, {**JOB, "slug": "c"}]}, "kinds"),
        ({"weekly": [{**JOB, "slug": "a"}]}, "repeat"),
        ({"version": "u"}, "version"),
        ({"monthly": []}, "unknown fields"),
    ],
)
def test_a_malformed_pool_is_refused(change, why):
    with pytest.raises(job_pool.PoolError, match=why):
        job_pool.parse(_pool(**change), version="t", known=job_pool.known_now())


def test_the_draw_is_seeded_of_different_kinds_and_differs_between_players():
    pool = job_pool.active()
    draws = [
        job_pool.draw(pool.daily, 3, f"{pool.version}/{player}/daily/2027-03-01T00:00:00+00:00")
        for player in range(40)
    ]
    for drawn in draws:
        assert len(drawn) == 3 and len({j.kind for j in drawn}) == 3
    assert len({tuple(j.slug for j in d) for d in draws}) > 20  # forty players, many days
    again = job_pool.draw(pool.daily, 3, f"{pool.version}/7/daily/2027-03-01T00:00:00+00:00")
    assert again == job_pool.draw(
        pool.daily, 3, f"{pool.version}/7/daily/2027-03-01T00:00:00+00:00"
    )


def test_the_economy_prices_every_tier_and_refuses_a_bad_reward():
    current = economy.get_economy()
    assert current.version == economy.CURRENT_VERSION == "2026.12"
    assert set(current.jobs) == {"easy", "medium", "hard", "weekly", "starter"}
    assert economy.get_economy("2026.11").jobs == {}  # before jobs: no tier at all
    with pytest.raises(economy.EconomyError):
        economy.get_economy("2026.11").job_reward("easy")
    base = json.loads(
        resources.files("shop").joinpath("data", "economy", "2026.12.json").read_text()
    )
    for bad in ({"easy": 0}, {"easy": True}, {"easy": "20"}, ["easy"]):
        with pytest.raises(economy.EconomyError):
            economy.parse({**base, "jobs": bad}, version="2026.12")


# --- Periods, under any zone and any changes ---------------------------------------------------

ZONES = [
    "UTC",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Australia/Lord_Howe",  # half an hour of daylight saving
    "America/Santiago",  # changes clocks at midnight
    "America/St_Johns",
    "Europe/London",
    "America/Los_Angeles",
]
EPOCH = dt.datetime(2027, 1, 1, tzinfo=dt.UTC)


def _is_boundary(kind: str, zone: ZoneInfo, at: dt.datetime) -> bool:
    return periods.boundary_at_or_before(kind, zone, at) == at


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from([periods.DAILY, periods.WEEKLY]),
    first_zone=st.sampled_from(ZONES),
    steps=st.lists(
        st.tuples(
            st.integers(min_value=1, max_value=60 * 60 * 40), st.none() | st.sampled_from(ZONES)
        ),
        min_size=1,
        max_size=40,
    ),
    offset=st.integers(min_value=0, max_value=366 * 24 * 3600),
)
def test_no_period_is_ever_shorter_than_its_floor_and_none_overlap(kind, first_zone, steps, offset):
    """The service's rules replayed: at each step the clock moves on, the period in force is
    opened if there is none, and the zone may change (the period in force then ends at the
    new zone's boundary). Every period is at least SHORTEST long, starts where none other is,
    never ends in the past of a change, and a period opened in a zone ends on its boundary."""
    now = EPOCH + dt.timedelta(seconds=offset)
    zone = ZoneInfo(first_zone)
    made: list[list[dt.datetime]] = []
    for seconds, change in steps:
        now += dt.timedelta(seconds=seconds)
        if not made or now >= made[-1][1]:
            start, end = periods.opening(kind, zone, now, made[-1][1] if made else None)
            assert start <= now < end
            assert _is_boundary(kind, zone, end)
            made.append([start, end])
        if change is not None:
            zone = ZoneInfo(change)
            start, _ = made[-1]
            made[-1][1] = periods.moved_end(kind, zone, start, now)
            assert made[-1][1] > now and _is_boundary(kind, zone, made[-1][1])
    for start, end in made:
        assert end - start >= periods.SHORTEST[kind]
    for (_, end), (start, _) in itertools.pairwise(made):
        assert end <= start


def test_a_day_is_midnight_to_midnight_23_or_25_hours_when_the_clocks_change():
    la = ZoneInfo("America/Los_Angeles")
    spring = dt.datetime(2027, 3, 14, 12, tzinfo=la)
    start, end = periods.opening(periods.DAILY, la, spring, None)
    assert (start, end - start) == (dt.datetime(2027, 3, 14, tzinfo=la), dt.timedelta(hours=23))
    autumn = dt.datetime(2027, 11, 7, 12, tzinfo=la)
    start, end = periods.opening(periods.DAILY, la, autumn, None)
    assert end - start == dt.timedelta(hours=25)
    week_start, week_end = periods.opening(periods.WEEKLY, la, spring, None)
    assert week_start == dt.datetime(2027, 3, 8, tzinfo=la) and week_start.weekday() == 0
    assert week_end == dt.datetime(2027, 3, 15, tzinfo=la)
