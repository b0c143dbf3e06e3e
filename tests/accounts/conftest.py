import datetime as dt

import pytest
from django.core.cache import cache

from tests.support.accounts import years_ago


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit counters live in the real cache (this run's own Redis database): start and end
    # every test clean so one test's failed sign-ins never count against another's.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def adult_date() -> dt.date:
    return years_ago(30, days=40)


@pytest.fixture
def refused_date() -> dt.date:
    return years_ago(12, days=3)
