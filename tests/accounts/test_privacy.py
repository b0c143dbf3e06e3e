"""Keep the fact, not the date: no birth date in the database, the logs or an error report."""

import contextlib
import datetime as dt
import html
import logging
import os
import shutil
import subprocess

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

from accounts import services
from tests.support.accounts import signup

# Distinctive dates: adults who sign up, and ones the gate refuses (relative to today).
ADULT_DATES = [dt.date(1961, 7, 23), dt.date(1977, 3, 29), dt.date(1983, 11, 4)]
LOG_DAY = dt.date(1969, 8, 14)
# Kept away from the code that raises below: an error report shows the source lines around
# each frame, and a literal date there would be the test's own text, not a leak.
REPORT_DAYS = {"signup": dt.date(1972, 4, 27), "api": dt.date(1966, 9, 3)}


def _refused_dates() -> list[dt.date]:
    today = dt.date.today()
    return [dt.date(today.year - 9, 5, 17), dt.date(today.year - 14, 10, 26)]


def _forms(day: dt.date) -> list[str]:
    return [
        day.isoformat(),
        day.strftime("%d/%m/%Y"),
        day.strftime("%m/%d/%Y"),
        day.strftime("%Y%m%d"),
        day.strftime("%d.%m.%Y"),
        str(day.toordinal()),
        f"{day.year}, {day.month}, {day.day}",  # repr of a date object in a traceback
    ]


def _assert_absent(text: str, days: list[dt.date], where: str) -> None:
    for day in days:
        for form in _forms(day):
            assert form not in text, f"{form} ({day}) found in {where}"


def _pg_dump() -> str:
    settings_dict = connection.settings_dict
    env = {**os.environ}
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = settings_dict["PASSWORD"]
    args = [
        shutil.which("pg_dump"),
        "--data-only",
        "--no-owner",
        "-h",
        settings_dict.get("HOST") or "127.0.0.1",
        "-p",
        str(settings_dict.get("PORT") or 5432),
        "-U",
        settings_dict.get("USER") or "postgres",
        settings_dict["NAME"],
    ]
    return subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout


def _every_row_as_text() -> str:
    # The same scan without pg_dump, through this connection: every row of every table.
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        chunks = []
        for table in tables:
            name = connection.ops.quote_name(table)
            if connection.vendor == "postgresql":
                cursor.execute(f"SELECT t::text FROM {name} t")  # noqa: S608 (table names from introspection)
            else:
                cursor.execute(f"SELECT * FROM {name}")  # noqa: S608
            chunks.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(chunks)


def _report(request, exc_info) -> str:
    # The HTML report is the one with every frame's local variables (the mail to admins too).
    reporter = ExceptionReporter(request, *exc_info)
    text = reporter.get_traceback_text() + html.unescape(reporter.get_traceback_html())
    assert "Local vars" in text
    return text


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_no_birth_date_anywhere_in_the_database_after_sign_ups_and_checks():
    refused = _refused_dates()
    for index, day in enumerate(ADULT_DATES):
        response = signup(Client(), email=f"player{index}@example.com", birth_date=day)
        assert response.status_code == 302
    for index, day in enumerate(refused):
        assert signup(Client(), email=f"no{index}@example.com", birth_date=day).status_code == 403
    guest = Client()
    guest.post(
        "/api/v1/age-check/",
        {"birth_date": dt.date(1958, 12, 9).isoformat()},
        content_type="application/json",
    )
    Client().post("/age-check/", {"birth_date": refused[0].isoformat()})
    days = [*ADULT_DATES, *refused, dt.date(1958, 12, 9)]

    text = _every_row_as_text()
    assert "player0@example.com" in text  # the scan does see the data
    _assert_absent(text, days, "the rows of the database")

    if connection.vendor == "postgresql" and shutil.which("pg_dump"):
        dump = _pg_dump()
        assert "player1@example.com" in dump
        _assert_absent(dump, days, "pg_dump")

    # Session data is signed and compressed: decode every session and look inside too.
    decoded = [str(session.get_decoded()) for session in Session.objects.all()]
    assert decoded
    _assert_absent("\n".join(decoded), days, "the sessions")


@pytest.mark.django_db
def test_no_birth_date_in_the_logs(caplog, client):
    """Every log line of a sign-up and both guest checks, down to each SQL statement with its
    parameters (django.db.backends logs them at DEBUG once queries are recorded)."""
    day = LOG_DAY
    with (
        caplog.at_level(logging.DEBUG),
        caplog.at_level(logging.DEBUG, logger="django.db.backends"),
        _queries_logged(),
    ):
        signed_up = signup(client, email="log@example.com", birth_date=day)
        page = Client().post("/age-check/", {"birth_date": day.isoformat()})
        api = Client().post(
            "/api/v1/age-check/", {"birth_date": day.isoformat()}, "application/json"
        )
    # The doors did their work (an absence in the log of a refused form would prove nothing).
    assert signed_up.status_code == 302, signed_up.content.decode()[:2000]
    assert page.status_code == 302 and api.status_code == 200, (page, api.content)
    statements = [r.getMessage() for r in caplog.records if r.name == "django.db.backends"]
    assert any("INSERT INTO" in s and "accounts_profile" in s for s in statements), statements
    _assert_absent(caplog.text, [day], "the logs")


@contextlib.contextmanager
def _queries_logged():
    connection.force_debug_cursor = True
    try:
        yield
    finally:
        connection.force_debug_cursor = False


@pytest.mark.django_db
def test_an_error_report_hides_the_birth_date(caplog, monkeypatch):
    day = REPORT_DAYS["signup"]
    monkeypatch.setattr(services, "profile_attest", _explode)
    browser = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = signup(browser, email="boom@example.com", birth_date=day)
    assert response.status_code == 500
    record = next(r for r in caplog.records if r.name == "django.request")
    request = record.request
    cleaned = SafeExceptionReporterFilter().get_post_parameters(request)
    assert cleaned["birth_date"] == SafeExceptionReporterFilter.cleansed_substitute
    assert cleaned["password1"] == SafeExceptionReporterFilter.cleansed_substitute
    report = _report(request, record.exc_info)
    assert "RuntimeError" in report
    _assert_absent(report, [day], "the error report (sign-up)")


@pytest.mark.django_db
@pytest.mark.parametrize("door", ["api", "page"])
def test_a_guest_check_error_report_hides_the_birth_date(caplog, monkeypatch, door):
    day = REPORT_DAYS["api"]
    monkeypatch.setattr("accounts.gate._serialised", _explode)
    browser = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        if door == "api":
            response = browser.post(
                "/api/v1/age-check/", {"birth_date": day.isoformat()}, "application/json"
            )
        else:
            response = browser.post("/age-check/", {"birth_date": day.isoformat()})
    assert response.status_code == 500
    record = next(r for r in caplog.records if r.name == "django.request")
    report = _report(record.request, record.exc_info)
    assert "RuntimeError" in report
    _assert_absent(report, [day], f"the error report ({door})")


def _explode(*args, **kwargs):
    raise RuntimeError("a store went away")
