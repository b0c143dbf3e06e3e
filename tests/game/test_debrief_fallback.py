"""The debrief's web fallback (game.services.debriefs.debrief_overdue): a debrief still missing
DEBRIEF_FALLBACK_SECONDS after the end is worked out by the request only when no live worker
takes the debrief queue; while one lives, the request sends the task again (once per
DEBRIEF_FALLBACK_SECONDS), so a backlog of debriefs never turns into web CPU.

No worker process runs here: the workers are their heartbeat records in the cache, as /healthz
reads them, and the task goes to the real broker. In these tests the heist's own task is never
sent (its on_commit never fires inside the test's transaction): a lost task."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.core.cache import cache
from django.db.models import F

from game.models import Heist, HeistDebrief
from game.services import debriefs
from tests.support.heists import play_out, start
from tests.support.worker import forget_workers, queue_depth
from veyltak_site.celery import app as celery_app
from veyltak_site.workers import WORKER_KEY, worker_heard

pytestmark = pytest.mark.django_db

WAIT = 600  # DEBRIEF_FALLBACK_SECONDS here; the heist is made older than this, not waited for


@pytest.fixture(autouse=True)
def _clean(settings):
    settings.DEBRIEF_FALLBACK_SECONDS = WAIT
    forget_workers()
    celery_app.control.purge()
    yield
    forget_workers()
    celery_app.control.purge()


@pytest.fixture
def overdue(guest):
    """A finished heist of ``guest`` whose end is past DEBRIEF_FALLBACK_SECONDS."""
    view = play_out(guest, start(guest), seed=5)
    assert view["status"] == "finished"
    Heist.objects.filter(pk=view["id"]).update(
        finished_at=F("finished_at") - dt.timedelta(seconds=WAIT + 1)
    )
    cache.delete(debriefs.RESENT_KEY.format(view["id"]))
    return view["id"]


def debrief_of(client, heist_id):
    return client.get(f"/api/v1/heists/{heist_id}/debrief/")


def test_while_a_debrief_worker_lives_the_web_sends_the_task_again_and_computes_nothing(
    guest, overdue, settings
):
    worker_heard("celery@rival", ["celery"])
    worker_heard("debrief@here", [settings.DEBRIEF_QUEUE])
    assert queue_depth(settings.DEBRIEF_QUEUE) == 0
    response = debrief_of(guest, overdue)
    assert response.status_code == 202 and response["Retry-After"]
    assert not HeistDebrief.objects.filter(heist_id=overdue).exists()
    assert queue_depth(settings.DEBRIEF_QUEUE) == 1  # sent again, to the debrief queue
    assert queue_depth(settings.CELERY_TASK_DEFAULT_QUEUE) == 0
    # The board asks again: still pending, and not sent a second time so soon.
    assert debrief_of(guest, overdue).status_code == 202
    assert queue_depth(settings.DEBRIEF_QUEUE) == 1
    assert not HeistDebrief.objects.filter(heist_id=overdue).exists()


def test_not_yet_overdue_the_web_neither_computes_nor_sends(guest, settings):
    worker_heard("debrief@here", [settings.DEBRIEF_QUEUE])
    view = play_out(guest, start(guest), seed=5)
    assert debrief_of(guest, view["id"]).status_code == 202
    assert queue_depth(settings.DEBRIEF_QUEUE) == 0
    forget_workers()  # nor with no debrief worker at all
    assert debrief_of(guest, view["id"]).status_code == 202
    assert not HeistDebrief.objects.filter(heist_id=view["id"]).exists()


def test_with_no_live_debrief_worker_the_web_works_it_out(guest, overdue, settings):
    # A rival worker lives, and a debrief worker that has gone silent.
    settings.WORKER_SILENT_SECONDS = 30
    worker_heard("celery@rival", ["celery"])
    worker_heard("debrief@quiet", [settings.DEBRIEF_QUEUE])
    cache.set(
        WORKER_KEY.format("debrief@quiet"),
        {"at": time.time() - 45, "queues": [settings.DEBRIEF_QUEUE]},
    )
    response = debrief_of(guest, overdue)
    assert response.status_code == 200 and response.json()["status"] == "ready"
    assert HeistDebrief.objects.filter(heist_id=overdue).exists()
    assert queue_depth(settings.DEBRIEF_QUEUE) == 0  # worked out here, nothing sent


def test_the_result_page_follows_the_same_rule(guest, overdue, settings):
    worker_heard("debrief@here", [settings.DEBRIEF_QUEUE])
    page = guest.get(f"/heists/{overdue}/result/")
    assert page.status_code == 200
    assert page.context["debrief_state"] == "pending"
    assert queue_depth(settings.DEBRIEF_QUEUE) == 1
    forget_workers()
    page = guest.get(f"/heists/{overdue}/result/")
    assert page.context["debrief_state"] == "ready"
