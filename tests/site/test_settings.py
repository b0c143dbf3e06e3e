"""The settings module refuses malformed environment values, naming the variable."""

import pytest

from tests.support.fresh import run_django
from veyltak_site.env import env_bool, env_int, env_list, env_url


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://nobody@127.0.0.1/x"),
        ("CELERY_BROKER_URL", "ftp://example"),
        ("RIVAL_FALLBACK_SECONDS", "soon"),
        ("HEIST_ABANDON_MINUTES", "0"),
        ("SECRET_KEY", "too-short"),
        ("LOG_FORMAT", "xml"),
        ("METRICS_TOKEN", "short"),
        ("METRICS_TOKEN", "a token with spaces in it, long enough though"),
        ("METRICS_ALLOWED_IPS", "10.0.0.0/8,not-an-address"),
        ("METRICS_ALLOWED_IPS", "10.0.0.1/8"),  # host bits set: a typo of 10.0.0.0/8?
        ("PROMETHEUS_MULTIPROC_DIR", "/nonexistent/metrics"),
        ("SENTRY_DSN", "ftp://public@example.invalid/1"),
    ],
)
def test_malformed_value_stops_start_up_naming_the_variable(name, value):
    result = run_django(**{name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert name in result.stderr


def test_good_values_start(tmp_path):
    result = run_django(
        DEBUG="off",
        HEIST_ABANDON_MINUTES="30",
        LOG_FORMAT="json",
        METRICS_TOKEN="t" * 32,
        METRICS_ALLOWED_IPS="10.0.0.0/8, 192.0.2.7, fd00::/8",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr


def test_parsers(monkeypatch):
    monkeypatch.setenv("X_BOOL", "Yes")
    monkeypatch.setenv("X_INT", "42")
    monkeypatch.setenv("X_LIST", "a, b,,c")
    monkeypatch.setenv("X_URL", "redis://h:1/0")
    assert env_bool("X_BOOL", False) is True
    assert env_bool("X_MISSING", True) is True
    assert env_int("X_INT", 0) == 42
    assert env_list("X_LIST", []) == ["a", "b", "c"]
    assert env_url("X_URL", "", schemes={"redis"}) == "redis://h:1/0"


def test_debug_is_off_by_default():
    result = run_django(
        "from django.conf import settings; print(settings.DEBUG)", check=True, drop={"DEBUG"}
    )
    assert result.stdout.strip() == "False"


def test_sqlite_default_uses_wal_and_immediate_transactions(tmp_path):
    code = (
        "from django.db import connection; from django.conf import settings\n"
        "c = connection.cursor(); c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])\n"
        "print(settings.DATABASES['default']['OPTIONS']['transaction_mode'])"
    )
    result = run_django(code, check=True, drop={"DATABASE_URL"}, VEYLTAK_VAR_DIR=str(tmp_path))
    assert result.stdout.split() == ["wal", "IMMEDIATE"]
    # The secret key is generated once into var/, never committed.
    assert (tmp_path / "secret_key").read_text()


def test_sign_in_limits_count_the_address_the_proxies_saw():
    # allauth's sign-in and sign-up limits read the client address its own way: with
    # NUM_PROXIES set they must count the address the proxy saw, as the site's limits do.
    code = (
        "from django.test import RequestFactory\n"
        "from allauth.core.internal.httpkit import get_client_ip\n"
        "r = RequestFactory().get('/', REMOTE_ADDR='127.0.0.1',"
        " HTTP_X_FORWARDED_FOR='203.0.113.9')\n"
        "print(get_client_ip(r))"
    )
    behind = run_django(code, check=True, NUM_PROXIES="1")
    assert behind.stdout.strip() == "203.0.113.9"
    direct = run_django(code, check=True, drop={"NUM_PROXIES"})
    assert direct.stdout.strip() == "127.0.0.1"
