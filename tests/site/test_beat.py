"""Celery beat's schedule, as the beat process reads it (the app's configuration, not settings
read back): every entry names a task the worker has registered, and each runs to its end."""

from __future__ import annotations

import pytest

from veyltak_site.celery import app

# Real commits: a task run closes the database connection when it ends, as in a worker
# (veyltak_site/celery.py), which only a test outside a transaction survives.
pytestmark = pytest.mark.django_db(transaction=True)

# The housekeeping docs/ promises an operator: stale heists closed, expired sessions and old
# idempotency records removed, featured slots made and closed.
PROMISED = {
    "game.abandon_stale_heists",
    "accounts.clear_expired_sessions",
    "shop.clear_idempotency_records",
    "game.featured_reconcile",
}


def test_every_beat_entry_is_a_task_the_worker_runs():
    app.loader.import_default_modules()  # what a worker imports at start (autodiscovery)
    schedule = app.conf.beat_schedule
    assert {entry["task"] for entry in schedule.values()} >= PROMISED
    for name, entry in schedule.items():
        assert entry["task"] in app.tasks, f"beat entry {name} names no task: {entry['task']}"
        assert float(entry["schedule"]) > 0, name
        result = app.tasks[entry["task"]].apply(
            args=entry.get("args", ()), kwargs=entry.get("kwargs", {})
        )
        assert result.successful(), f"{name}: {result.traceback}"
