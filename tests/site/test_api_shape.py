"""Every answer under /api/ is JSON in the error shape, and hostile bodies get a clear code
(issue 17, findings 3 and 6): deep JSON, bodies over the limit, unknown routes, the slashless
path, a wrong method and an unexpected error."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import get_resolver

from veyltak_site.parsers import MAX_DEPTH

pytestmark = pytest.mark.django_db

# Past the decoder's own recursion limit (about 10,000 levels), inside the body limit.
DEEP = "[" * 30_000 + "]" * 30_000


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def _api_routes() -> list[str]:
    """Every route under /api/v1/, with a sample value for its parameters."""
    routes = []

    def walk(patterns, prefix):
        for entry in patterns:
            text = str(entry.pattern)
            if hasattr(entry, "url_patterns"):
                walk(entry.url_patterns, prefix + text)
            else:
                path = (prefix + text).replace("<int:deck_id>", "1")
                path = path.replace("<str:heist_id>", "00000000-0000-0000-0000-000000000000")
                routes.append("/" + path)

    walk(get_resolver().url_patterns, "")
    return [r for r in routes if r.startswith("/api/")]


# --- deep JSON (finding 3) ---------------------------------------------------------------------


@pytest.mark.parametrize("header", [False, True])
def test_deeply_nested_json_is_a_400_parse_error(header):
    # With the CSRF cookie but no header, the body is never read: the post is a CSRF refusal
    # before any parse (tests/site/test_throttles.py counts it); with the header, the parse
    # ends in a 400, never the decoder's RecursionError.
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/v1/me/").cookies[settings.CSRF_COOKIE_NAME].value
    headers = {"X-CSRFToken": token} if header else {}
    for path in ("/api/v1/age-check/", "/api/v1/heists/"):
        response = client.post(path, DEEP, content_type="application/json", headers=headers)
        if header:
            assert_error(response, 400, "parse_error")
        else:
            assert_error(response, 403, "permission_denied")


def test_nesting_just_past_the_bound_is_refused_and_under_it_is_parsed():
    client = Client()
    too_deep = '{"birth_date": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    response = client.post("/api/v1/age-check/", too_deep, content_type="application/json")
    assert_error(response, 400, "parse_error")
    fine = '{"birth_date": ' + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + "}"
    response = client.post("/api/v1/age-check/", fine, content_type="application/json")
    assert_error(response, 400, "invalid_input")


def test_malformed_json_is_a_400_parse_error():
    response = Client().post("/api/v1/age-check/", "{nope", content_type="application/json")
    assert_error(response, 400, "parse_error")


# Words of Python's decoders and codecs that mean nothing to a person reading the message.
_INTERNALS = re.compile(
    r"sys\.|set_int_max_str_digits|char \d|codec|position|byte 0x|Expecting|JSON parse error"
    r"|Traceback|Error\b|decode|\(char",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "body",
    [
        b"{nope",
        b'{"birth_date": ' + b"1" * 5000 + b"}",  # past Python's int digit limit
        b"\xff\xfe{}",  # not UTF-8
        b'{"a": NaN}',
        b'{"a": 1} trailing',
        b"[" * 40 + b"]" * 40,
    ],
)
def test_a_parse_error_speaks_to_a_person_and_the_details_go_to_the_log(body, caplog):
    # Issue 27, S11: the message of a malformed body said what Python's decoder said.
    import logging

    with caplog.at_level(logging.INFO, logger="veyltak_site.parsers"):
        response = Client().post("/api/v1/age-check/", body, content_type="application/json")
    error = assert_error(response, 400, "parse_error")
    assert not _INTERNALS.search(error["message"]), error["message"]
    assert error["message"].endswith(".") and error["message"][0].isupper()
    assert any(r.name == "veyltak_site.parsers" for r in caplog.records), "no log of the detail"


# --- unknown routes, the slash, methods (finding 6) ---------------------------------------------


def test_an_unknown_api_route_is_a_json_404():
    for method in ("get", "post", "put", "delete"):
        response = getattr(Client(), method)("/api/v1/nonexistent/")
        assert_error(response, 404, "not_found")
    assert_error(Client().get("/api/"), 404, "not_found")
    assert_error(Client().get("/api/v2/heists/"), 404, "not_found")


def test_the_path_without_its_slash_is_a_json_404_naming_the_route_never_a_redirect(guest):
    response = guest.post(
        "/api/v1/heists", {"rival": "furnace", "difficulty": "rookie"}, "application/json"
    )
    error = assert_error(response, 404, "not_found")
    assert "/api/v1/heists/" in error["message"]
    assert "Location" not in response
    for path in ("/api/v1/me", "/api/v1/age-check", "/api/v1/crew"):
        assert_error(guest.get(path), 404, "not_found")


def test_a_slashed_api_path_is_resolved_once_by_django_alone(guest, monkeypatch):
    """The boundary looks a path up itself only when it lacks its slash (to answer before the
    slash redirect); a slashed path, known or not, is resolved by Django's handler only."""
    from veyltak_site import middleware

    looked_up = []
    real = middleware._resolves
    monkeypatch.setattr(middleware, "_resolves", lambda path: looked_up.append(path) or real(path))
    assert guest.get("/api/v1/me/").status_code == 200
    error = assert_error(guest.get("/api/v1/nonexistent/"), 404, "not_found")
    assert error["message"] == "There is no such API route."
    assert looked_up == []
    assert_error(guest.get("/api/v1/me"), 404, "not_found")
    assert looked_up == ["/api/v1/me", "/api/v1/me/"]


def test_a_wrong_method_is_a_json_405_with_allow():
    response = Client().delete("/api/v1/me/")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_an_unexpected_error_under_api_is_a_json_500(monkeypatch):
    from game.selectors import catalogue

    def boom():
        raise RuntimeError("unexpected")

    monkeypatch.setattr(catalogue, "rivals", boom)
    client = Client(raise_request_exception=False)
    assert_error(client.get("/api/v1/rivals/"), 500, "server_error")


# --- bodies over the limit (finding 6) ----------------------------------------------------------


def test_every_api_route_answers_413_for_a_body_over_the_limit(guest):
    body = b"x" * (settings.API_MAX_BODY_BYTES + 1)
    routes = _api_routes()
    assert len(routes) >= 12
    for path in [*routes, "/api/v1/nonexistent/"]:
        for method in ("post", "put"):
            response = getattr(guest, method)(path, body, content_type="application/json")
            assert_error(response, 413, "payload_too_large")


def test_a_json_body_over_the_limit_to_the_seal_route_is_413_not_an_html_400(guest):
    view = guest.post(
        "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}, "application/json"
    ).json()
    padding = "x" * (2_600_000)
    body = '{"night": 1, "crew": [], "boost": false, "pad": "' + padding + '"}'
    response = guest.post(f"/api/v1/heists/{view['id']}/seal/", body, "application/json")
    assert_error(response, 413, "payload_too_large")


def test_a_body_just_under_the_limit_still_reaches_the_view(guest):
    body = '{"birth_date": "x", "pad": "' + "y" * (settings.API_MAX_BODY_BYTES - 100) + '"}'
    assert len(body) <= settings.API_MAX_BODY_BYTES
    response = Client().post("/api/v1/age-check/", body, content_type="application/json")
    assert_error(response, 400, "invalid_input")


def test_pages_answer_413_over_the_upload_limit_too():
    body = "name=" + "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = Client().post("/deck/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413
