"""Sign-up against a hostile visitor (issue 17, findings 7 and 10): one address makes one
account however many sign-ups race, emails are unique whatever their case in the database
itself, and sign-up does not say which addresses have accounts."""

from __future__ import annotations

import re
import threading

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.test import Client

from tests.support.accounts import PASSWORD, confirm_email, make_player, signup, years_ago

User = get_user_model()


def _signup_answer(client: Client, email: str):
    """A sign-up and the page it leads to, as a visitor sees them."""
    response = signup(client, email=email, birth_date=years_ago(30))
    page = client.get(response["Location"]) if response.status_code == 302 else None
    return response, page


# --- enumeration (finding 10) ------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("verified", [False, True])
def test_sign_up_with_a_taken_address_looks_like_any_other(verified):
    owner = make_player(Client(), email="taken@example.com")
    if not verified:
        EmailAddress.objects.filter(user=owner).update(verified=False)
    mail.outbox.clear()
    # The owner signed up a while ago: allauth sends one mail per address every few minutes
    # (its rate limit, in the cache), whoever asks, and that must not be what differs here.
    cache.clear()

    taken, taken_page = _signup_answer(Client(), "Taken@Example.com")
    fresh, fresh_page = _signup_answer(Client(), "fresh@example.com")

    assert taken.status_code == fresh.status_code == 302
    assert taken["Location"] == fresh["Location"]
    assert sorted(taken.cookies) == sorted(fresh.cookies)
    assert taken_page.status_code == fresh_page.status_code == 200

    def shown(page, address):
        # The page as read, with the address typed and the per-request CSRF token masked.
        html = page.content.decode().replace(address, "ADDRESS")
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)

    assert shown(taken_page, "taken@example.com") == shown(fresh_page, "fresh@example.com")
    # No second account; the holder of the address is told someone tried, by mail only.
    assert User.objects.filter(email__iexact="taken@example.com").count() == 1
    assert [m.to for m in mail.outbox] == [["taken@example.com"], ["fresh@example.com"]]
    assert "already" in mail.outbox[0].body.lower()
    assert "confirm-email" in mail.outbox[1].body


@pytest.mark.django_db
def test_a_new_account_is_signed_in_only_once_its_email_is_confirmed():
    browser = Client()
    _, page = _signup_answer(browser, "new@example.com")
    assert "Check your email" in page.content.decode()
    assert browser.get("/api/v1/me/").json()["authenticated"] is False
    confirmed = confirm_email(browser, "new@example.com")
    assert confirmed.status_code == 302
    assert browser.get("/api/v1/me/").json()["authenticated"] is True
    assert EmailAddress.objects.get(email="new@example.com").verified


# --- unique emails in the database (finding 7) ---------------------------------------------------


@pytest.mark.django_db
def test_the_database_refuses_a_second_account_with_an_address_in_any_case():
    User.objects.create_user("one", "Case@Example.com", PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("two", "case@example.COM", PASSWORD)
    # Accounts without an email are not one address.
    User.objects.create_user("three", "", PASSWORD)
    User.objects.create_user("four", "", PASSWORD)


@pytest.mark.django_db
def test_the_database_refuses_a_verified_address_held_twice_in_any_case():
    one = User.objects.create_user("one", "", PASSWORD)
    two = User.objects.create_user("two", "", PASSWORD)
    EmailAddress.objects.create(user=one, email="held@example.com", verified=True)
    EmailAddress.objects.create(user=two, email="HELD@example.com", verified=False)
    with pytest.raises(IntegrityError), transaction.atomic():
        EmailAddress.objects.filter(user=two).update(verified=True)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_sign_ups_at_once_with_one_address_make_one_account():
    addresses = ["racer@example.com", "Racer@example.com", "RACER@EXAMPLE.COM"] * 4
    addresses = addresses[:10]
    barrier = threading.Barrier(len(addresses))
    answers: list = [None] * len(addresses)
    errors: list = []

    def sign_up(i: int, email: str) -> None:
        try:
            client = Client()
            barrier.wait(timeout=10)
            answers[i] = signup(client, email=email, birth_date=years_ago(30))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(i, e)) for i, e in enumerate(addresses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    # Every visitor gets the same answer; one account exists.
    assert {a.status_code for a in answers} == {302}
    assert len({a["Location"] for a in answers}) == 1
    assert User.objects.filter(email__iexact="racer@example.com").count() == 1
    assert EmailAddress.objects.filter(email__iexact="racer@example.com").count() == 1
    assert User.objects.count() == 1


# --- an address belongs to one account (issue 27, S3) ----------------------------------------


def _add_address(client: Client, email: str):
    return client.post("/accounts/email/", {"email": email, "action_add": ""})


@pytest.mark.django_db
def test_an_address_verified_on_one_account_cannot_be_added_to_another_in_any_case():
    owner = make_player(Client(), email="held@example.com")
    other_browser = Client()
    other = make_player(other_browser, email="other@example.com")
    mail.outbox.clear()
    for typed in ("HELD@example.com", "held@EXAMPLE.com", "held@example.com"):
        answer = _add_address(other_browser, typed)
        assert answer.status_code == 200, typed  # the form again, with its error
        assert "already" in answer.content.decode().lower()
    assert not EmailAddress.objects.filter(user=other, email__iexact="held@example.com").exists()
    assert EmailAddress.objects.filter(email__iexact="held@example.com").count() == 1
    assert mail.outbox == []  # no link for the owner to click by mistake
    # A later sign-up with it answers as for any address in use: a mail to its owner (some
    # minutes later: allauth sends one mail per address every few, its limit in the cache).
    cache.clear()
    _signup_answer(Client(), "Held@Example.com")
    assert [m.to for m in mail.outbox] == [["held@example.com"]]
    assert "already" in mail.outbox[0].body.lower()
    assert EmailAddress.objects.get(email__iexact="held@example.com").user == owner


@pytest.mark.django_db
def test_an_address_another_account_signed_up_with_cannot_be_added_either():
    signup(Client(), email="pending@example.com", birth_date=years_ago(30))  # not confirmed yet
    browser = Client()
    other = make_player(browser, email="other@example.com")
    assert _add_address(browser, "Pending@example.com").status_code == 200
    assert not EmailAddress.objects.filter(user=other, email__iexact="pending@example.com")


@pytest.mark.django_db
def test_an_address_added_but_never_confirmed_does_not_keep_its_owner_out():
    # A claim nobody proved (added on another account, never confirmed) does not make the
    # address "in use": its owner signs up, confirms, and the claim goes.
    squatter_browser = Client()
    squatter = make_player(squatter_browser, email="squatter@example.com")
    assert _add_address(squatter_browser, "mine@example.com").status_code == 302
    assert EmailAddress.objects.filter(user=squatter, email="mine@example.com").exists()
    owner_browser = Client()
    mail.outbox.clear()
    cache.clear()  # some minutes later (allauth's one mail per address every few)
    signup(owner_browser, email="Mine@example.com", birth_date=years_ago(30))
    assert "confirm-email" in mail.outbox[-1].body
    assert confirm_email(owner_browser, "mine@example.com").status_code == 302
    owner = User.objects.get(email__iexact="mine@example.com")
    assert owner != squatter
    assert list(EmailAddress.objects.filter(email__iexact="mine@example.com")) == [
        EmailAddress.objects.get(user=owner)
    ]
    assert EmailAddress.objects.get(user=owner).verified


@pytest.mark.django_db
def test_the_migration_removes_claims_made_before_the_fix_and_nothing_confirmed():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("accounts.migrations.0007_email_claims")
    owner = User.objects.create_user("owner", "Owner@example.com", PASSWORD)
    holder = User.objects.create_user("holder", "", PASSWORD)
    claimer = User.objects.create_user("claimer", "claimer@example.com", PASSWORD)
    EmailAddress.objects.create(user=holder, email="kept@example.com", verified=True)
    EmailAddress.objects.create(user=claimer, email="claimer@example.com", primary=True)
    EmailAddress.objects.create(user=claimer, email="owner@example.com")  # owner's sign-up
    EmailAddress.objects.create(user=claimer, email="KEPT@example.com")  # holder's, confirmed
    EmailAddress.objects.create(user=claimer, email="free@example.com")  # nobody's: stays
    migration.remove_unproved_claims(apps, None)
    assert sorted(EmailAddress.objects.filter(user=claimer).values_list("email", flat=True)) == [
        "claimer@example.com",
        "free@example.com",
    ]
    assert EmailAddress.objects.filter(user=holder, verified=True).count() == 1
    assert owner.email == "Owner@example.com"
