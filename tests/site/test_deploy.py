"""Production settings pass `manage.py check --deploy` with no warning (issue 16), given the
variables an operator sets (docs/security.md, "Running in production"); the laptop defaults do
not."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

OPERATOR = {
    "SECRET_KEY": "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
    "ALLOWED_HOSTS": "veyltak.example",
    "CSRF_TRUSTED_ORIGINS": "https://veyltak.example",
    "DATABASE_URL": "postgres://veyltak:secret@db.internal:5432/veyltak",
    "REDIS_URL": "redis://cache.internal:6379/0",
    "CELERY_BROKER_URL": "redis://cache.internal:6379/1",
    "EMAIL_HOST": "smtp.internal",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_PROXY_SSL_HEADER": "1",
    "SECURE_COOKIES": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
}
# Set by the test run; an operator's environment has none of them (the browser tests set the last
# one for Playwright's event loop, and it stays in os.environ for the rest of the run).
TEST_ONLY = (
    "DATABASE_TEST_NAME",
    "DEBUG",
    "CELERY_TASK_ALWAYS_EAGER",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
)


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in TEST_ONLY and k not in OPERATOR}
    full.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy_without_a_warning():
    # `check` connects to no server: the hosts above need not exist.
    result = check_deploy(OPERATOR)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_the_laptop_defaults_are_not_production():
    result = check_deploy({})
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "mail.E001"):
        assert warning in result.stdout + result.stderr
