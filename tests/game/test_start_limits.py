"""Heist starts are limited per session and per address, and one owner keeps at most
HEIST_ACTIVE_MAX heists in play (issue 17, finding 2): one client cannot queue rival turns
for everyone."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connection
from django.test import Client

from game.models import Heist
from tests.support.heists import age_checked_client, make_player, post, start
from tests.support.limits import DEFAULT_RATE_LIMITS
from veyltak_site.env import parse_rate

pytestmark = pytest.mark.django_db

START = {"rival": "furnace", "difficulty": "rookie"}


@pytest.fixture
def limits(settings):
    def set_limits(session: str = "1000/h", address: str = "1000/h") -> None:
        settings.RATE_LIMITS = {
            "heist_start": {"session": parse_rate(session), "address": parse_rate(address)}
        }

    cache.clear()
    yield set_limits
    cache.clear()


def _start(client: Client):
    return post(client, "/api/v1/heists/", START)


def assert_rate_limited(response) -> int:
    assert response.status_code == 429, response.content
    assert response.json()["error"]["code"] == "rate_limited"
    assert response.json()["error"]["message"]
    wait = int(response["Retry-After"])
    # A sliding window counted in tenths spans up to 1.1 periods (veyltak_site/throttling.py).
    assert 1 <= wait <= 660
    return wait


# --- the limits ------------------------------------------------------------------------------


def test_starts_are_limited_per_session(limits):
    limits(session="3/10m")
    guest = age_checked_client()
    assert [_start(guest).status_code for _ in range(3)] == [201, 201, 201]
    assert_rate_limited(_start(guest))
    assert Heist.objects.count() == 3
    # Another browser on the same address is not this session.
    assert _start(age_checked_client()).status_code == 201


def test_starts_are_limited_per_address_across_sessions(limits):
    limits(address="4/10m")
    statuses = [_start(age_checked_client()).status_code for _ in range(4)]
    assert statuses == [201] * 4
    assert_rate_limited(_start(age_checked_client()))
    # Another address is not limited by this one's count.
    other = age_checked_client()
    other.defaults["REMOTE_ADDR"] = "203.0.113.9"
    assert _start(other).status_code == 201


def test_an_ipv6_client_is_counted_by_its_64(limits):
    limits(address="2/10m")
    for host in ("2001:db8:1:2::1", "2001:db8:1:2::ffff"):
        guest = age_checked_client()
        guest.defaults["REMOTE_ADDR"] = host
        assert _start(guest).status_code == 201
    guest = age_checked_client()
    guest.defaults["REMOTE_ADDR"] = "2001:db8:1:2:abcd::7"
    assert_rate_limited(_start(guest))


def test_the_play_page_is_limited_by_the_same_counter(limits):
    limits(session="2/10m")
    guest = age_checked_client()
    assert _start(guest).status_code == 201
    assert guest.post("/play/", START).status_code == 302
    page = guest.post("/play/", START)
    assert page.status_code == 429
    assert int(page["Retry-After"]) >= 1
    assert "try again in" in page.content.decode()
    assert_rate_limited(_start(guest))


def test_a_signed_in_player_is_limited_per_account(limits):
    limits(session="2/10m")
    user, first = make_player()
    assert [_start(first).status_code for _ in range(2)] == [201, 201]
    second = Client()  # the same account in another browser shares the count
    second.force_login(user)
    assert_rate_limited(_start(second))


def test_a_normal_player_never_meets_the_default_limits(settings):
    settings.RATE_LIMITS = DEFAULT_RATE_LIMITS
    cache.clear()
    guest = age_checked_client()
    # More starts than anyone makes in ten minutes of play (a heist takes minutes).
    assert all(_start(guest).status_code == 201 for _ in range(12))
    assert guest.post("/play/", START).status_code == 302
    cache.clear()


def test_a_malformed_limit_stops_start_up():
    from tests.support.fresh import run_django

    result = run_django(RATE_HEIST_START_SESSION="lots")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "RATE_HEIST_START_SESSION" in result.stderr


def _starts_at_once(guest: Client, count: int) -> list[int]:
    """``count`` threads of one browser (its cookies) start a heist at the same moment."""
    cookies = {name: morsel.value for name, morsel in guest.cookies.items()}
    barrier = threading.Barrier(count)
    statuses: list[int] = []

    def run():
        client = Client()
        client.cookies.load(cookies)
        try:
            barrier.wait(timeout=10)
            statuses.append(_start(client).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return statuses


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_starts_never_pass_the_limit(settings):
    """Counters live in the shared cache and count atomically: eight threads of one session
    starting at once get exactly the limit through."""
    settings.RATE_LIMITS = {"heist_start": {"session": parse_rate("3/10m")}}
    cache.clear()
    statuses = _starts_at_once(age_checked_client(), 8)
    assert sorted(statuses) == [201] * 3 + [429] * 5, statuses
    cache.clear()


# --- heists in play per owner ---------------------------------------------------------------


def test_starting_past_the_cap_abandons_the_oldest_in_play(guest):
    cap = django_settings.HEIST_ACTIVE_MAX
    first = [start(guest)["id"] for _ in range(cap)]
    assert Heist.objects.filter(status="active").count() == cap
    newest = start(guest)["id"]
    status = {str(pk): s for pk, s in Heist.objects.values_list("pk", "status")}
    assert status[first[0]] == "abandoned"
    assert [status[pk] for pk in [*first[1:], newest]] == ["active"] * cap
    abandoned = Heist.objects.get(pk=first[0])
    assert abandoned.signs_awarded is None and abandoned.outcome == "" and abandoned.finished_at
    # Its board now leads to the result, and the API says it is over.
    assert guest.get(f"/heists/{first[0]}/")["Location"].endswith("/result/")
    answer = post(guest, f"/api/v1/heists/{first[0]}/seal/", {"night": 1, "crew": []})
    assert answer.json()["error"]["code"] == "heist_finished"


def test_the_cap_counts_each_owner_apart(guest, settings):
    settings.HEIST_ACTIVE_MAX = 1
    _, player = make_player()
    other_guest = age_checked_client()
    for client in (guest, player, other_guest):
        start(client)
    assert Heist.objects.filter(status="active").count() == 3
    start(guest)
    assert Heist.objects.filter(status="active").count() == 3


def test_the_play_page_states_the_cap(guest):
    html = guest.get("/play/").content.decode()
    cap = django_settings.HEIST_ACTIVE_MAX
    assert f"up to {cap} heists in play at once" in html
    assert "closes the oldest" in html


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_starts_of_one_owner_keep_the_cap():
    statuses = _starts_at_once(age_checked_client(), 8)
    assert statuses == [201] * 8
    assert Heist.objects.count() == 8
    assert Heist.objects.filter(status="active").count() == django_settings.HEIST_ACTIVE_MAX
