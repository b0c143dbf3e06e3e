"""/healthz checks the real database and broker; a dead one is named in a 503."""

import json

import pytest

from tests.site.fresh import run_django


@pytest.mark.django_db
def test_healthz_ok_when_database_and_broker_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


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
