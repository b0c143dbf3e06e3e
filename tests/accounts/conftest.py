import datetime as dt

import pytest
from django.core.cache import cache
from django.utils import timezone

PASSWORD = "correct horse battery staple 42"


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit counters live in the real cache (this run's own Redis database): start and end
    # every test clean so one test's failed sign-ins never count against another's.
    cache.clear()
    yield
    cache.clear()


def years_ago(years: int, *, days: int = 0) -> dt.date:
    today = timezone.localdate()
    try:
        day = today.replace(year=today.year - years)
    except ValueError:  # 29 February in a common year
        day = today.replace(year=today.year - years, day=28)
    return day - dt.timedelta(days=days)


@pytest.fixture
def adult_date() -> dt.date:
    return years_ago(30, days=40)


@pytest.fixture
def refused_date() -> dt.date:
    return years_ago(12, days=3)


def signup(client, *, email: str, birth_date, password: str = PASSWORD, follow: bool = False):
    value = birth_date.isoformat() if isinstance(birth_date, dt.date) else birth_date
    return client.post(
        "/accounts/signup/",
        {"email": email, "birth_date": value, "password1": password, "password2": password},
        follow=follow,
    )


def make_player(client, *, email: str, birth_date: dt.date | None = None):
    """Sign a player up through the real form, so they carry a real attestation."""
    response = signup(client, email=email, birth_date=birth_date or years_ago(35))
    assert response.status_code == 302, response.content.decode()[:2000]
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(email=email)
