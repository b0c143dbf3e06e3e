"""Error tracking with Sentry, when SENTRY_DSN is set (settings.py calls ``sentry_init``).

No personal data leaves the site: ``send_default_pii`` is off (no user, cookies, client
address, headers that identify), frames are sent without their local variables (where a
request's data, a user or a form sits), and every event passes ``scrub`` before it is sent:
any email address anywhere in it (an exception's message, a log line, a request body) becomes
``[email]``, and any calendar date, or any value under a name that says birth, ``[date]``.
Players give the site those two and nothing else personal. Timestamps (a date with a time,
``2026-12-01T10:00:00Z``) are kept: they are no birth date, and an event needs them. Without
SENTRY_DSN this module is not imported, nor is sentry_sdk.
"""

from __future__ import annotations

import re
from typing import Any

EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
# A calendar date as a person types one or a form sends it: 2001-02-03, 2001/02/03, 03.02.2001;
# not one followed by a time (\b: 2026-12-01T10:00 goes on with a letter).
DATE = re.compile(r"\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})\b")
BIRTH_KEY = re.compile(r"birth|dob", re.IGNORECASE)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return DATE.sub("[date]", EMAIL.sub("[email]", value))
    if isinstance(value, dict):
        return {
            key: "[date]" if isinstance(key, str) and BIRTH_KEY.search(key) else _clean(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_clean(item) for item in value]
    return value


def scrub(event: dict, hint: dict | None = None) -> dict:
    """Sentry's ``before_send``: the event without emails and birth dates."""
    return _clean(event)


def sentry_init(*, dsn: str, environment: str, **options: Any) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        include_local_variables=False,
        before_send=scrub,
        # Errors only: no performance tracing, so nothing samples every request.
        traces_sample_rate=None,
        **options,
    )
