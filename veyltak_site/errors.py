"""Error tracking with Sentry, when SENTRY_DSN is set (settings.py calls ``sentry_init``).

No personal data leaves the site: ``send_default_pii`` is off (no user, cookies, client
address, headers that identify), and every event passes ``scrub`` before it is sent: any email
address anywhere in it (an exception's message, a log line, a request body) becomes
``[email]``, and a birth date (a field named for it, or a date in a request's body or query
string, where a birth date arrives from a client) ``[date]``. Players give the site those two
and nothing else personal. Without SENTRY_DSN this module is not imported, nor is sentry_sdk.
"""

from __future__ import annotations

import re
from typing import Any

EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
# A calendar date as a form or JSON body holds one: 2001-02-03, 2001/02/03, 03.02.2001...
DATE = re.compile(r"\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})\b")
BIRTH_KEY = re.compile(r"birth|dob", re.IGNORECASE)


def _clean(value: Any, *, dates: bool) -> Any:
    if isinstance(value, str):
        value = EMAIL.sub("[email]", value)
        return DATE.sub("[date]", value) if dates else value
    if isinstance(value, dict):
        return {
            key: "[date]"
            if isinstance(key, str) and BIRTH_KEY.search(key)
            else _clean(item, dates=dates)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_clean(item, dates=dates) for item in value]
    return value


def scrub(event: dict, hint: dict | None = None) -> dict:
    """Sentry's ``before_send``: the event without emails and birth dates."""
    cleaned = _clean(event, dates=False)
    request = cleaned.get("request")
    if isinstance(request, dict):
        # What the client sent may hold a birth date under any name (a form, JSON).
        for key in ("data", "query_string"):
            if key in request:
                request[key] = _clean(request[key], dates=True)
    return cleaned


def sentry_init(*, dsn: str, environment: str, **options: Any) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        before_send=scrub,
        # Errors only: no performance tracing, so nothing samples every request.
        traces_sample_rate=None,
        **options,
    )
