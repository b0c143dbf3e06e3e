"""Accounts: rate limits, admin login, guest id, the heist gate, profile, export, deletion."""

import json
import re

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.test import Client
from django.utils.module_loading import import_string

from accounts import gate
from accounts.models import Profile
from accounts.signals import account_deleting
from tests.support.accounts import PASSWORD, confirm_email, make_player, signup
from tests.support.staff import give_second_factor, sign_in_with_second_factor

User = get_user_model()
pytestmark = pytest.mark.django_db


def sign_in(client, email, password):
    return client.post("/accounts/login/", {"login": email, "password": password})


def is_signed_in(client) -> bool:
    return client.get("/api/v1/me/").json()["authenticated"]


# --- rate limits ---------------------------------------------------------------------------------


def test_the_cache_is_a_real_one():
    backend = settings.CACHES["default"]["BACKEND"]
    assert "dummy" not in backend.lower()
    assert "locmem" not in backend.lower()
    if settings.REDIS_URL:
        # The site's own class counts hits and misses for the metrics; it is Django's Redis cache.
        assert issubclass(import_string(backend), DjangoRedisCache)


def test_the_sixth_failed_sign_in_within_five_minutes_is_refused(adult_date):
    make_player(Client(), email="target@example.com", birth_date=adult_date)
    attacker = Client()
    for attempt in range(5):
        response = sign_in(attacker, "target@example.com", f"wrong-{attempt}")
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()
    # The sixth is refused even with the right password, and from another browser too: the
    # limit is per account (and per address), kept in the shared cache.
    for browser in (attacker, Client()):
        sixth = sign_in(browser, "target@example.com", PASSWORD)
        # As every limited door answers (issue 16): 429 rate_limited, Retry-After.
        assert sixth.status_code == 429 and int(sixth["Retry-After"]) == 300
        assert 'data-error-code="rate_limited"' in sixth.content.decode()
        assert not is_signed_in(browser)


def test_a_right_password_still_works_before_the_limit(adult_date):
    make_player(Client(), email="ok@example.com", birth_date=adult_date)
    browser = Client()
    for attempt in range(4):
        sign_in(browser, "ok@example.com", f"wrong-{attempt}")
    assert sign_in(browser, "ok@example.com", PASSWORD).status_code == 302
    assert is_signed_in(browser)


def test_admin_login_goes_through_the_rate_limited_sign_in():
    User.objects.create_user("boss", "boss@example.com", PASSWORD, is_staff=True, is_superuser=True)
    browser = Client()
    page = browser.get("/admin/login/?next=/admin/")
    assert page.status_code == 302
    assert page["Location"].startswith("/accounts/login/")
    # The admin's own form never checks a password: posting to it signs nobody in.
    posted = browser.post("/admin/login/?next=/admin/", {"username": "boss", "password": PASSWORD})
    assert posted.status_code == 302
    assert posted["Location"].startswith("/accounts/login/")
    assert not is_signed_in(browser)
    # Brute force against the staff account is cut off like any other.
    for attempt in range(5):
        sign_in(browser, "boss@example.com", f"guess-{attempt}")
    refused = sign_in(browser, "boss@example.com", PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"]
    assert browser.get("/admin/").status_code == 302
    # Signed in, staff reach the admin once they have a second factor (tests/accounts/
    # test_staff_mfa.py signs in with it).
    give_second_factor(User.objects.get(username="boss"))
    staff = Client()
    staff.force_login(User.objects.get(username="boss"))
    assert staff.get("/admin/").status_code == 302  # this session has not passed it
    sign_in_with_second_factor(staff, User.objects.get(username="boss"))
    assert staff.get("/admin/").status_code == 200


# --- the heist gate ------------------------------------------------------------------------------


@pytest.mark.urls("tests.accounts.urls_gate")
def test_heist_routes_refuse_a_guest_without_the_check(client, adult_date):
    refused = client.get("/test/heist-api/")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "age_check_required"
    page = client.get("/test/heist-page/?x=1")
    assert page.status_code == 302
    assert page["Location"] == "/age-check/?next=%2Ftest%2Fheist-page%2F%3Fx%3D1"
    client.post("/api/v1/age-check/", {"birth_date": adult_date.isoformat()}, "application/json")
    assert client.get("/test/heist-api/").status_code == 200
    assert client.get("/test/heist-page/").status_code == 200


@pytest.mark.urls("tests.accounts.urls_gate")
def test_heist_routes_after_sign_up_and_for_accounts_made_outside_the_gate(adult_date):
    player = Client()
    make_player(player, email="p@example.com", birth_date=adult_date)
    assert player.get("/test/heist-api/").status_code == 200
    # An account made without the gate (createsuperuser, a social sign-up if ever enabled)
    # has no confirmation and must pass the check like a guest: the gate fails closed.
    outsider = Client()
    outsider.force_login(User.objects.create_user("o", "o@example.com", PASSWORD))
    assert outsider.get("/test/heist-api/").json()["error"]["code"] == "age_check_required"


def test_social_sign_in_is_not_installed():
    assert not any(app.startswith("allauth.socialaccount") for app in settings.INSTALLED_APPS)
    assert Client().get("/accounts/3rdparty/").status_code == 404


# --- guest id ------------------------------------------------------------------------------------


@pytest.mark.urls("tests.accounts.urls_gate")
def test_guest_id_survives_sign_up_and_sign_in(client, adult_date):
    first = client.get("/test/guest-id/").json()["guest_id"]
    assert len(first) >= 20
    assert client.get("/test/guest-id/").json()["guest_id"] == first
    old_session = client.cookies[settings.SESSION_COOKIE_NAME].value
    signup(client, email="g@example.com", birth_date=adult_date)
    assert not is_signed_in(client)  # not before the email is confirmed
    assert client.get("/test/guest-id/").json()["guest_id"] == first
    confirm_email(client, "g@example.com")  # in this browser: signs in
    assert is_signed_in(client)
    assert client.cookies[settings.SESSION_COOKIE_NAME].value != old_session  # key cycled
    assert client.get("/test/guest-id/").json()["guest_id"] == first

    client.post("/accounts/logout/")
    assert not is_signed_in(client)
    second = client.get("/test/guest-id/").json()["guest_id"]
    assert second != first  # signing out starts a new guest
    assert sign_in(client, "g@example.com", PASSWORD).status_code == 302
    assert client.get("/test/guest-id/").json()["guest_id"] == second


# --- profile, export, deletion -------------------------------------------------------------------


def test_profile_needs_sign_in(client):
    for path in ("/accounts/profile/", "/accounts/export/", "/accounts/delete/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_profile_shows_and_edits_only_ones_own_data(adult_date):
    alice, bob = Client(), Client()
    make_player(alice, email="alice@example.com", birth_date=adult_date)
    bob_user = make_player(bob, email="bob@example.com", birth_date=adult_date)
    bob.post("/accounts/profile/", {"handle": "bobby", "display_name": "Bobby Tables"})
    assert Profile.objects.get(user=bob_user).display_name == "Bobby Tables"

    response = alice.post("/accounts/profile/", {"handle": "owl", "display_name": "  Night Owl  "})
    assert response.status_code == 302
    page = alice.get(f"/accounts/profile/?user={bob_user.pk}").content.decode()
    assert "Night Owl" in page
    assert "Bobby Tables" not in page
    assert "bob@example.com" not in page
    assert "No heists yet" in page
    assert Profile.objects.get(user=bob_user).display_name == "Bobby Tables"
    # No route takes another player's id.
    for path in (f"/accounts/profile/{bob_user.pk}/", f"/accounts/export/{bob_user.pk}/"):
        assert alice.get(path).status_code == 404


def test_export_holds_exactly_the_players_own_data(adult_date):
    alice, bob = Client(), Client()
    alice_user = make_player(alice, email="alice@example.com", birth_date=adult_date)
    make_player(bob, email="bob@example.com", birth_date=adult_date)
    alice.post("/accounts/profile/", {"handle": "owl", "display_name": "Night Owl"})

    response = alice.get(f"/accounts/export/?user={alice_user.pk + 1}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert set(data) == {
        "format",
        "exported_at",
        "account",
        "emails",
        "profile",
        "age_check",
        "heists",
        "decks",
        "rating",
        "jobs",
        "wallet",
        "collection",
    }
    assert data["account"]["username"] == alice_user.username
    assert data["emails"] == [{"email": "alice@example.com", "verified": True, "primary": True}]
    assert data["profile"]["display_name"] == "Night Owl"
    assert data["profile"]["handle"] == "owl"
    assert data["profile"]["time_zone"] == ""  # none set yet: her day turns in UTC
    assert data["age_check"]["passed"] is True
    assert data["age_check"]["gate_version"] == gate.GATE_VERSION
    assert data["heists"] == []
    assert data["decks"] == []
    # Game's rating: the start, nothing rated yet.
    assert (data["rating"]["value"], data["rating"]["heists"]) == (1500, 0)
    assert data["rating"]["provisional"] is True and data["rating"]["changes"] == []
    # Her periods of jobs and the jobs drawn (none opened yet: she has not looked at them).
    assert data["jobs"] == []
    # The shop's section (accounts.extensions): her own wallet, the welcome grant in it.
    assert data["wallet"]["balance"] == 100
    assert [(e["reason"], e["amount"]) for e in data["wallet"]["entries"]] == [("welcome", 100)]
    assert data["collection"]["purchases"] == [] and data["collection"]["owned"] == []
    assert "bob@example.com" not in response.content.decode()
    assert "birth" not in response.content.decode()

    bob_data = bob.get("/accounts/export/").json()
    assert [e["email"] for e in bob_data["emails"]] == ["bob@example.com"]
    assert "alice@example.com" not in json.dumps(bob_data)


def test_account_deletion_needs_the_password_and_removes_personal_data(adult_date):
    browser, other = Client(), Client()
    user = make_player(browser, email="leaving@example.com", birth_date=adult_date)
    make_player(other, email="staying@example.com", birth_date=adult_date)
    browser.post("/accounts/profile/", {"handle": "leaver", "display_name": "Gone Soon"})
    assert browser.get("/accounts/delete/").status_code == 200

    wrong = browser.post("/accounts/delete/", {"password": "not it"})
    assert wrong.status_code == 200
    assert "That password is not right." in wrong.content.decode()
    assert User.objects.filter(pk=user.pk).exists()

    seen = []

    def receiver(sender, user, **kwargs):
        seen.append(user.pk)

    account_deleting.connect(receiver)
    try:
        response = browser.post("/accounts/delete/", {"password": PASSWORD})
    finally:
        account_deleting.disconnect(receiver)
    assert response.status_code == 302
    assert seen == [user.pk]
    assert not User.objects.filter(pk=user.pk).exists()
    assert not EmailAddress.objects.filter(email="leaving@example.com").exists()
    assert not Profile.objects.filter(user_id=user.pk).exists()
    assert not Profile.objects.filter(display_name="Gone Soon").exists()
    assert not is_signed_in(browser)
    assert EmailAddress.objects.filter(email="staying@example.com").exists()
    assert is_signed_in(other)


# --- allauth pages in the site's layout ----------------------------------------------------------


def _assert_site_page(response, path):
    assert response.status_code == 200, path
    html = response.content.decode()
    assert 'class="site-header"' in html, path
    assert "css/accounts.css" in html, path
    assert re.search(r"<h1[^>]*>", html), path


def test_account_pages_use_the_site_layout(adult_date):
    guest = Client()
    for path in (
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/password/reset/",
        "/accounts/password/reset/done/",
        "/accounts/confirm-email/",
        "/accounts/confirm-email/not-a-key/",
        "/age-check/",
    ):
        _assert_site_page(guest.get(path), path)
    player = Client()
    make_player(player, email="pages@example.com", birth_date=adult_date)
    for path in (
        "/accounts/password/change/",
        "/accounts/email/",
        "/accounts/logout/",
        "/accounts/profile/",
        "/accounts/delete/",
        "/accounts/reauthenticate/",
    ):
        _assert_site_page(player.get(path), path)


def test_sign_in_errors_are_shown_on_the_form(adult_date):
    make_player(Client(), email="err@example.com", birth_date=adult_date)
    response = sign_in(Client(), "err@example.com", "nope")
    html = response.content.decode()
    assert 'class="form-alert"' in html
    assert "not correct" in html


def test_sign_up_sends_a_verification_email(adult_date):
    assert signup(Client(), email="verify@example.com", birth_date=adult_date).status_code == 302
    assert any("verify@example.com" in message.to for message in mail.outbox)
    body = mail.outbox[-1].body
    key_url = re.search(r"https?://[^\s]+/accounts/confirm-email/[^\s/]+/", body).group(0)
    browser = Client()
    path = key_url.split("testserver", 1)[-1]
    _assert_site_page(browser.get(path), path)
    assert browser.post(path).status_code == 302
    assert EmailAddress.objects.get(email="verify@example.com").verified


def test_password_reset_and_change(adult_date):
    make_player(Client(), email="forgetful@example.com", birth_date=adult_date)
    browser = Client()
    mail.outbox.clear()
    response = browser.post("/accounts/password/reset/", {"email": "forgetful@example.com"})
    assert response.status_code == 302
    link = re.search(
        r"https?://testserver(/accounts/password/reset/key/[^\s]+)", mail.outbox[0].body
    )
    page = browser.get(link.group(1), follow=True)
    _assert_site_page(page, "reset form")
    new_password = "a brand new passphrase 77"
    done = browser.post(
        page.redirect_chain[-1][0] if page.redirect_chain else link.group(1),
        {"password1": new_password, "password2": new_password},
    )
    assert done.status_code == 302
    assert sign_in(browser, "forgetful@example.com", new_password).status_code == 302

    changed = browser.post(
        "/accounts/password/change/",
        {"oldpassword": new_password, "password1": PASSWORD + "!", "password2": PASSWORD + "!"},
    )
    assert changed.status_code == 302
    assert sign_in(Client(), "forgetful@example.com", PASSWORD + "!").status_code == 302


def test_signed_in_players_are_not_shown_the_sign_up_form(adult_date):
    browser = Client()
    make_player(browser, email="in@example.com", birth_date=adult_date)
    assert browser.get("/accounts/signup/").status_code == 302


# --- history (the game app's heists) -------------------------------------------------------------


def _start_heist(client, rival="furnace", difficulty="rookie") -> str:
    response = client.post(
        "/api/v1/heists/", {"rival": rival, "difficulty": difficulty}, "application/json"
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _finish(heist_id: str, outcome: str) -> None:
    from django.utils import timezone

    from game.models import Heist

    Heist.objects.filter(pk=heist_id).update(
        status="finished", outcome=outcome, finished_at=timezone.now(), night=7
    )


def test_profile_and_export_show_the_players_heists_only(adult_date):
    alice, bob = Client(), Client()
    make_player(alice, email="alice@example.com", birth_date=adult_date)
    make_player(bob, email="bob@example.com", birth_date=adult_date)
    won = _start_heist(alice)
    _finish(won, "win")
    active = _start_heist(alice, rival="quiet-hands", difficulty="kingpin")
    bobs = _start_heist(bob)

    page = alice.get("/accounts/profile/").content.decode()
    assert "The Furnace" in page
    assert "Quiet Hands" in page
    assert f"/heists/{won}/replay/" in page
    assert f"/heists/{active}/" in page
    assert bobs not in page
    assert re.search(
        r'<th scope="row"[^>]*>The Furnace</th><td[^>]*>Rookie</td><td[^>]*>1</td>', page
    )

    exported = alice.get("/accounts/export/").json()
    assert {row["id"] for row in exported["heists"]} == {won, active}
    assert bobs not in json.dumps(exported)


def test_a_guest_who_signs_up_keeps_the_heists_of_that_browser(adult_date):
    browser = Client()
    browser.post("/api/v1/age-check/", {"birth_date": adult_date.isoformat()}, "application/json")
    heist_id = _start_heist(browser)
    make_player(browser, email="late@example.com", birth_date=adult_date)
    assert heist_id in browser.get("/accounts/profile/").content.decode()


def test_deleting_an_account_keeps_its_heists_anonymised(adult_date):
    from game.models import Heist

    browser = Client()
    user = make_player(browser, email="bye@example.com", birth_date=adult_date)
    heist_id = _start_heist(browser)
    browser.post("/accounts/delete/", {"password": PASSWORD})
    assert not User.objects.filter(pk=user.pk).exists()
    heist = Heist.objects.get(pk=heist_id)
    assert heist.user_id is None
    assert heist.guest_id == ""


def test_export_lists_saved_decks_and_deletion_removes_them(adult_date):
    from game.models import SavedDeck

    browser, other = Client(), Client()
    user = make_player(browser, email="decks@example.com", birth_date=adult_date)
    make_player(other, email="others@example.com", birth_date=adult_date)
    deck = ["spark", "spark", "capacitor", "capacitor", "emergency-vent", "emergency-vent",
            "coolant-carrier", "coolant-carrier", "mirror-courier", "mirror-courier",
            "signal-thief", "signal-thief"]  # fmt: skip
    for client, name in ((browser, "Mine"), (other, "Theirs")):
        saved = client.post(
            "/api/v1/decks/mine/", {"name": name, "cards": deck}, content_type="application/json"
        )
        assert saved.status_code == 201, saved.content
    exported = browser.get("/accounts/export/").json()
    assert [(d["name"], d["cards"]) for d in exported["decks"]] == [("Mine", deck)]
    assert "Theirs" not in json.dumps(exported)
    browser.post("/accounts/delete/", {"password": PASSWORD})
    assert not User.objects.filter(pk=user.pk).exists()
    assert list(SavedDeck.objects.values_list("name", flat=True)) == ["Theirs"]
