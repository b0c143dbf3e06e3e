"""A server away is no bug of the site (issue 16): the database away answers 503
`service_unavailable` with Retry-After, never a 500; sessions and rate limits go on without the
cache. (tests/site/test_chaos.py does it with real servers stopped.)"""

from __future__ import annotations

import socket

import pytest
from django import db
from django.contrib.sessions.backends.db import SessionStore as DbStore
from django.test import Client

from veyltak_site.env import parse_rate

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_database_away_is_a_503_not_a_500(monkeypatch):
    def away(*args, **kwargs):
        raise db.OperationalError("connection refused")

    monkeypatch.setattr("game.selectors.catalogue.crew_types", away)
    answer = Client(raise_request_exception=False).get("/api/v1/crew/")
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "service_unavailable"
    assert int(answer["Retry-After"]) >= 1


def test_any_other_error_is_still_a_500():
    from veyltak_site.urls import handler500

    try:
        raise ValueError("a bug")
    except ValueError:
        from django.test import RequestFactory

        answer = handler500(RequestFactory().get("/"))
    assert answer.status_code == 500 and "Retry-After" not in answer


def test_sessions_and_limits_go_on_without_the_cache(settings, guest):
    stored = DbStore()
    stored["kept"] = "yes"
    stored.create()
    settings.SESSION_ENGINE = "veyltak_site.sessions"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
        }
    }
    from veyltak_site.sessions import SessionStore

    session = SessionStore(stored.session_key)
    assert session["kept"] == "yes"  # read from the database alone
    assert session.exists(stored.session_key)
    session.delete()
    assert not DbStore().exists(stored.session_key)
    # A limited door stays open while its counters cannot be kept.
    settings.RATE_LIMITS = {"heist_start": {"address": parse_rate("1/h")}}
    from veyltak_site import throttling

    request = Client().get("/").wsgi_request
    assert throttling.hit("heist_start", request) is None
    assert throttling.hit("heist_start", request) is None
