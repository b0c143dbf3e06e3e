"""Fixtures for the heist app: age-checked guests, players, and a live Celery worker."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.support.heists import age_checked_client, make_player
from tests.support.worker import live_worker_process


@pytest.fixture(autouse=True)
def _no_worker_wait(request):
    # Most tests run without a Celery worker (and inside a transaction a worker could not see
    # the rows anyway): the heist view seals the rival's plan in-process as soon as it is read
    # (tests.support.heists.seal reads it first). Tests of the worker and of the fallback set
    # this themselves. (Not for the engine's and the rival's own tests in the folders below,
    # which need no Django.)
    if request.node.path.parent.name in ("engine", "rivals"):
        yield
        return
    settings = request.getfixturevalue("settings")
    settings.RIVAL_FALLBACK_SECONDS = 0
    yield


@pytest.fixture
def long_sessions(settings):
    """Sessions that outlive a clock moved months ahead. Tests that sign in and then travel in
    time need it where sessions live in the database (SQLite: the store checks the expiry
    against the moved clock, so the player would be signed out); with Redis the cached session
    expires on Redis's own clock and never notices the move."""
    settings.SESSION_COOKIE_AGE = 10 * 365 * 24 * 3600


@pytest.fixture
def guest(db) -> Client:
    """A guest browser that passed the age check."""
    return age_checked_client()


@pytest.fixture
def player(db) -> tuple[Any, Client]:
    """A signed-in player who passed the age gate at sign-up."""
    return make_player()


@pytest.fixture
def live_worker(transactional_db, tmp_path):
    """Start ``celery -A veyltak_site worker`` against this test run's database and broker.

    The worker is another process, so it only sees committed rows: use it from tests marked
    ``django_db(transaction=True)``. Stale messages from earlier tests are purged first.
    Four threads, so concurrent runs of one task really race.
    """
    yield from live_worker_process(tmp_path, pool="threads", concurrency=4, conn_max_age=0)


@pytest.fixture
def live_procfile_worker(transactional_db, tmp_path):
    """A worker as the Procfile runs it (its tasks in its own process: --pool solo) keeping its
    database connection between tasks (CONN_MAX_AGE)."""
    yield from live_worker_process(tmp_path, pool="solo", concurrency=1, conn_max_age=60)


@pytest.fixture
def rival_worker(transactional_db, tmp_path, settings):
    """The Procfile's `worker`: Celery's default queue only (the rival's turns, beat's tasks),
    its tasks in its own process."""
    yield from live_worker_process(
        tmp_path,
        pool="solo",
        concurrency=1,
        conn_max_age=60,
        queues=(settings.CELERY_TASK_DEFAULT_QUEUE,),
        name="rival",
    )
