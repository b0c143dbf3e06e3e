"""`make test` picks its services and says so; with CI=true a missing one fails the run."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

SCRIPT = settings.BASE_DIR / "scripts" / "testenv.py"


def _run(**env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--collect-only", "-q", "tests/site/test_testenv.py"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        cwd=settings.BASE_DIR,
        timeout=120,
    )


def test_ci_refuses_to_fall_back_when_postgres_is_missing():
    result = _run(CI="true", DATABASE_URL="postgres://postgres@127.0.0.1:1/none")
    assert result.returncode != 0
    assert "CI=true needs PostgreSQL and Redis" in result.stderr
    assert "PostgreSQL" in result.stderr


def test_ci_refuses_to_fall_back_when_redis_is_missing():
    result = _run(CI="true", REDIS_URL="redis://127.0.0.1:1")
    assert result.returncode != 0
    assert "Redis" in result.stderr


def test_without_ci_it_falls_back_to_sqlite_and_says_so():
    result = _run(CI="", DATABASE_URL="postgres://postgres@127.0.0.1:1/none")
    assert result.returncode == 0, result.stderr
    assert "tests use: SQLite" in result.stdout
    assert "PostgreSQL-only tests are skipped" in result.stdout


def test_the_current_run_uses_real_services_in_ci():
    if os.environ.get("CI", "").lower() not in {"1", "true", "yes"}:
        pytest.skip("only meaningful under CI=true")
    assert settings.USING_POSTGRES
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
