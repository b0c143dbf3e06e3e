import os

import pytest
from django.conf import settings

# Shared helpers assert as tests do: pytest rewrites their asserts to say what differed.
pytest.register_assert_rewrite("tests.support")

import tests.support.limits  # noqa: E402, F401  (the configured limits, read before any test)


def pytest_report_header(config):
    db = settings.DATABASES["default"]
    return [
        f"database: {db['ENGINE'].rsplit('.', 1)[-1]} {db.get('HOST') or db['NAME']}",
        f"broker: {settings.CELERY_BROKER_URL.split('@')[-1]}",
        f"cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}",
    ]


def pytest_collection_modifyitems(config, items):
    if settings.USING_POSTGRES:
        return
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        raise pytest.UsageError(
            "CI=true but the tests are not on PostgreSQL; run them via `make test`."
        )
    for item in items:
        # A test says why it needs PostgreSQL: @pytest.mark.postgres(reason=...).
        if marker := item.get_closest_marker("postgres"):
            why = marker.kwargs.get("reason", "row locks and concurrency")
            item.add_marker(pytest.mark.skip(reason=f"needs PostgreSQL ({why}); SQLite is in use"))


@pytest.fixture
def admin_user(db, django_user_model):
    """pytest-django's superuser, with the second factor the admin asks staff for."""
    from tests.support.staff import give_second_factor

    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "password")
    give_second_factor(user)
    return user


@pytest.fixture
def admin_client(admin_user):
    """pytest-django's admin client, signed in as a sign-in with the code leaves the session
    (the admin asks the session, not only the account, for the second factor)."""
    from django.test import Client

    from tests.support.staff import sign_in_with_second_factor

    client = Client()
    sign_in_with_second_factor(client, admin_user)
    return client


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    # One address (127.0.0.1) and a shared cache serve the whole suite: limits would turn on
    # whichever test ran late. Tests of the limits set RATE_LIMITS themselves (and one plays
    # with DEFAULT_RATE_LIMITS: a normal player never meets them).
    settings.RATE_LIMITS = {}


@pytest.fixture(autouse=True)
def _jobs_out_of_reach(request, monkeypatch):
    # Jobs are drawn per player and day: a random draw could pay a job in any test that plays a
    # heist, and move the balances it checks. Only tests marked `jobs` play a real pool
    # (tests/support/jobs.py says more).
    if request.node.get_closest_marker("jobs") is None:
        from tests.support.jobs import out_of_reach_pool, use_pool

        use_pool(monkeypatch, out_of_reach_pool())
