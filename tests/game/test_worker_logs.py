"""A real Celery worker (on Redis, or the on-disk broker with SQLite) with LOG_FORMAT=json: the
rival's task sent while a request was answered logs under that request's id (the id travels in
the task's headers)."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.heists import age_checked_client, wait_for_phase

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def json_logs(monkeypatch):
    # Before live_worker: the worker is started with this process's environment.
    monkeypatch.setenv("LOG_FORMAT", "json")


@pytest.mark.celery_worker
def test_the_rivals_task_logs_under_the_id_of_the_request_that_sent_it(
    json_logs, live_worker, settings
):
    settings.RIVAL_FALLBACK_SECONDS = 60  # the worker seals, not the view
    client = age_checked_client()
    request_id = "test-start-7f3a9c"
    answer = client.post(
        "/api/v1/heists/",
        {"rival": "furnace", "difficulty": "rookie"},
        content_type="application/json",
        HTTP_X_REQUEST_ID=request_id,
    )
    assert answer.status_code == 201 and answer["X-Request-ID"] == request_id
    heist_id = answer.json()["id"]
    assert wait_for_phase(client, heist_id, "planning")["phase"] == "planning", live_worker.log()

    deadline = time.monotonic() + 10
    while True:  # the task's last line may follow the seal by a moment
        entries = [
            json.loads(line)
            for line in live_worker.log().splitlines()
            if line.startswith("{") and request_id in line
        ]
        if any(e["logger"] == "celery.app.trace" for e in entries) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert {e["request_id"] for e in entries} == {request_id}, live_worker.log()
    messages = [e["message"] for e in entries]
    assert any(m.startswith(f"rival sealed night 1 of heist {heist_id}") for m in messages)
    assert any("game.plan_rival_night" in m and "succeeded" in m for m in messages), messages
    assert all(e["task"] == "game.plan_rival_night" for e in entries)
