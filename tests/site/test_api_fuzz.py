"""The API fuzzed against its own live schema (issue 16): schemathesis reads
/api/v1/schema/ (drf-spectacular's, as served) and sends every operation a bounded number of
generated requests, valid and invalid, through the site's real WSGI application and
middleware, as a guest who passed the age check and as a signed-in player.

Every answer: no 5xx, a status the schema declares for the operation, the declared content
type, a body that matches the schema, and every error in the standard shape
``{"error": {"code", "message", "fields"?}}``. FUZZ_EXAMPLES sets the examples per operation
and persona (default 8: the whole run stays within about three minutes on two cores; 25
passed too, in 17 minutes on a busy machine)."""

from __future__ import annotations

import contextlib
import json
import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.heists import age_checked_client, make_player, start

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
APP = get_wsgi_application()


def _operations() -> list[tuple[str, str]]:
    """(method, path) of every operation, from the schema the site serves (drf-spectacular's
    generator, read at collection so each operation is a test of its own)."""
    from drf_spectacular.generators import SchemaGenerator

    spec = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    )


@contextlib.contextmanager
def _in_test_transaction():
    # The application runs in the test's own transaction: like Django's test client, do not
    # close the connection when a request ends.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def api_schema():
    with _in_test_transaction():
        # The live schema, as a client fetches it.
        return schemathesis.openapi.from_wsgi("/api/v1/schema/", APP)


@schemathesis.check
def error_shape(ctx, response, case):
    """Every 4xx/5xx answer is {"error": {"code", "message", "fields"?}} and nothing else."""
    if response.status_code < 400:
        return None
    body = json.loads(response.content)
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) <= {"code", "message", "fields"}, error
    assert isinstance(error["code"], str) and error["code"], error
    assert error["code"].replace("_", "").isalnum() and error["code"].islower(), error
    assert isinstance(error["message"], str) and error["message"], error
    if "fields" in error:
        assert isinstance(error["fields"], dict) and error["fields"], error
    return None


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    error_shape,
]


def _credentials(client: Client) -> dict:
    """The cookies and CSRF header a browser of this client sends."""
    client.get("/api/v1/me/")  # sets the CSRF cookie
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}
    return {"cookies": cookies, "headers": {"X-CSRFToken": cookies.get("csrftoken", "")}}


@pytest.fixture
def as_guest(db):
    guest = age_checked_client()
    start(guest)  # a heist of its own, so ids the fuzzer meets may be real
    return _credentials(guest)


@pytest.fixture
def as_player(db):
    _user, player = make_player("fuzz@example.com")
    start(player)
    return _credentials(player)


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
OPERATIONS = _operations()


def _fuzz(api_schema, method: str, path: str, who: dict) -> None:
    operation = api_schema[path][method]
    strategy = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )

    @FUZZ
    @given(strategy)
    def run(case):
        headers = {**(case.headers or {}), **who["headers"]}
        case.call_and_validate(headers=headers, cookies=who["cookies"], checks=CHECKS)

    with _in_test_transaction():
        run()


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_fuzz_as_a_guest(api_schema, as_guest, method, path):
    _fuzz(api_schema, method, path, as_guest)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_fuzz_as_a_player(api_schema, as_player, method, path):
    _fuzz(api_schema, method, path, as_player)


def test_every_operation_is_fuzzed():
    assert len(OPERATIONS) >= 15
    assert ("POST", "/api/v1/heists/{heist_id}/seal/") in OPERATIONS
