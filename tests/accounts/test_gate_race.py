"""The age gate under concurrent checks (issue 17, finding 4): one under-age and three adult
checks sent at the same moment with the same cookies, many times, against a live server on
PostgreSQL (one thread and one database connection per request). A refusal always wins: the
browser is never confirmed once a refusal was sent, whatever cookie it keeps or drops."""

from __future__ import annotations

import threading
from importlib import import_module

import pytest
import requests
from django.conf import settings

from accounts import gate
from accounts.guest import existing_guest_id
from accounts.models import GateRecord
from tests.support.accounts import years_ago

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TRIALS = 30
ADULT = years_ago(30).isoformat()
UNDER = years_ago(12).isoformat()


def _post_all(url: str, cookies: dict[str, str], dates: list[str]) -> list[requests.Response]:
    barrier = threading.Barrier(len(dates))
    answers: list[requests.Response | None] = [None] * len(dates)
    errors: list[BaseException] = []

    def send(i: int, date: str) -> None:
        try:
            with requests.Session() as browser:
                browser.cookies.update(cookies)
                barrier.wait(timeout=10)
                answers[i] = browser.post(
                    f"{url}/api/v1/age-check/",
                    json={"birth_date": date},
                    headers={"X-CSRFToken": cookies[settings.CSRF_COOKIE_NAME]},
                    timeout=30,
                )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i, d)) for i, d in enumerate(dates)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return answers


def _new_session() -> str:
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["accounts.visited"] = True
    store.create()
    return store.session_key


def _me(url: str, cookies: dict[str, str]) -> dict:
    return requests.get(f"{url}/api/v1/me/", cookies=cookies, timeout=30).json()


def _start(url: str, cookies: dict[str, str]) -> requests.Response:
    return requests.post(
        f"{url}/api/v1/heists/",
        json={"rival": "furnace", "difficulty": "rookie"},
        cookies=cookies,
        headers={"X-CSRFToken": cookies[settings.CSRF_COOKIE_NAME]},
        timeout=30,
    )


def test_a_refusal_sent_with_adult_checks_at_once_always_wins(live_server):
    url = live_server.url
    confirmed_trials = []
    for trial in range(TRIALS):
        csrf = requests.get(f"{url}/api/v1/me/", timeout=30).cookies[settings.CSRF_COOKIE_NAME]
        cookies = {settings.CSRF_COOKIE_NAME: csrf, settings.SESSION_COOKIE_NAME: _new_session()}
        dates = [ADULT, ADULT, ADULT]
        dates.insert(trial % 4, UNDER)  # the refusal arrives first, last or in between
        answers = _post_all(url, cookies, dates)
        codes = sorted(a.status_code for a in answers)
        refused = [a for a in answers if a.status_code == 403]
        assert refused, codes
        assert all(
            a.json()["error"]["code"] in ("age_check_failed", "age_check_locked") for a in refused
        )
        assert sum(a.json()["error"]["code"] == "age_check_failed" for a in refused) == 1
        # Whatever the browser keeps: the session alone (lock cookie dropped), or both.
        lock_cookie = next(
            a.cookies[gate.LOCK_COOKIE] for a in refused if gate.LOCK_COOKIE in a.cookies
        )
        session_only = dict(cookies)
        both = {**cookies, gate.LOCK_COOKIE: lock_cookie}
        for jar in (session_only, both):
            if _me(url, jar)["adult_confirmed"] or _start(url, jar).status_code == 201:
                confirmed_trials.append(trial)
    assert confirmed_trials == [], f"confirmed after a refusal in trials {confirmed_trials}"


def test_the_record_keeps_the_lock_and_no_confirmation(live_server):
    """The lock is stored on the server, not only in the refusal's cookie, and it cleared the
    confirmation, so the pass cannot come back when the lock ends."""
    url = live_server.url
    csrf = requests.get(f"{url}/api/v1/me/", timeout=30).cookies[settings.CSRF_COOKIE_NAME]
    session_key = _new_session()
    cookies = {settings.CSRF_COOKIE_NAME: csrf, settings.SESSION_COOKIE_NAME: session_key}
    _post_all(url, cookies, [ADULT, ADULT, UNDER, ADULT])

    class _Session:  # what the gate reads of a request: its session
        session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)

    record = GateRecord.objects.get(key=existing_guest_id(_Session))
    assert record.locked_until is not None
    assert record.confirmed_at is None and record.gate_version == ""
