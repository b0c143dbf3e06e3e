"""Sign-ups through the real forms, confirmation mails followed as their reader would, dates
of birth, and the age gate's neutral wording."""

from __future__ import annotations

import datetime as dt
import re

from django.utils import timezone

PASSWORD = "correct horse battery staple 42"


def years_ago(years: int, *, days: int = 0) -> dt.date:
    today = timezone.localdate()
    try:
        day = today.replace(year=today.year - years)
    except ValueError:  # 29 February in a common year
        day = today.replace(year=today.year - years, day=28)
    return day - dt.timedelta(days=days)


def signup(client, *, email: str, birth_date, password: str = PASSWORD, follow: bool = False):
    value = birth_date.isoformat() if isinstance(birth_date, dt.date) else birth_date
    return client.post(
        "/accounts/signup/",
        {"email": email, "birth_date": value, "password1": password, "password2": password},
        follow=follow,
    )


_CONFIRM_LINK = re.compile(r"https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)")


def confirm_email(client, email: str):
    """Follow the confirmation link of the last mail sent to ``email``, as its reader would
    (in the browser that signed up, confirming signs in)."""
    from django.core import mail

    sent = [m for m in mail.outbox if email in m.to]
    assert sent, f"no mail to {email}"
    match = _CONFIRM_LINK.search(sent[-1].body)
    assert match, sent[-1].body
    assert client.get(match[1]).status_code == 200
    return client.post(match[1])


def make_player(client, *, email: str, birth_date: dt.date | None = None):
    """Sign a player up through the real form and confirm the email from the mail, so they
    carry a real attestation and are signed in (as a player who follows the link is)."""
    response = signup(client, email=email, birth_date=birth_date or years_ago(35))
    assert response.status_code == 302, response.content.decode()[:2000]
    confirmed = confirm_email(client, email)
    assert confirmed.status_code == 302, confirmed.content.decode()[:2000]
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(email=email)


# What the gate must never say or hint: the cut-off, or what it is about.
_FORBIDDEN = [
    re.compile(r"\b18\b"),
    re.compile(r"eighteen", re.I),
    re.compile(r"adult", re.I),
    re.compile(r"minor", re.I),
    re.compile(r"too young", re.I),
    re.compile(r"under-?age", re.I),
    re.compile(r"age limit", re.I),
]


def assert_neutral(text: str, where: str) -> None:
    for pattern in _FORBIDDEN:
        match = pattern.search(text)
        if match:
            context = text[max(0, match.start() - 80) : match.end() + 80]
            raise AssertionError(f"{where} contains {match.group(0)!r}: ...{context}...")


def api_age_check(client, birth_date):
    value = birth_date.isoformat() if isinstance(birth_date, dt.date) else birth_date
    return client.post("/api/v1/age-check/", {"birth_date": value}, content_type="application/json")
