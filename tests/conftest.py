import os

import pytest
from django.conf import settings


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
    skip = pytest.mark.skip(reason="needs PostgreSQL (row locks, concurrency); SQLite is in use")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)
