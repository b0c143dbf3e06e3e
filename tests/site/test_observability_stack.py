"""The operator's view of the stack `make run` starts (gunicorn with two workers, a Celery
worker with two pool processes, beat, under scripts/runner.py): one scrape adds up every
process's figures (PROMETHEUS_MULTIPROC_DIR), and with LOG_FORMAT=json a request's log lines
and its rival task's lines on the worker carry one request id."""

from __future__ import annotations

import json
import re
import uuid

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from bench.players import Player, Stats
from tests.support.stack import Stack, prepare, processes_of

pytestmark = pytest.mark.slow

TOKEN = "stack-metrics-token-0123456789abcdef"
LINE = re.compile(r"^\d\d:\d\d:\d\d (\w+)\s*\| (\{.*\})$")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The stack, one heist played by a guest (its start sent with a request id of ours), the
    runner's log and a few scrapes."""
    var = tmp_path_factory.mktemp("observed")
    prepare(var)
    # The web fallback must not seal in the worker's place: every rival turn is the worker's.
    stack = Stack(var, LOG_FORMAT="json", METRICS_TOKEN=TOKEN, RIVAL_FALLBACK_SECONDS="60")
    try:
        stack.wait_healthy()
        stats = Stats()
        player = Player(stack.base, 0, stats, difficulty="safecracker")
        player.join()
        start_id = f"obs-start-{uuid.uuid4().hex}"
        player.session.headers["X-Request-ID"] = start_id
        view = player.start_heist()
        del player.session.headers["X-Request-ID"]
        assert view is not None, stats.errors
        while view is not None and view["status"] == "active":
            view = player.seal(view)
        assert view is not None and view["status"] == "finished", stats.errors
        scrapes = [
            requests.get(
                stack.base + "/metrics",
                headers={"Authorization": f"Bearer {TOKEN}", "Connection": "close"},
                timeout=10,
            )
            for _ in range(8)
        ]
        refused = requests.get(stack.base + "/metrics", timeout=10)
        files = sorted(p.name for p in (var / "metrics").iterdir())
        assert stack.stop() == 0, stack.log()
        yield {
            "heist": view["id"],
            "start_id": start_id,
            "start_answer": view,
            "scrapes": scrapes,
            "refused": refused,
            "files": files,
            "log": stack.log(),
        }
    finally:
        stack.kill_everything()
        assert processes_of(var) == []


def figures(response) -> dict[tuple[str, frozenset], float]:
    assert response.status_code == 200, response.text
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def json_lines(log: str) -> list[tuple[str, dict]]:
    found = []
    for line in log.splitlines():
        if match := LINE.match(line):
            found.append((match[1], json.loads(match[2])))
    return found


def test_one_scrape_adds_up_the_web_and_worker_processes(played):
    assert played["refused"].status_code == 404
    # Every process wrote its own files: two gunicorn workers, the Celery pool, beat...
    pids = {re.sub(r"\D", "", name) for name in played["files"] if name.endswith(".db")}
    assert len(pids) >= 3, played["files"]
    answers = [figures(r) for r in played["scrapes"]]
    game = [
        {k: v for k, v in a.items() if k[0].startswith(("veyltak_heists", "veyltak_rival"))}
        for a in answers
    ]
    # Whichever gunicorn worker answered, the same sums (multiprocess mode).
    assert all(g == game[0] for g in game), game
    first = answers[0]

    def get(name, **labels):
        return first.get((name, frozenset(labels.items())), 0.0)

    assert get("veyltak_heists_started_total", difficulty="safecracker", mode="standard") == 1
    finished = sum(
        get("veyltak_heists_finished_total", difficulty="safecracker", outcome=o)
        for o in ("win", "loss", "draw")
    )
    assert finished == 1
    assert get("veyltak_seal_duration_seconds_count") == 6
    # The rival thought in the Celery pool's processes; the web scrape sees it.
    assert get("veyltak_rival_decision_seconds_count", difficulty="safecracker") == 6
    assert get("veyltak_rival_plans_sealed_total", by="task") == 6
    assert get("veyltak_rival_plans_sealed_total", by="web") == 0
    assert ("veyltak_broker_queue_messages", frozenset({("queue", "celery")})) in first


def test_json_logs_carry_the_request_id_into_the_rivals_task(played):
    lines = json_lines(played["log"])
    assert lines, played["log"]
    start_id, heist = played["start_id"], played["heist"]
    web = [entry for process, entry in lines if process == "web"]
    worker = [entry for process, entry in lines if process == "worker"]
    # The start request's lines: its access line among them, with the id it was sent with.
    request_lines = [e for e in web if e.get("request_id") == start_id]
    (access,) = [e for e in request_lines if e["logger"] == "gunicorn.access"]
    assert (access["method"], access["path"], access["status"]) == ("POST", "/api/v1/heists/", 201)
    # Its task on the worker: the rival's first night, and Celery's line for the task.
    task_lines = [e for e in worker if e.get("request_id") == start_id]
    assert {e["logger"] for e in task_lines} >= {"game.services.rivals", "celery.app.trace"}
    sealed = [e for e in task_lines if e["logger"] == "game.services.rivals"]
    assert [e["message"].split(" (")[0] for e in sealed] == [
        f"rival sealed night 1 of heist {heist}"
    ]
    assert all(e["task"] == "game.plan_rival_night" and e["task_id"] for e in task_lines)
    assert {e["pid"] for e in task_lines} <= {e["pid"] for e in worker}
    # Later nights were sent by the seals, each with an id of its own.
    others = {
        e["request_id"]
        for e in worker
        if e["logger"] == "game.services.rivals" and e["request_id"] != start_id
    }
    assert len(others) == 5 and None not in others
    for entry in web + worker:
        assert {"time", "level", "logger", "message", "request_id"} <= set(entry)
