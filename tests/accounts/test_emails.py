"""The account mails speak in the site's own words and name the site, VEYLTAK, never the host
the request came in on (allauth's stock text said "Hello from 127.0.0.1:8002!"): the sign-up
confirmation, a second sign-up with an address in use ("account already exists"), a password
reset for an account and for an unknown address."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client

from tests.support.accounts import confirm_email, signup

pytestmark = pytest.mark.django_db

STOCK = ("Hello from", "Thank you for using", "You're receiving this", "username is")


def _only_mail_to(email: str):
    sent = [m for m in mail.outbox if email in m.to]
    assert len(sent) == 1, [m.subject for m in sent]
    return sent[0]


def _ours(message, *, subject: str, says: str, link: str) -> None:
    assert message.subject == f"VEYLTAK: {subject}"
    body = message.body
    assert says in body, body
    assert re.search(rf"http://testserver{link}", body), body
    assert "VEYLTAK" in body and "http://testserver/" in body  # the name and the site's address
    for stock in STOCK:
        assert stock not in body, stock
    # The host names neither the site nor a subject line.
    assert "testserver" not in message.subject and "[" not in message.subject


def test_sign_up_confirmation_and_a_second_sign_up_with_the_same_address(adult_date):
    browser = Client()
    assert signup(browser, email="new@example.com", birth_date=adult_date).status_code == 302
    confirm = _only_mail_to("new@example.com")
    _ours(
        confirm,
        subject="Confirm your email to start playing",
        says="Welcome to VEYLTAK!",
        link="/accounts/confirm-email/[^/\\s]+/",
    )
    confirm_email(browser, "new@example.com")
    mail.outbox.clear()
    cache.clear()  # allauth sends one mail per address every 3 minutes (its confirm_email limit)
    # The same address again: the same answer for the page, and a mail that says so.
    assert signup(Client(), email="new@example.com", birth_date=adult_date).status_code == 302
    exists = _only_mail_to("new@example.com")
    _ours(
        exists,
        subject="You already have an account",
        says="it already has an account",
        link="/accounts/password/reset/",
    )


def test_password_reset_for_an_account_and_for_an_unknown_address(adult_date):
    assert signup(Client(), email="reset@example.com", birth_date=adult_date).status_code == 302
    mail.outbox.clear()
    assert (
        Client().post("/accounts/password/reset/", {"email": "reset@example.com"}).status_code
        == 302
    )
    _ours(
        _only_mail_to("reset@example.com"),
        subject="Choose a new password",
        says="To choose a new one, open this link",
        link="/accounts/password/reset/key/",
    )
    assert (
        Client().post("/accounts/password/reset/", {"email": "nobody@example.com"}).status_code
        == 302
    )
    _ours(
        _only_mail_to("nobody@example.com"),
        subject="No account with this address",
        says="no account uses it",
        link="/accounts/signup/",
    )
