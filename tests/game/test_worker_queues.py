"""Debriefs on a queue and a worker of their own (the Procfile's `worker` and `debrief`), with
real Celery workers: a rival's turn is never taken after a debrief. With the debrief worker
stopped, a finished heist's debrief waits in its queue (the rival's worker never takes it) while
rival turns go on, and the debrief worker stores it once started; with the debrief worker busy
(held on a table lock), the rival's worker takes the next turn all the same."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection

from game.models import HeistDebrief
from game.services import debriefs
from game.services import rivals as rival_services
from tests.support.heists import age_checked_client, post, start, wait_for_phase
from tests.support.worker import queue_depth, running_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.celery_worker]


@pytest.fixture
def only_workers(settings, monkeypatch):
    """Only the workers may seal a rival's night or work a debrief out: the web's fallbacks
    would hide a turn or a debrief the workers did not take."""
    settings.RIVAL_FALLBACK_SECONDS = 600
    settings.DEBRIEF_FALLBACK_SECONDS = 600

    def refused(*args, **kwargs):
        raise AssertionError("the web process sealed or debriefed in a worker's place")

    monkeypatch.setattr(rival_services, "_rival_seal", refused)
    monkeypatch.setattr(debriefs, "debrief_compute", refused)


def debrief_worker(tmp_path, settings):
    """The Procfile's `debrief`: the debrief queue only, one at a time. Started in the test,
    without purging: what waits in its queue is what it must take."""
    return running_worker(
        tmp_path,
        pool="prefork",
        concurrency=1,
        conn_max_age=60,
        queues=(settings.DEBRIEF_QUEUE,),
        name="debrief",
        purge=False,
    )


def play_to_the_end(client, worker) -> str:
    heist_id = start(client)["id"]
    for night in range(1, 7):
        view = wait_for_phase(client, heist_id, "planning")
        assert view["phase"] == "planning" and view["night"] == night, worker.log()
        response = post(client, f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": []})
        assert response.status_code == 200, response.content
    assert response.json()["heist"]["status"] == "finished"
    return heist_id


def wait_for_debrief(client, heist_id, worker, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(f"/api/v1/heists/{heist_id}/debrief/")
        if response.status_code != 202 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert response.status_code == 200, worker.log()
    return response


def test_a_debrief_waits_for_its_own_worker_while_rival_turns_go_on(
    rival_worker, only_workers, tmp_path, settings
):
    client = age_checked_client()
    first = play_to_the_end(client, rival_worker)
    # The finished heist's debrief went to its own queue, and there it waits.
    assert queue_depth(settings.DEBRIEF_QUEUE) == 1
    second = start(client)["id"]
    view = wait_for_phase(client, second, "planning")
    assert view["phase"] == "planning", rival_worker.log()
    assert rival_worker.task_returns("game.plan_rival_night") == ["True"] * 7
    assert "Task game.debrief_heist[" not in rival_worker.log()
    assert client.get(f"/api/v1/heists/{first}/debrief/").status_code == 202
    assert queue_depth(settings.DEBRIEF_QUEUE) == 1

    with debrief_worker(tmp_path, settings) as debriefer:
        response = wait_for_debrief(client, first, debriefer)
        assert debriefer.task_returns("game.debrief_heist") == ["True"], debriefer.log()
        assert "Task game.plan_rival_night[" not in debriefer.log()
    assert response.json()["accuracy"] == HeistDebrief.objects.get(heist_id=first).accuracy
    assert queue_depth(settings.DEBRIEF_QUEUE) == 0


@pytest.mark.postgres(reason="the debrief worker is held busy on a PostgreSQL table lock")
def test_a_rival_turn_is_taken_while_the_debrief_worker_is_busy(
    rival_worker, only_workers, tmp_path, settings
):
    # Were this process's requests to need the locked table, they would fail, not hang.
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '30s'")
    client = age_checked_client()
    with debrief_worker(tmp_path, settings) as debriefer:
        with _table_held(HeistDebrief._meta.db_table) as held:
            first = play_to_the_end(client, rival_worker)
            # The debrief worker takes the debrief and waits on the table: busy.
            deadline = time.monotonic() + 60
            while not _waiting_on(held, HeistDebrief._meta.db_table):
                assert time.monotonic() < deadline, debriefer.log()
                time.sleep(0.1)
            assert "Task game.debrief_heist[" in debriefer.log()
            # Meanwhile a new heist's first night is sealed by the rival's worker.
            second = start(client)["id"]
            view = wait_for_phase(client, second, "planning")
            assert view["phase"] == "planning", rival_worker.log()
            assert rival_worker.task_returns("game.plan_rival_night") == ["True"] * 7
            assert debriefer.task_returns("game.debrief_heist") == []  # still busy
        # The table let go: the debrief worker stores the debrief.
        wait_for_debrief(client, first, debriefer)
        assert debriefer.task_returns("game.debrief_heist") == ["True"], debriefer.log()
    assert "Task game.debrief_heist[" not in rival_worker.log()


class _table_held:
    """An ACCESS EXCLUSIVE lock on a table, held on a connection of its own until the block
    ends: anyone else reading the table waits."""

    def __init__(self, table: str) -> None:
        self.table = table

    def __enter__(self) -> psycopg.Connection:
        db = connection.settings_dict
        self.conn = psycopg.connect(
            dbname=db["NAME"],
            user=db["USER"] or None,
            password=db["PASSWORD"] or None,
            host=db["HOST"] or "127.0.0.1",
            port=db["PORT"] or 5432,
        )
        self.conn.execute(f'LOCK TABLE "{self.table}" IN ACCESS EXCLUSIVE MODE')
        return self.conn

    def __exit__(self, *exc) -> None:
        self.conn.rollback()
        self.conn.close()


def _waiting_on(held: psycopg.Connection, table: str) -> bool:
    """Whether another connection waits for a lock on ``table``."""
    (count,) = held.execute(
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "WHERE c.relname = %s AND NOT l.granted AND l.pid <> pg_backend_pid()",
        (table,),
    ).fetchone()
    return count > 0
