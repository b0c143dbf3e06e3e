"""The OpenAPI schema at /api/v1/schema/ lists every served API route, validates, and matches
what is served (responses checked against it, with no field the schema does not name); the
reference at /api/v1/docs/ works under the site's strict CSP, with every asset from this site."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import URLPattern, URLResolver, get_resolver

from tests.support.heists import play_out, post
from tests.support.schema import check_response

pytestmark = [pytest.mark.django_db]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    with django_db_blocker.unblock():
        generated = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(generated)
    return generated


def _api_routes():
    """(OpenAPI path, methods) of every route served under /api/v1/."""
    out = {}

    def walk(patterns, prefix):
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern):
                out[route] = p.callback

    walk(get_resolver().url_patterns, "/")
    routes = {}
    for route, callback in out.items():
        if not route.startswith("/api/v1/") or route in ("/api/v1/schema/", "/api/v1/docs/"):
            continue
        view = callback.view_class
        methods = {m for m in ("get", "post", "put", "patch", "delete") if hasattr(view, m)}
        routes[re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)] = methods
    return routes


def test_schema_lists_every_served_route(schema):
    routes = _api_routes()
    heist_routes = {
        "/api/v1/crew/": {"get"},
        "/api/v1/rivals/": {"get"},
        "/api/v1/encounters/": {"get"},
        "/api/v1/decks/": {"get"},
        "/api/v1/decks/mine/": {"get", "post"},
        "/api/v1/decks/mine/{deck_id}/": {"delete"},
        "/api/v1/heists/": {"post"},
        "/api/v1/heists/{heist_id}/": {"get"},
        "/api/v1/heists/{heist_id}/seal/": {"post"},
        "/api/v1/heists/{heist_id}/replay/": {"get"},
        "/api/v1/heists/{heist_id}/debrief/": {"get"},
        "/api/v1/heists/{heist_id}/retry/": {"post"},
        "/api/v1/heists/{heist_id}/challenge/": {"post"},
        "/api/v1/challenges/{slug}/": {"get"},
        "/api/v1/challenges/{slug}/heists/": {"post"},
    }
    for path, methods in heist_routes.items():
        assert routes.get(path) == methods
    assert set(schema["paths"]) == set(routes)
    for path, methods in routes.items():
        assert set(schema["paths"][path]) - {"parameters"} == methods, path


def test_schema_command_validates_without_warnings(tmp_path):
    """`manage.py spectacular --validate --fail-on-warn`, as an operator would run it."""
    done = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn",
         "--file", str(tmp_path / "schema.yaml")],
        cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def test_schema_is_served(client):
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    assert "/api/v1/heists/{heist_id}/seal/" in response.json()["paths"]


def test_served_responses_match_the_schema(schema, guest):
    for path in ("/api/v1/crew/", "/api/v1/rivals/", "/api/v1/encounters/", "/api/v1/decks/"):
        check_response(schema, path, "get", 200, guest.get(path))
    response = post(guest, "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie",
                                                "encounter": "overtime"})  # fmt: skip
    check_response(schema, "/api/v1/heists/", "post", 201, response)
    heist_id = response.json()["id"]
    detail = "/api/v1/heists/{heist_id}/"
    check_response(schema, detail, "get", 200, guest.get(f"/api/v1/heists/{heist_id}/"))
    check_response(
        schema, detail + "replay/", "get", 409, guest.get(f"/api/v1/heists/{heist_id}/replay/")
    )
    seal = post(guest, f"/api/v1/heists/{heist_id}/seal/", {"night": 1, "crew": []})
    check_response(schema, detail + "seal/", "post", 200, seal)
    wrong = post(guest, f"/api/v1/heists/{heist_id}/seal/", {"night": 1, "crew": []})
    check_response(schema, detail + "seal/", "post", 409, wrong)
    bad = post(guest, f"/api/v1/heists/{heist_id}/seal/", {"night": 2, "crew": [{"card": 99,
                                                           "vault": "crown-vault"}]})  # fmt: skip
    check_response(schema, detail + "seal/", "post", 400, bad)
    check_response(schema, detail, "get", 404, guest.get("/api/v1/heists/nope/"))
    finished = play_out(guest, guest.get(f"/api/v1/heists/{heist_id}/").json(), seed=12)
    check_response(schema, detail, "get", 200, guest.get(f"/api/v1/heists/{finished['id']}/"))
    check_response(schema, detail + "replay/", "get", 200,
           guest.get(f"/api/v1/heists/{finished['id']}/replay/"))  # fmt: skip
    from django.test import Client

    check_response(schema, detail, "get", 403, Client().get(f"/api/v1/heists/{heist_id}/"))


def test_debrief_and_retry_responses_match_the_schema(schema, guest, settings):
    from game.services.debriefs import debrief_compute

    settings.DEBRIEF_FALLBACK_SECONDS = 600
    heist_id = post(guest, "/api/v1/heists/", {"rival": "furnace", "difficulty": "kingpin"})
    heist_id = heist_id.json()["id"]
    detail = "/api/v1/heists/{heist_id}/"
    debrief, retry = detail + "debrief/", detail + "retry/"
    check_response(schema, debrief, "get", 409, guest.get(f"/api/v1/heists/{heist_id}/debrief/"))
    finished = play_out(guest, guest.get(f"/api/v1/heists/{heist_id}/").json(), seed=4)
    check_response(schema, debrief, "get", 202, guest.get(f"/api/v1/heists/{heist_id}/debrief/"))
    debrief_compute(heist_id=heist_id)
    check_response(schema, debrief, "get", 200, guest.get(f"/api/v1/heists/{heist_id}/debrief/"))
    made = post(guest, f"/api/v1/heists/{heist_id}/retry/", {"night": 3})
    check_response(schema, retry, "post", 201, made)
    check_response(schema, detail, "get", 200, guest.get(f"/api/v1/heists/{made.json()['id']}/"))
    check_response(schema, retry, "post", 400, post(guest, f"/api/v1/heists/{heist_id}/retry/", {}))
    check_response(schema, retry, "post", 409,
           post(guest, f"/api/v1/heists/{made.json()['id']}/retry/", {"night": 3}))  # fmt: skip
    end = play_out(guest, made.json(), seed=5)
    check_response(schema, detail, "get", 200, guest.get(f"/api/v1/heists/{end['id']}/"))
    check_response(schema, detail + "replay/", "get", 200,
           guest.get(f"/api/v1/heists/{end['id']}/replay/"))  # fmt: skip
    assert finished["practice_of"] is None


def test_challenge_responses_match_the_schema(schema, guest, player):
    _, friend = player
    make, read = "/api/v1/heists/{heist_id}/challenge/", "/api/v1/challenges/{slug}/"
    start_it = read + "heists/"
    active = post(guest, "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"}).json()
    check_response(
        schema, make, "post", 409, post(guest, f"/api/v1/heists/{active['id']}/challenge/")
    )
    check_response(
        schema, make, "post", 404, post(friend, f"/api/v1/heists/{active['id']}/challenge/")
    )
    done = play_out(guest, active, seed=3)
    made = post(guest, f"/api/v1/heists/{done['id']}/challenge/")
    check_response(schema, make, "post", 201, made)
    check_response(
        schema, make, "post", 200, post(guest, f"/api/v1/heists/{done['id']}/challenge/")
    )
    slug = made.json()["slug"]
    check_response(schema, read, "get", 200, friend.get(f"/api/v1/challenges/{slug}/"))
    check_response(schema, read, "get", 404, friend.get("/api/v1/challenges/nope/"))
    from django.test import Client

    check_response(schema, read, "get", 403, Client().get(f"/api/v1/challenges/{slug}/"))
    started = post(friend, f"/api/v1/challenges/{slug}/heists/")
    check_response(schema, start_it, "post", 201, started)
    check_response(
        schema, start_it, "post", 409, post(friend, f"/api/v1/challenges/{slug}/heists/")
    )
    check_response(schema, start_it, "post", 404, post(friend, "/api/v1/challenges/nope/heists/"))
    play_out(friend, started.json(), seed=4)
    check_response(schema, read, "get", 200, friend.get(f"/api/v1/challenges/{slug}/"))
    check_response(schema, read, "get", 200, guest.get(f"/api/v1/challenges/{slug}/"))


def test_saved_deck_responses_match_the_schema(schema, guest, player):
    from tests.support.heists import STARTER_SLUGS

    _, client = player
    mine = "/api/v1/decks/mine/"
    created = post(client, mine, {"name": "Night Shift", "cards": STARTER_SLUGS})
    check_response(schema, mine, "post", 201, created)
    check_response(schema, mine, "post", 200, post(client, mine, {"name": "Night Shift",
                                                          "cards": STARTER_SLUGS}))  # fmt: skip
    check_response(schema, mine, "post", 400, post(client, mine, {"name": "x", "cards": ["spark"]}))
    check_response(schema, mine, "get", 200, client.get(mine))
    check_response(schema, mine, "get", 403, guest.get(mine))
    detail = mine + "{deck_id}/"
    check_response(schema, detail, "delete", 404, client.delete(f"{mine}999999/"))
    gone = client.delete(f"{mine}{created.json()['id']}/")
    assert gone.status_code == 204 and not gone.content
    assert "204" in schema["paths"][detail]["delete"]["responses"]


class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.inline_scripts, self.styles, self.links, self.style_attrs = (
            [], [], 0, [], 0,
        )  # fmt: skip
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "style" in attrs:
            self.style_attrs += 1
        if tag == "script":
            self._in_script = True
            if attrs.get("src"):
                self.scripts.append(attrs["src"])
        elif tag == "style":
            self.styles += 1
        elif tag == "link" and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts.append(data)


def test_docs_page_works_under_the_strict_csp(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    page = _Assets()
    page.feed(response.content.decode())
    assert page.inline_scripts == [] and page.styles == 0 and page.style_attrs == 0
    assert len(page.scripts) == 3
    for url in page.scripts + page.links:
        assert url.startswith("/"), url  # this site only, never a CDN
        if url.startswith(settings.STATIC_URL):
            assert finders.find(url.removeprefix(settings.STATIC_URL).split("?")[0]), url
    init = next(s for s in page.scripts if not s.startswith(settings.STATIC_URL))
    script = client.get(init)
    assert script.status_code == 200
    assert script.headers["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
    assert "/api/v1/schema/" in script.content.decode()
