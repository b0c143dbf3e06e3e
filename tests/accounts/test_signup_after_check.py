"""Sign-up after a passed guest check: the date of birth is not asked a second time, and the
gate stays as it was for everyone else (issue 18)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import gate
from accounts.models import Profile
from tests.support.accounts import PASSWORD, api_age_check, assert_neutral, signup

pytestmark = pytest.mark.django_db
User = get_user_model()


def _signup_without_date(client, email):
    return client.post(
        "/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    )


def test_a_guest_who_passed_the_check_is_not_asked_again_and_is_attested(adult_date):
    browser = Client()
    assert api_age_check(browser, adult_date).status_code == 200
    html = browser.get("/accounts/signup/").content.decode()
    assert 'name="birth_date"' not in html
    assert "Date of birth" not in html
    assert_neutral(html, "sign-up page after a passed check")

    assert _signup_without_date(browser, "checked@example.com").status_code == 302
    profile = Profile.objects.get(user__email="checked@example.com")
    assert profile.adult_confirmed_at is not None
    assert profile.gate_version == gate.GATE_VERSION


def test_a_date_sent_anyway_after_a_passed_check_is_judged_as_ever(adult_date, refused_date):
    browser = Client()
    api_age_check(browser, adult_date)
    response = signup(browser, email="again@example.com", birth_date=refused_date)
    assert response.status_code == 403
    assert_neutral(response.content.decode(), "refusal after a passed check")
    assert not User.objects.filter(email="again@example.com").exists()
    # The pass is withdrawn: the next sign-up is refused too, date or not.
    assert _signup_without_date(browser, "again@example.com").status_code == 403


def test_a_new_browser_is_still_asked_and_a_missing_date_refused():
    fresh = Client()
    assert 'name="birth_date"' in fresh.get("/accounts/signup/").content.decode()
    response = _signup_without_date(fresh, "nodate@example.com")
    assert response.status_code == 200
    assert "Please enter your date of birth." in response.content.decode()
    assert not User.objects.filter(email="nodate@example.com").exists()


def test_a_refused_browser_gets_the_refusal_not_a_form_without_the_date(adult_date, refused_date):
    browser = Client()
    api_age_check(browser, adult_date)
    assert api_age_check(browser, refused_date).status_code == 403  # withdraws the pass
    page = browser.get("/accounts/signup/")
    assert page.status_code == 403
    assert_neutral(page.content.decode(), "locked sign-up page")
    assert _signup_without_date(browser, "late@example.com").status_code == 403
    assert not User.objects.filter(email="late@example.com").exists()
