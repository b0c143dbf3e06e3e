"""Every door that costs the site work is rate-limited on the real cache, per player (or guest
browser) and per address, with one answer: 429, code `rate_limited`, `Retry-After` (issue 16).

Doors: heist start (tests/game/test_start_limits.py), featured start (tests/game/
test_featured.py and below), seal, the guest age check (API and page share a counter),
purchases, sign-in (with allauth's per-email limit on failures) and sign-up. The defaults are
far above play: a player who plays whole heists, checks their age, signs up and in never
meets them.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from accounts.services import profile_attest
from tests.support.heists import (
    ADULT_BIRTH_DATE,
    age_checked_client,
    make_player,
    play_out,
    post,
    start,
)
from tests.support.limits import DEFAULT_RATE_LIMITS
from veyltak_site.env import parse_rate

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple 42"
DOORS = (
    "heist_start",
    "featured_start",
    "seal",
    "age_check",
    "purchase",
    "sign_in",
    "sign_up",
    "csrf_refused",
)


@pytest.fixture
def limits(settings):
    """Set one door's limits (the others off) on a clean cache."""

    def set_limits(scope: str, session: str = "1000/h", address: str = "1000/h") -> None:
        settings.RATE_LIMITS = {
            scope: {"session": parse_rate(session), "address": parse_rate(address)}
        }

    cache.clear()
    yield set_limits
    cache.clear()


def assert_rate_limited(response, *, api: bool = True) -> int:
    assert response.status_code == 429, response.content[:500]
    if api:
        assert response.json()["error"]["code"] == "rate_limited"
        assert response.json()["error"]["message"].startswith("Too many requests")
    else:
        html = response.content.decode()
        assert 'data-error-code="rate_limited"' in html
        assert "Too many requests: please try again in" in html
    wait = int(response["Retry-After"])
    assert wait >= 1
    return wait


def _other_address(client: Client, address: str = "203.0.113.9") -> Client:
    client.defaults["REMOTE_ADDR"] = address
    return client


# --- the settings ------------------------------------------------------------------------------


def test_every_door_has_a_session_and_an_address_limit():
    assert set(DEFAULT_RATE_LIMITS) == set(DOORS)
    for scope, kinds in DEFAULT_RATE_LIMITS.items():
        assert set(kinds) == {"session", "address"}, scope
        # An address holds many players: its limit is never below a session's.
        assert kinds["address"].count / kinds["address"].seconds >= (
            kinds["session"].count / kinds["session"].seconds
        ), scope


def test_limits_come_from_the_environment_and_a_malformed_one_stops_start_up():
    from tests.support.fresh import run_django

    shown = run_django(
        "from django.conf import settings; l = settings.RATE_LIMITS\n"
        "print(l['seal']['session'], l['purchase']['address'], l['sign_up']['session'])",
        RATE_SEAL_SESSION="7/90s",
        RATE_PURCHASE_ADDRESS="5/h",
        RATE_SIGN_UP_SESSION="2/d",
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["7/90s", "5/3600s", "2/86400s"]
    for name, value in (("RATE_SIGN_IN_ADDRESS", "ten/m"), ("RATE_AGE_CHECK_SESSION", "5/0m")):
        result = run_django(**{name: value})
        assert result.returncode != 0
        assert "ImproperlyConfigured" in result.stderr and name in result.stderr


@pytest.mark.parametrize(
    "text", ["5", "5/", "/m", "5/m/ip", "5/w", "0/m", "5/0s", " 5 / m", "5.0/m"]
)
def test_a_rate_is_parsed_strictly(text):
    with pytest.raises(ValueError):
        parse_rate(text)


# --- seal --------------------------------------------------------------------------------------


def test_seals_are_limited_per_session_and_per_address(limits):
    limits("seal", session="3/m", address="5/m")
    guest = age_checked_client()
    heist = start(guest)["id"]
    wrong = {"night": 9, "crew": [], "boost": False}  # refused by the heist, counted by the door
    statuses = [post(guest, f"/api/v1/heists/{heist}/seal/", wrong).status_code for _ in range(3)]
    assert 429 not in statuses
    assert_rate_limited(post(guest, f"/api/v1/heists/{heist}/seal/", wrong))
    # Another browser on the address has its own session count, until the address's is spent.
    other = age_checked_client()
    theirs = start(other)["id"]
    assert post(other, f"/api/v1/heists/{theirs}/seal/", wrong).status_code != 429
    assert_rate_limited(post(other, f"/api/v1/heists/{theirs}/seal/", wrong))
    # Another address is not this one.
    elsewhere = _other_address(age_checked_client())
    mine = start(elsewhere)["id"]
    assert post(elsewhere, f"/api/v1/heists/{mine}/seal/", wrong).status_code == 409


def test_a_limited_seal_loses_nothing(limits):
    limits("seal", session="2/m")
    guest = age_checked_client()
    view = start(guest)
    guest.get(f"/api/v1/heists/{view['id']}/")
    plan = {"night": 1, "crew": [], "boost": False}
    assert post(guest, f"/api/v1/heists/{view['id']}/seal/", {"night": 5}).status_code == 400
    assert post(guest, f"/api/v1/heists/{view['id']}/seal/", {"night": 5}).status_code == 400
    assert_rate_limited(post(guest, f"/api/v1/heists/{view['id']}/seal/", plan))
    after = guest.get(f"/api/v1/heists/{view['id']}/").json()
    assert after["night"] == 1 and after["status"] == "active"
    cache.clear()  # the window passes
    assert post(guest, f"/api/v1/heists/{view['id']}/seal/", plan).status_code == 200


# --- the age check -----------------------------------------------------------------------------


def test_age_checks_are_limited_and_the_page_shares_the_api_counter(limits):
    limits("age_check", session="3/10m", address="1000/h")
    # A browser is counted by its guest id once it has one (a first check made it); a browser
    # with none yet is counted by its address alone (below).
    browser = age_checked_client()
    body = {"birth_date": "not a date"}
    for _ in range(2):
        answer = browser.post("/api/v1/age-check/", body, content_type="application/json")
        assert answer.status_code == 400
    assert browser.post("/age-check/", {"birth_date": "nope"}).status_code == 200
    assert_rate_limited(browser.post("/api/v1/age-check/", body, content_type="application/json"))
    assert_rate_limited(browser.post("/age-check/", {"birth_date": "nope"}), api=False)
    # Showing the form is free.
    assert browser.get("/age-check/").status_code in (200, 302)


def test_age_checks_are_limited_per_address(limits):
    limits("age_check", address="2/10m")
    body = {"birth_date": ADULT_BIRTH_DATE}
    for _ in range(2):
        assert (
            Client().post("/api/v1/age-check/", body, content_type="application/json").status_code
            == 200
        )
    assert_rate_limited(Client().post("/api/v1/age-check/", body, content_type="application/json"))
    elsewhere = _other_address(Client(), "2001:db8:9::1")
    assert (
        elsewhere.post("/api/v1/age-check/", body, content_type="application/json").status_code
        == 200
    )


# --- purchases ---------------------------------------------------------------------------------


def test_purchases_are_limited_per_player_and_per_address(limits):
    from shop import services as shop_services
    from tests.support.shop import buy, state

    shop_services.shop_catalogue_load()
    limits("purchase", session="2/10m", address="4/10m")
    user, player = make_player("buyer@example.com")
    shop_services.signs_grant(user=user, amount=1000, reason_text="test")
    assert buy(player, "fence", 150).status_code == 201
    assert buy(player, "fence", 150).status_code == 409  # already owned: counted all the same
    before = state(user)
    assert_rate_limited(buy(player, "insider", 200))
    assert state(user) == before  # a limited purchase writes nothing
    # Another player on the address (a refused request counts too): one more passes the
    # address's count, then none.
    other, second = make_player("other-buyer@example.com")
    shop_services.signs_grant(user=other, amount=1000, reason_text="test")
    assert buy(second, "insider", 200).status_code == 201
    assert_rate_limited(buy(second, "night-owl", 180))
    # A third player elsewhere is not counted with this address.
    third_user, third = make_player("far-buyer@example.com")
    shop_services.signs_grant(user=third_user, amount=1000, reason_text="test")
    assert buy(_other_address(third), "night-owl", 180).status_code == 201


# --- sign-in and sign-up -----------------------------------------------------------------------


def _account(email: str):
    user = get_user_model().objects.create_user(username=email, email=email, password=PASSWORD)
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
    profile_attest(user=user)
    return user


def sign_in(client: Client, email: str, password: str = PASSWORD):
    return client.post("/accounts/login/", {"login": email, "password": password})


def test_sign_in_posts_are_limited_per_browser_and_per_address(limits):
    limits("sign_in", session="3/10m", address="5/10m")
    _account("door@example.com")
    browser = age_checked_client()  # a browser with a guest id: its own count
    for attempt in range(3):
        assert sign_in(browser, f"nobody{attempt}@example.com", "x").status_code == 200
    assert_rate_limited(sign_in(browser, "door@example.com"), api=False)
    assert browser.get("/api/v1/me/").json()["authenticated"] is False
    assert browser.get("/accounts/login/").status_code == 200  # the form itself is free
    # A refused post counts too: the address's fifth post passes, its sixth does not,
    # whoever sends it.
    assert sign_in(age_checked_client(), "door@example.com").status_code == 302
    assert_rate_limited(sign_in(Client(), "door@example.com"), api=False)
    assert sign_in(_other_address(Client()), "door@example.com").status_code == 302


def test_failed_sign_ins_to_one_account_answer_429_like_every_door(limits):
    limits("sign_in")  # the door's own limits out of the way: allauth's per-email one acts
    _account("target@example.com")
    attacker = Client()
    for attempt in range(5):
        assert sign_in(attacker, "target@example.com", f"wrong-{attempt}").status_code == 200
    for browser in (attacker, _other_address(Client())):
        wait = assert_rate_limited(sign_in(browser, "target@example.com"), api=False)
        assert wait == 300  # ACCOUNT_RATE_LIMITS login_failed: 5 per 5 minutes per email
        assert browser.get("/api/v1/me/").json()["authenticated"] is False


def test_sign_ups_are_limited(limits, mailoutbox):
    limits("sign_up", session="1000/h", address="2/h")
    form = {"birth_date": "1990-01-01", "password1": PASSWORD, "password2": PASSWORD}
    for n in range(2):
        answer = Client().post("/accounts/signup/", {**form, "email": f"new{n}@example.com"})
        assert answer.status_code == 302, answer.content[:500]
    refused = Client().post("/accounts/signup/", {**form, "email": "new9@example.com"})
    assert_rate_limited(refused, api=False)
    assert not get_user_model().objects.filter(email="new9@example.com").exists()
    assert len(mailoutbox) == 2


def test_allauths_own_429_answers_the_same_way(rf):
    from veyltak_site.urls import handler429

    request = rf.get("/accounts/password/reset/")
    request.user = get_user_model()()
    from django.contrib.sessions.backends.cache import SessionStore

    request.session = SessionStore()
    assert_rate_limited(handler429(request), api=False)
    api = rf.post("/api/v1/anything/")
    api.user, api.session = request.user, SessionStore()
    answer = handler429(api)
    assert answer.status_code == 429 and answer["Retry-After"] == "60"
    assert json.loads(answer.content)["error"]["code"] == "rate_limited"


# --- a normal player never meets them ----------------------------------------------------------


@pytest.mark.slow
def test_a_normal_player_never_meets_the_default_limits(settings, mailoutbox):
    settings.RATE_LIMITS = DEFAULT_RATE_LIMITS
    cache.clear()
    try:
        guest = age_checked_client()
        assert guest.post("/age-check/", {"birth_date": ADULT_BIRTH_DATE}).status_code == 302
        # Three whole heists as a guest, then a sign-up, a confirmation, a sign-in, and more.
        for n in range(3):
            assert play_out(guest, start(guest), seed=n)["status"] == "finished"
        email = "regular@example.com"
        signup = {
            "email": email,
            "birth_date": "1985-06-01",
            "password1": PASSWORD,
            "password2": PASSWORD,
        }
        assert guest.post("/accounts/signup/", signup).status_code == 302
        from tests.support.accounts import confirm_email

        assert confirm_email(guest, email).status_code == 302
        guest.post("/accounts/logout/")
        assert sign_in(guest, email, "a typo").status_code == 200
        assert sign_in(guest, email).status_code == 302
        for n in range(3):
            assert play_out(guest, start(guest), seed=10 + n)["status"] == "finished"
        _user, player = make_player("other@example.com")
        assert play_out(player, start(player))["status"] == "finished"
    finally:
        cache.clear()
    assert django_settings.RATE_LIMITS is not None


# --- posts refused by CSRF (issue 27, S12) -------------------------------------------------------


def test_posts_refused_by_csrf_count_at_the_address_and_then_answer_429(limits):
    # 41,000 refused posts in a minute were counted by no limit; they count at their own door
    # now, per browser and per address, and over it answer like every limited door.
    limits("csrf_refused", session="1000/h", address="4/10m")
    for path in ("/api/v1/heists/", "/age-check/"):
        cache.clear()
        # A fresh browser each time (no cookie, no token), all from one address.
        answers = [
            Client(enforce_csrf_checks=True).post(path, {"birth_date": "1980-01-01"})
            for _ in range(6)
        ]
        assert [a.status_code for a in answers[:4]] == [403] * 4, path
        for refused in answers[4:]:
            assert_rate_limited(refused, api=path.startswith("/api/"))
    # A post with its token is no refused post: the door is open to it.
    guest = age_checked_client()
    started = post(guest, "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"})
    assert started.status_code == 201


def test_api_posts_without_the_csrf_header_count_whatever_their_body(limits):
    # A browser holding its csrftoken cookie that posted a form, a text or a broken JSON body
    # without the header was answered 415 or 400 (the CSRF check parsed the body looking for
    # a form token, and the API parses JSON only): refused, but counted at no door. The API
    # takes its token from the header alone, so such posts are CSRF refusals like any other.
    limits("csrf_refused", session="1000/h", address="4/10m")
    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/v1/me/")
    assert "csrftoken" in browser.cookies
    paths = ("/api/v1/heists/", "/api/v1/heists/00000000-0000-4000-8000-000000000000/retry/")
    for path in paths:
        cache.clear()
        answers = [
            browser.post(path, {"night": "2"}),  # multipart
            browser.post(path, "night=2", "application/x-www-form-urlencoded"),
            browser.post(path, "night=2", "text/plain"),
            browser.post(path, "{not json", "application/json"),
            browser.post(path, {"night": 2}, "application/json"),
        ]
        for refused in answers[:4]:
            assert refused.status_code == 403, (path, refused.content[:300])
            assert refused.json()["error"]["code"] == "permission_denied"
        assert_rate_limited(answers[4])
