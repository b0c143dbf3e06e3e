"""The settings module refuses malformed environment values, naming the variable."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

from veyltak_site.env import env_bool, env_int, env_list, env_url


def _start_django(**env) -> subprocess.CompletedProcess:
    full = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=full,
        capture_output=True,
        text=True,
        check=False,
        cwd=settings.BASE_DIR,
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://nobody@127.0.0.1/x"),
        ("CELERY_BROKER_URL", "ftp://example"),
        ("RIVAL_FALLBACK_SECONDS", "soon"),
        ("HEIST_ABANDON_MINUTES", "0"),
        ("SECRET_KEY", "too-short"),
    ],
)
def test_malformed_value_stops_start_up_naming_the_variable(name, value):
    result = _start_django(**{name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert name in result.stderr


def test_good_values_start():
    result = _start_django(DEBUG="off", HEIST_ABANDON_MINUTES="30")
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
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.DEBUG)",
        ],
        env={k: v for k, v in os.environ.items() if k != "DEBUG"},
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    )
    assert result.stdout.strip() == "False"


def test_sqlite_default_uses_wal_and_immediate_transactions(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["VEYLTAK_VAR_DIR"] = str(tmp_path)
    code = (
        "import django; django.setup();"
        "from django.db import connection; from django.conf import settings;"
        "c = connection.cursor(); c.execute('PRAGMA journal_mode'); print(c.fetchone()[0]);"
        "print(settings.DATABASES['default']['OPTIONS']['transaction_mode'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    ).stdout.split()
    assert out == ["wal", "IMMEDIATE"]
    # The secret key is generated once into var/, never committed.
    assert (tmp_path / "secret_key").read_text()
