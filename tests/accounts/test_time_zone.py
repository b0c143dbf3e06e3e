"""The player's time zone (accounts): which names are zones, the service that sets it and the
signal it sends (only when the zone the day turns in really changes), /api/v1/me/."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client

from accounts import selectors, services, time_zones
from accounts.signals import time_zone_changed
from veyltak_site.exceptions import ApplicationError


@pytest.fixture
def heard():
    calls: list[dict] = []

    def receiver(sender, **kwargs):
        calls.append({k: kwargs[k] for k in ("old", "new", "first")})

    time_zone_changed.connect(receiver, dispatch_uid="test.heard")
    yield calls
    time_zone_changed.disconnect(dispatch_uid="test.heard")


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user(username="tz@example.com", password="pw-1234567")


@pytest.mark.parametrize(
    "name", ["UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "US/Eastern"]
)
def test_a_zone_the_server_knows_is_taken(name):
    assert time_zones.clean(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "Mars/Olympus", "europe/paris", "posix/Europe/Paris", "localtime", 7, None, "A" * 65],
)
def test_anything_else_is_refused_with_a_code(name):
    with pytest.raises(ValidationError) as refused:
        time_zones.clean(name)
    assert refused.value.code == "unknown_time_zone"


def test_the_profile_lists_utc_then_the_regions_cities():
    listed = time_zones.choices()
    assert listed[0] == "UTC" and "Asia/Kolkata" in listed and "Europe/Paris" in listed
    assert not any(z.startswith(("posix/", "right/", "US/", "Etc/")) for z in listed)
    assert list(listed[1:]) == sorted(listed[1:])


def test_setting_signals_only_a_real_change(user, heard):
    assert selectors.time_zone(user=user) == "UTC"
    # An explicit UTC over none: kept (the browser will not ask again), but the day turns where
    # it did, so nothing is signalled.
    assert services.time_zone_set(user=user, time_zone="UTC") == ("UTC", False)
    assert selectors.time_zone_chosen(user=user) and heard == []
    assert services.time_zone_set(user=user, time_zone="Asia/Tokyo") == ("Asia/Tokyo", True)
    assert heard == [{"old": "UTC", "new": "Asia/Tokyo", "first": False}]
    assert services.time_zone_set(user=user, time_zone="Asia/Tokyo") == ("Asia/Tokyo", False)
    assert len(heard) == 1


def test_the_browsers_first_word_is_marked_first_and_never_overrides(user, heard):
    assert services.time_zone_set(user=user, time_zone="Europe/Rome", if_unset=True) == (
        "Europe/Rome",
        True,
    )
    assert heard == [{"old": "UTC", "new": "Europe/Rome", "first": True}]
    assert services.time_zone_set(user=user, time_zone="Asia/Seoul", if_unset=True) == (
        "Europe/Rome",
        False,
    )
    assert selectors.time_zone(user=user) == "Europe/Rome" and len(heard) == 1


def test_an_unknown_zone_changes_nothing(user, heard):
    with pytest.raises(ApplicationError) as refused:
        services.time_zone_set(user=user, time_zone="Nowhere/Else")
    assert refused.value.code == "unknown_time_zone" and "time_zone" in refused.value.fields
    assert not selectors.time_zone_chosen(user=user) and heard == []


def test_me_says_the_zone_and_null_for_a_guest(user):
    assert Client().get("/api/v1/me/").json()["time_zone"] is None
    client = Client()
    client.force_login(user)
    assert client.get("/api/v1/me/").json()["time_zone"] == "UTC"
    services.time_zone_set(user=user, time_zone="America/Sao_Paulo")
    assert client.get("/api/v1/me/").json()["time_zone"] == "America/Sao_Paulo"
