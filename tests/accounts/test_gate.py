"""The age gate: the rule, the lock on every door, the neutral wording, the API codes."""

import datetime as dt
import html as html_lib
import re
import time
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import gate
from accounts.models import Profile
from tests.support.accounts import (
    PASSWORD,
    api_age_check,
    assert_neutral,
    make_player,
    signup,
    years_ago,
)

User = get_user_model()
pytestmark = pytest.mark.django_db

# --- the rule ------------------------------------------------------------------------------------


def test_rule_counts_whole_years_including_the_birthday():
    today = dt.date(2026, 6, 15)
    assert gate.passes(dt.date(2008, 6, 15), today=today)
    assert not gate.passes(dt.date(2008, 6, 16), today=today)
    assert gate.passes(dt.date(1950, 1, 1), today=today)


def test_rule_for_a_leap_day_birthday():
    born = dt.date(2008, 2, 29)
    assert not gate.passes(born, today=dt.date(2026, 2, 28))
    assert gate.passes(born, today=dt.date(2026, 3, 1))
    assert gate.passes(born, today=dt.date(2028, 2, 29))


# --- sign-up -------------------------------------------------------------------------------------


def test_signup_page_has_the_date_field_and_no_hint(client):
    response = client.get("/accounts/signup/")
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'<input[^>]*type="date"[^>]*name="birth_date"', html) or re.search(
        r'<input[^>]*name="birth_date"[^>]*type="date"', html
    )
    assert re.search(r'<label for="id_birth_date"[^>]*>Date of birth', html)
    assert "css/accounts.css" in html
    assert_neutral(html, "sign-up page")


def test_refused_date_creates_no_user_and_gets_a_neutral_refusal(client, refused_date):
    response = signup(client, email="kid@example.com", birth_date=refused_date)
    assert response.status_code == 403
    html = response.content.decode()
    assert gate.REFUSAL_MESSAGE in html_lib.unescape(html)
    assert_neutral(html, "sign-up refusal")
    assert refused_date.isoformat() not in html
    assert not User.objects.filter(email="kid@example.com").exists()
    assert User.objects.count() == 0
    assert gate.LOCK_COOKIE in response.cookies


def test_refused_browser_is_refused_on_every_door_whatever_it_sends(
    client, refused_date, adult_date
):
    signup(client, email="kid@example.com", birth_date=refused_date)

    # Sign-up page, both methods, with a date that would pass anywhere else.
    page = client.get("/accounts/signup/")
    assert page.status_code == 403
    assert_neutral(page.content.decode(), "locked sign-up page")
    again = signup(client, email="grown@example.com", birth_date=adult_date)
    assert again.status_code == 403
    assert_neutral(again.content.decode(), "locked sign-up post")
    assert User.objects.count() == 0

    # Guest check page, both methods.
    check_page = client.get("/age-check/")
    assert check_page.status_code == 403
    assert_neutral(check_page.content.decode(), "locked check page")
    check_post = client.post("/age-check/", {"birth_date": adult_date.isoformat()})
    assert check_post.status_code == 403
    assert_neutral(check_post.content.decode(), "locked check post")

    # API.
    api = api_age_check(client, adult_date)
    assert api.status_code == 403
    assert api.json()["error"]["code"] == "age_check_locked"
    assert_neutral(api.content.decode(), "locked API answer")
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is False

    # A new browser with an adult date signs up.
    fresh = Client()
    response = signup(fresh, email="grown@example.com", birth_date=adult_date)
    assert response.status_code == 302
    user = User.objects.get(email="grown@example.com")
    profile = Profile.objects.get(user=user)
    assert profile.adult_confirmed_at is not None
    assert profile.gate_version == gate.GATE_VERSION


def test_a_refusal_on_the_guest_check_locks_sign_up_too(client, refused_date, adult_date):
    response = client.post("/age-check/", {"birth_date": refused_date.isoformat()})
    assert response.status_code == 403
    assert_neutral(response.content.decode(), "check refusal page")
    assert signup(client, email="a@example.com", birth_date=adult_date).status_code == 403
    assert User.objects.count() == 0


def test_lock_holds_with_only_the_cookie_and_with_only_the_session(
    client, refused_date, adult_date
):
    response = api_age_check(client, refused_date)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "age_check_failed"
    lock_cookie = response.cookies[gate.LOCK_COOKIE]
    assert int(lock_cookie["max-age"]) == gate.LOCK_SECONDS
    assert lock_cookie["httponly"]

    # Only the cookie: a new session (signed out, session cookie cleared).
    cookie_only = Client()
    cookie_only.cookies[gate.LOCK_COOKIE] = lock_cookie.value
    assert api_age_check(cookie_only, adult_date).json()["error"]["code"] == "age_check_locked"

    # Only the session: the lock cookie deleted; the door writes it again.
    del client.cookies[gate.LOCK_COOKIE]
    again = api_age_check(client, adult_date)
    assert again.json()["error"]["code"] == "age_check_locked"
    assert again.cookies[gate.LOCK_COOKIE].value


def test_a_forged_lock_cookie_is_ignored(client, adult_date):
    client.cookies[gate.LOCK_COOKIE] = str(int(time.time()) + 3600)
    assert api_age_check(client, adult_date).status_code == 200


def test_the_lock_ends_after_a_day(client, refused_date, adult_date, monkeypatch):
    assert api_age_check(client, refused_date).status_code == 403
    later = time.time() + gate.LOCK_SECONDS + 5
    monkeypatch.setattr(time, "time", lambda: later)
    assert api_age_check(client, adult_date).status_code == 200


def test_a_refusal_withdraws_an_earlier_guest_pass(client, refused_date, adult_date, monkeypatch):
    assert api_age_check(client, adult_date).status_code == 200
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is True
    assert signup(client, email="x@example.com", birth_date=refused_date).status_code == 403
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is False
    # Withdrawn, not suspended: the pass does not come back when the lock ends.
    later = time.time() + gate.LOCK_SECONDS + 5
    monkeypatch.setattr(time, "time", lambda: later)
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is False


def test_the_record_is_read_as_stored_and_none_before_any_check(client, refused_date, adult_date):
    """The browser's record, read on every heist request in plain SQL, is the stored row."""
    from accounts.models import GateRecord

    def read():
        request = client.get("/api/v1/me/").wsgi_request
        return gate._record(request), request

    assert read()[0] is None  # a session, no check yet
    assert api_age_check(client, adult_date).status_code == 200
    record, request = read()
    stored = GateRecord.objects.get(key=record.key)
    fields = [f.attname for f in GateRecord._meta.concrete_fields]
    assert [getattr(record, f) for f in fields] == [getattr(stored, f) for f in fields]
    assert record.confirmed_at is not None and record.locked_until is None
    assert gate.session_confirmed(request)
    assert api_age_check(client, refused_date).status_code == 403
    record, request = read()
    assert record.confirmed_at is None and record.locked_until is not None
    assert not gate.session_confirmed(request)


# --- wording -------------------------------------------------------------------------------------


def test_no_page_or_answer_of_the_gate_hints_at_the_cut_off(client, refused_date, adult_date):
    texts = {
        "sign-up page": client.get("/accounts/signup/"),
        "check page": client.get("/age-check/"),
        "sign-up with an invalid date": client.post(
            "/accounts/signup/", {"email": "a@example.com", "birth_date": "not a date"}
        ),
        "check with an invalid date": client.post("/age-check/", {"birth_date": "2999-01-01"}),
        "API invalid input": api_age_check(client, "31/12/1990"),
        "API missing input": client.post("/api/v1/age-check/", {}, content_type="application/json"),
    }
    for path in ("/accounts/signup/", "/age-check/"):
        assert texts["sign-up page"].status_code == 200, path
    texts["API refusal"] = api_age_check(client, refused_date)
    texts["API locked"] = api_age_check(client, adult_date)
    texts["check refusal"] = client.post("/age-check/", {"birth_date": adult_date.isoformat()})
    texts["sign-up refusal"] = signup(client, email="b@example.com", birth_date=adult_date)
    other = Client()
    texts["sign-up refusal (fresh)"] = signup(other, email="c@example.com", birth_date=refused_date)
    third = Client()
    texts["check refusal (fresh)"] = third.post(
        "/age-check/", {"birth_date": refused_date.isoformat()}
    )
    for where, response in texts.items():
        assert_neutral(response.content.decode(), where)
    assert texts["API refusal"].json()["error"]["code"] == "age_check_failed"
    assert texts["API locked"].json()["error"]["code"] == "age_check_locked"
    # The success answer carries the agreed key and nothing about the rule.
    ok = api_age_check(Client(), adult_date)
    assert ok.json() == {"adult_confirmed": True}
    assert not re.search(r"\b18\b", ok.content.decode())


def test_static_files_and_templates_of_the_gate_are_neutral():
    files = [settings.BASE_DIR / "static/css/accounts.css"]
    files += sorted((settings.BASE_DIR / "templates/accounts").glob("*.html"))
    files += [settings.BASE_DIR / "templates/account/signup.html"]
    files += [settings.BASE_DIR / "templates/account/signup_closed.html"]
    files += sorted(Path(settings.BASE_DIR / "static/js").glob("account*.js"))
    for path in files:
        text = path.read_text()
        assert_neutral(text, str(path))
        assert not re.search(r"(?<![\w.#-])18(?![\w])", text), path


# --- API -----------------------------------------------------------------------------------------


def test_age_check_api_codes(client, adult_date):
    bad = api_age_check(client, "1990-02-30")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_input"
    assert "birth_date" in bad.json()["error"]["fields"]
    future = api_age_check(client, (dt.date.today() + dt.timedelta(days=3)).isoformat())
    assert future.status_code == 400
    assert "birth_date" in future.json()["error"]["fields"]
    missing = client.post("/api/v1/age-check/", {}, content_type="application/json")
    assert missing.status_code == 400
    assert "birth_date" in missing.json()["error"]["fields"]
    # Typos do not lock.
    ok = api_age_check(client, adult_date)
    assert ok.status_code == 200
    assert ok.json() == {"adult_confirmed": True}


def test_me_shape_and_csrf_cookie(client, adult_date):
    response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json() == {
        "authenticated": False,
        "username": None,
        "adult_confirmed": False,
        "time_zone": None,
        "rating": None,
        "signs": 0,
    }
    assert settings.CSRF_COOKIE_NAME in response.cookies
    user = make_player(client, email="me@example.com", birth_date=adult_date)
    data = client.get("/api/v1/me/").json()
    assert data["authenticated"] is True
    assert data["username"] == Profile.objects.get(user=user).handle  # the public handle
    assert data["adult_confirmed"] is True
    assert data["signs"] == 100  # the welcome grant (shop)
    assert data["time_zone"] == "UTC"  # until the browser or the profile sets one (issue 26)
    assert data["rating"] == {"value": 1500, "deviation": 350, "provisional": True}
    assert set(data) == {
        "authenticated",
        "username",
        "adult_confirmed",
        "time_zone",
        "rating",
        "signs",
    }


def test_age_check_api_needs_the_csrf_token_even_for_guests(adult_date):
    browser = Client(enforce_csrf_checks=True)
    refused = api_age_check(browser, adult_date)
    assert refused.status_code == 403
    assert "error" in refused.json()
    token = browser.get("/api/v1/me/").cookies[settings.CSRF_COOKIE_NAME].value
    ok = browser.post(
        "/api/v1/age-check/",
        {"birth_date": adult_date.isoformat()},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert ok.status_code == 200, ok.content


# --- the guest page ------------------------------------------------------------------------------


def test_guest_check_page_confirms_and_returns_to_next(client, adult_date):
    page = client.get("/age-check/?next=/play/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Date of birth" in html
    assert re.search(r"<button[^>]*>\s*Continue\s*</button>", html)
    response = client.post("/age-check/", {"birth_date": adult_date.isoformat(), "next": "/play/"})
    assert response.status_code == 302
    assert response["Location"] == "/play/"
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is True
    # Already confirmed: the page sends the guest straight on.
    assert client.get("/age-check/?next=/play/")["Location"] == "/play/"


def test_guest_check_page_refuses_an_outside_next(client, adult_date):
    response = client.post(
        "/age-check/", {"birth_date": adult_date.isoformat(), "next": "https://evil.example/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_guest_check_page_asks_again_on_a_typo_without_locking(client, adult_date):
    response = client.post("/age-check/", {"birth_date": "1990-13-01"})
    assert response.status_code == 200
    assert "Please enter a valid date." in response.content.decode()
    assert gate.LOCK_COOKIE not in response.cookies
    assert client.post("/age-check/", {"birth_date": adult_date.isoformat()}).status_code == 302


def test_a_signed_in_player_without_a_confirmation_is_attested_by_the_check(client, adult_date):
    user = User.objects.create_user("staff", "staff@example.com", "pw-long-enough-123")
    client.force_login(user)
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is False
    heist = "/api/v1/heists/00000000-0000-4000-8000-000000000000/"
    assert client.get(heist).json()["error"]["code"] == "age_check_required"
    assert api_age_check(client, adult_date).status_code == 200
    # Past the heist routes' check now (their own refusal: no such heist).
    assert client.get(heist).json()["error"]["code"] == "not_found"
    profile = Profile.objects.get(user=user)
    assert profile.adult_confirmed_at is not None
    assert profile.gate_version == gate.GATE_VERSION


def test_birth_date_is_required_and_validated_on_sign_up(client):
    response = client.post(
        "/accounts/signup/",
        {"email": "a@example.com", "password1": "x" * 20, "password2": "x" * 20},
    )
    assert response.status_code == 200
    assert "Please enter your date of birth." in response.content.decode()
    assert User.objects.count() == 0
    assert gate.LOCK_COOKIE not in response.cookies
    fresh = years_ago(40)
    assert signup(client, email="a@example.com", birth_date=fresh).status_code == 302


def test_a_confirmed_player_is_not_asked_again(client, adult_date, refused_date):
    make_player(client, email="done@example.com", birth_date=adult_date)
    assert client.get("/age-check/?next=/play/")["Location"] == "/play/"
    assert client.post("/age-check/", {"birth_date": refused_date.isoformat()}).status_code == 302
    again = api_age_check(client, refused_date)
    assert again.status_code == 200
    assert gate.LOCK_COOKIE not in again.cookies
    assert client.get("/api/v1/me/").json()["adult_confirmed"] is True


# --- the ruling on signing in after a refusal (issue 17, finding 5) ------------------------------


def _sign_in(client, email):
    return client.post("/accounts/login/", {"login": email, "password": PASSWORD})


def test_a_refused_browser_may_sign_in_to_an_account_that_passed_the_gate(refused_date):
    make_player(Client(), email="holder@example.com")
    browser = Client()
    assert api_age_check(browser, refused_date).json()["error"]["code"] == "age_check_failed"
    response = _sign_in(browser, "holder@example.com")
    assert response.status_code == 302, response.content.decode()[:500]
    me = browser.get("/api/v1/me/").json()
    assert me["authenticated"] is True and me["adult_confirmed"] is True
    started = browser.post(
        "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}, "application/json"
    )
    assert started.status_code == 201, started.content
    # Every other door of this browser stays shut for the day, signed out again too.
    browser.post("/accounts/logout/")
    assert api_age_check(browser, years_ago(40)).json()["error"]["code"] == "age_check_locked"
    assert browser.get("/accounts/signup/").status_code == 403
    assert browser.get("/api/v1/me/").json()["adult_confirmed"] is False


def test_a_refused_browser_may_not_sign_in_to_an_account_without_the_gate(refused_date):
    made = User.objects.create_user("made", "made@example.com", PASSWORD)  # createsuperuser
    EmailAddress.objects.create(user=made, email="made@example.com", verified=True, primary=True)
    browser = Client()
    assert api_age_check(browser, refused_date).status_code == 403
    response = _sign_in(browser, "made@example.com")
    assert response.status_code == 403
    assert_neutral(response.content.decode(), "sign-in refusal")
    assert gate.REFUSAL_MESSAGE in html_lib.unescape(response.content.decode())
    assert browser.get("/api/v1/me/").json()["authenticated"] is False
    # From a browser that was never refused, the same account signs in (and then passes the
    # guest check like a guest: the gate fails closed).
    fresh = Client()
    assert _sign_in(fresh, "made@example.com").status_code == 302
    assert fresh.get("/api/v1/me/").json() | {"username": None} == {
        "authenticated": True,
        "username": None,
        "adult_confirmed": False,
        "time_zone": "UTC",
        "rating": {"value": 1500, "deviation": 350, "provisional": True},
        "signs": 0,
    }
