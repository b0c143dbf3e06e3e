"""/healthz checks the real database and broker; a dead one is named in a 503. A worker that
has not answered recently, or a queue no live worker takes, makes it "degraded" (200), naming
them."""

import json
import time

import pytest
from django.core.cache import cache

from tests.support.fresh import run_django
from tests.support.worker import forget_workers
from veyltak_site.workers import WORKER_KEY, worker_gone, worker_heard


@pytest.fixture
def no_workers():
    forget_workers()
    yield
    forget_workers()


BOTH = ["celery", "debrief"]


@pytest.mark.django_db
def test_healthz_ok_when_database_broker_and_worker_answer(client, no_workers):
    worker_heard("celery@here", ["celery"])
    worker_heard("debrief@here", ["debrief"])
    response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"] == {"database": "ok", "broker": "ok", "worker": "ok"}
    assert sorted(body["workers"]) == ["celery@here", "debrief@here"]
    assert all(age < 5 for age in body["workers"].values())
    assert body["queues"] == {"celery": ["celery@here"], "debrief": ["debrief@here"]}
    assert "degraded" not in body and "down" not in body


@pytest.mark.django_db
def test_healthz_degraded_names_a_worker_that_has_not_answered(client, settings, no_workers):
    settings.WORKER_SILENT_SECONDS = 30
    worker_heard("celery@fresh", BOTH)
    worker_heard("celery@quiet", BOTH)
    cache.set(WORKER_KEY.format("celery@quiet"), {"at": time.time() - 45, "queues": BOTH})
    response = client.get("/healthz")
    assert response.status_code == 200  # degraded, not down: heists still finish
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"] == {"database": "ok", "broker": "ok", "worker": "degraded"}
    assert body["degraded"] == ["worker"] and body["silent_workers"] == ["celery@quiet"]
    assert "celery@quiet" in body["message"]
    assert body["workers"]["celery@quiet"] >= 45 and body["workers"]["celery@fresh"] < 5
    # The fresh one still takes both queues.
    assert body["queues"] == {"celery": ["celery@fresh"], "debrief": ["celery@fresh"]}
    # It answers again: healthy again.
    worker_heard("celery@quiet", BOTH)
    assert client.get("/healthz").json()["status"] == "ok"


@pytest.mark.django_db
def test_healthz_degraded_when_no_live_worker_takes_the_debriefs(client, settings, no_workers):
    settings.WORKER_SILENT_SECONDS = 30
    worker_heard("celery@rival", ["celery"])
    body = client.get("/healthz").json()
    assert body["status"] == "degraded" and body["silent_workers"] == []
    assert body["queues"] == {"celery": ["celery@rival"], "debrief": []}
    message = body["message"]
    assert "'debrief'" in message and "debriefs are worked out by the web" in message
    assert "rival plans" not in message
    # A debrief worker that went silent takes nothing either.
    worker_heard("debrief@gone-quiet", ["debrief"])
    cache.set(
        WORKER_KEY.format("debrief@gone-quiet"), {"at": time.time() - 45, "queues": ["debrief"]}
    )
    body = client.get("/healthz").json()
    assert body["status"] == "degraded" and body["queues"]["debrief"] == []
    assert body["silent_workers"] == ["debrief@gone-quiet"]
    worker_heard("debrief@gone-quiet", ["debrief"])
    assert client.get("/healthz").json()["status"] == "ok"


@pytest.mark.django_db
def test_a_worker_of_the_release_before_takes_the_default_queue_only(client, no_workers):
    # Its heartbeat is the time alone, as it was written before queues were recorded.
    worker_heard("celery@old", BOTH)
    cache.set(WORKER_KEY.format("celery@old"), time.time())
    body = client.get("/healthz").json()
    assert body["queues"] == {"celery": ["celery@old"], "debrief": []}
    assert body["status"] == "degraded"


@pytest.mark.django_db
def test_healthz_degraded_when_no_worker_has_answered(client, no_workers):
    worker_heard("celery@gone", BOTH)
    worker_gone("celery@gone")  # a worker that stopped cleanly takes itself off
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded" and body["silent_workers"] == []
    assert body["workers"] == {} and "no Celery worker" in body["message"]
    assert body["queues"] == {"celery": [], "debrief": []}
    assert "rival plans are made by the web fallback" in body["message"]


def _healthz_in_subprocess(tmp_path, **env) -> tuple[int, dict]:
    # Each dead part is a real unreachable address (nothing listens on port 1), configured the
    # way an operator would: through the environment of a fresh process.
    code = (
        "import json; from django.test import Client\n"
        "r = Client().get('/healthz', HTTP_HOST='localhost')\n"
        "print(r.status_code, json.dumps(r.json()))"
    )
    result = run_django(code, check=True, VEYLTAK_VAR_DIR=str(tmp_path), **env)
    status, body = result.stdout.strip().splitlines()[-1].split(" ", 1)
    return int(status), json.loads(body)


def test_healthz_names_the_database_when_it_is_down(tmp_path):
    status, body = _healthz_in_subprocess(
        tmp_path, DATABASE_URL="postgres://nobody@127.0.0.1:1/none"
    )
    assert status == 503
    assert body["down"] == ["database"]
    assert body["checks"]["broker"] == "ok"


def test_healthz_names_the_broker_when_it_is_down(tmp_path):
    status, body = _healthz_in_subprocess(
        tmp_path,
        CELERY_BROKER_URL="redis://127.0.0.1:1/0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert status == 503
    assert body["down"] == ["broker"]
    assert body["checks"]["database"] == "ok"
