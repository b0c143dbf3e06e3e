"""Staff (who can grant Signs) sign in with a second factor (issue 16): allauth's MFA with an
authenticator app (TOTP). Staff without one cannot reach the admin until they set it up; the
codes here are computed by the test from the secret the activation page shows (RFC 6238)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts.services import profile_attest
from tests.support.staff import give_second_factor, totp_code

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple 42"


@pytest.fixture
def boss():
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    profile_attest(user=user)
    return user


def sign_in(client: Client, email: str = "boss@example.com", password: str = PASSWORD):
    return client.post("/accounts/login/", {"login": email, "password": password})


def signed_in(client: Client) -> bool:
    return client.get("/api/v1/me/").json()["authenticated"]


def test_staff_without_a_second_factor_are_sent_to_set_one_up(boss):
    browser = Client()
    assert sign_in(browser).status_code == 302 and signed_in(browser)
    # Signed in with a password alone: no admin page, not even the index.
    for path in ("/admin/", "/admin/shop/account/", "/admin/auth/user/"):
        answer = browser.get(path, follow=True)
        assert answer.redirect_chain, path
        hops = [url for url, _ in answer.redirect_chain]
        assert any(url.startswith("/accounts/2fa/totp/activate/") for url in hops), hops
        assert answer.status_code == 200 and "/admin/" not in answer.request["PATH_INFO"]
    assert browser.post("/admin/auth/user/add/", {"username": "x"}).status_code == 302
    assert get_user_model().objects.filter(username="x").count() == 0


def test_staff_set_up_totp_then_sign_in_with_a_code(boss):
    browser = Client()
    sign_in(browser)
    page = browser.get("/accounts/2fa/totp/activate/")
    if page.status_code == 302:  # allauth asks for the password again before a change
        assert page["Location"].startswith("/accounts/reauthenticate/")
        assert browser.post(page["Location"], {"password": PASSWORD}).status_code == 302
        page = browser.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = page.context["form"].secret
    assert re.fullmatch(r"[A-Z2-7]{16,}", secret)
    # A wrong code is refused; the right one (computed here) sets the factor up.
    wrong = str((int(totp_code(secret)) + 1) % 1_000_000).zfill(6)
    assert browser.post("/accounts/2fa/totp/activate/", {"code": wrong}).status_code == 200
    assert not Authenticator.objects.filter(user=boss, type="totp").exists()
    done = browser.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert done.status_code == 302
    assert Authenticator.objects.filter(user=boss, type="totp").exists()
    # The admin then asks this session for a code (the next one: a code is used once).
    assert browser.get("/admin/").status_code == 302
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=30), tick=False):
        asked = browser.post("/accounts/2fa/reauthenticate/", {"code": totp_code(secret)})
        assert asked.status_code == 302
        assert browser.get("/admin/").status_code == 200

    # Another day, another browser: the password alone does not sign in.
    later = timezone.now() + dt.timedelta(minutes=2)
    with time_machine.travel(later, tick=False):
        other = Client()
        first = sign_in(other)
        assert first.status_code == 302 and first["Location"].startswith("/accounts/2fa/")
        assert not signed_in(other)
        assert other.get("/admin/").status_code == 302
        wrong = str((int(totp_code(secret)) + 1) % 1_000_000).zfill(6)
        assert other.post(first["Location"], {"code": wrong}).status_code == 200
        assert not signed_in(other)
        answer = other.post(first["Location"], {"code": totp_code(secret)})
        assert answer.status_code == 302 and signed_in(other)
        assert other.get("/admin/").status_code == 200


def test_players_sign_in_without_a_second_factor_unless_they_set_one_up():
    player = get_user_model().objects.create_user("p", "p@example.com", PASSWORD)
    EmailAddress.objects.create(user=player, email=player.email, primary=True, verified=True)
    browser = Client()
    assert sign_in(browser, "p@example.com").status_code == 302 and signed_in(browser)
    # A player is no staff: no admin either way.
    assert browser.get("/admin/").status_code in (302, 403)
    secret = give_second_factor(player)
    other = Client()
    first = sign_in(other, "p@example.com")
    assert first["Location"].startswith("/accounts/2fa/") and not signed_in(other)
    assert other.post(first["Location"], {"code": totp_code(secret)}).status_code == 302
    assert signed_in(other)


def test_the_computed_code_matches_rfc_6238():
    # RFC 6238, appendix B (SHA-1, 8 digits) at T = 59 s: 94287082.
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # base32 of "12345678901234567890"
    assert totp_code(secret, at=59, digits=8) == "94287082"
    assert totp_code(secret, at=1111111109, digits=8) == "07081804"


def _wrong(secret: str) -> str:
    return str((int(totp_code(secret)) + 1) % 1_000_000).zfill(6)


def test_too_many_wrong_codes_at_the_second_step_answer_429_rate_limited(boss):
    # Issue 27, S10: the sixth code within allauth's login_failed window (5 per account in 5
    # minutes) was a 200 page saying "Too many failed login attempts"; every other limited
    # door answers 429 rate_limited with Retry-After.
    secret = give_second_factor(boss)
    browser = Client()
    first = sign_in(browser)
    assert first.status_code == 302 and first["Location"].startswith("/accounts/2fa/")
    step = first["Location"]
    for _ in range(5):
        assert browser.post(step, {"code": _wrong(secret)}).status_code == 200
    for code in (_wrong(secret), totp_code(secret)):  # the right code too, while it lasts
        refused = browser.post(step, {"code": code})
        assert refused.status_code == 429, refused.content.decode()[:500]
        assert int(refused["Retry-After"]) == 300
        assert 'data-error-code="rate_limited"' in refused.content.decode()
    assert not signed_in(browser)


def test_too_many_wrong_codes_when_asked_again_answer_429_rate_limited(boss):
    # The same limit at allauth's "enter your code again" door (reauthentication).
    secret = give_second_factor(boss)
    browser = Client()
    step = sign_in(browser)["Location"]
    assert browser.post(step, {"code": totp_code(secret)}).status_code == 302
    for _ in range(5):
        answer = browser.post("/accounts/2fa/reauthenticate/", {"code": _wrong(secret)})
        assert answer.status_code == 200
    refused = browser.post("/accounts/2fa/reauthenticate/", {"code": _wrong(secret)})
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 300
    assert 'data-error-code="rate_limited"' in refused.content.decode()


def _asked_for_a_code(browser: Client, path: str) -> bool:
    answer = browser.get(path, follow=True)
    hops = [url for url, _ in answer.redirect_chain]
    return (
        any(url.startswith("/accounts/2fa/reauthenticate/") for url in hops)
        and answer.request["PATH_INFO"] == "/accounts/2fa/reauthenticate/"
    )


def test_a_password_only_session_from_before_the_factor_does_not_reach_the_admin(boss):
    # Issue 27, S2: the admin asked whether the *account* had an authenticator, so a session
    # signed in with the password alone before TOTP was set up (in another browser) went on
    # reaching /admin/. The admin needs a session that passed the second factor.
    old = Client()
    assert sign_in(old).status_code == 302 and signed_in(old)
    secret = give_second_factor(boss)  # set up elsewhere
    for path in ("/admin/", "/admin/shop/", "/admin/shop/account/", "/admin/auth/user/"):
        assert old.get(path).status_code == 302, path
        assert _asked_for_a_code(old, path), path
    assert old.post("/admin/auth/user/add/", {"username": "x"}).status_code == 302
    assert not get_user_model().objects.filter(username="x").exists()
    # The code, typed in this session, lets it in.
    done = old.post("/accounts/2fa/reauthenticate/?next=/admin/shop/", {"code": totp_code(secret)})
    assert done.status_code == 302 and done["Location"] == "/admin/shop/"
    assert old.get("/admin/shop/").status_code == 200
    assert old.get("/admin/").status_code == 200


def test_a_session_that_merely_set_the_factor_up_is_asked_for_a_code(boss):
    # Setting TOTP up proves the app holds the secret, not who signed in: allauth records no
    # second factor for it, and the admin asks this session for a code, as a sign-in would.
    browser = Client()
    sign_in(browser)
    reauth = browser.get("/accounts/2fa/totp/activate/")
    if reauth.status_code == 302:
        browser.post(reauth["Location"], {"password": PASSWORD})
    secret = browser.get("/accounts/2fa/totp/activate/").context["form"].secret
    activated = browser.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert activated.status_code == 302
    assert _asked_for_a_code(browser, "/admin/")
