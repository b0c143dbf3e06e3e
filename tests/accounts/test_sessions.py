"""Expired sessions are deleted on a schedule (issue 17, finding 2): every visitor can start
one, and Django leaves expired ones in the store until told."""

from __future__ import annotations

import time
from datetime import timedelta
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.tasks import clear_expired_sessions

SessionStore = import_module(settings.SESSION_ENGINE).SessionStore


def _sessions(*, expired: int, live: int) -> None:
    for n in range(expired + live):
        store = SessionStore()
        store["n"] = n
        store.create()
    stale = Session.objects.order_by("expire_date")[:expired].values_list("pk", flat=True)
    Session.objects.filter(pk__in=list(stale)).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


@pytest.mark.django_db
def test_the_task_deletes_expired_sessions_and_keeps_live_ones():
    _sessions(expired=3, live=2)
    assert clear_expired_sessions() == 3
    assert Session.objects.count() == 2
    assert not Session.objects.filter(expire_date__lt=timezone.now()).exists()
    assert clear_expired_sessions() == 0


@pytest.fixture
def live_worker(transactional_db, tmp_path):
    from tests.support.worker import live_worker_process

    yield from live_worker_process(tmp_path, pool="threads", concurrency=1, conn_max_age=0)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_scheduled_task(live_worker):
    _sessions(expired=4, live=1)
    clear_expired_sessions.delay()
    deadline = time.monotonic() + 30
    while not live_worker.task_returns("accounts.clear_expired_sessions"):
        assert time.monotonic() < deadline, live_worker.log()
        time.sleep(0.05)
    assert live_worker.task_returns("accounts.clear_expired_sessions") == ["4"]
    assert Session.objects.count() == 1
