"""The age gate: one rule, one lock, and nothing that teaches the answer.

The cut-off lives here and only here. Pages, scripts and refusals never state it: a refusal is
the same friendly sentence whether the date was just refused or the browser is locked, so trying
dates teaches nothing. A refused browser is locked for a day on every door (sign-up, guest check,
API) through two independent stores that heal each other: a signed cookie, which outlives a
sign-out, and the session, which outlives a deleted cookie.

The birth date is a local variable of `passes` and nothing else: it is never stored, logged or
put in a message (`sensitive_variables` keeps it out of error reports too).
"""

from __future__ import annotations

import datetime as dt
import time
from functools import wraps

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

# Bump when the rule changes: every stored confirmation names the version it passed under.
GATE_VERSION = "2026.11"
_MINIMUM_YEARS = 18

LOCK_SECONDS = 24 * 60 * 60
LOCK_COOKIE = "vt_gate"
_LOCK_SALT = "accounts.gate.lock"
_SESSION_LOCK = "accounts.gate_locked_until"
SESSION_CONFIRMED_AT = "accounts.adult_confirmed_at"
SESSION_GATE_VERSION = "accounts.gate_version"
_PENDING_COOKIE = "_vt_gate_lock_until"

# One sentence for every refusal, fresh or locked, on every door.
REFUSAL_MESSAGE = "Sorry, we can't let you continue. Thanks for stopping by."
REFUSAL_TITLE = "We can't continue"


def _raw(request) -> HttpRequest:
    # DRF wraps Django's request; attributes must live on the Django request, the one both the
    # view decorators and the response hook see.
    return getattr(request, "_request", request)


@sensitive_variables("birth_date")
def passes(birth_date: dt.date, *, today: dt.date | None = None) -> bool:
    today = today or timezone.localdate()
    # Whole years completed; someone born on 29 February has a birthday on 1 March in common
    # years, because (month, day) tuples compare 2-29 after 2-28.
    before_birthday = (today.month, today.day) < (birth_date.month, birth_date.day)
    years = today.year - birth_date.year - before_birthday
    return years >= _MINIMUM_YEARS


def locked_until(request) -> int | None:
    """When this browser's lock ends (epoch seconds), or None if it is not locked.

    Either store is enough; whichever is missing is re-written by `persist_lock`.
    """
    now = int(time.time())
    candidates = []
    session_until = request.session.get(_SESSION_LOCK)
    if isinstance(session_until, int) and session_until > now:
        candidates.append(session_until)
    try:
        cookie_until = int(
            _raw(request).get_signed_cookie(LOCK_COOKIE, salt=_LOCK_SALT, max_age=LOCK_SECONDS)
        )
    except (KeyError, signing.BadSignature, ValueError):
        cookie_until = None
    if cookie_until is not None and cookie_until > now:
        candidates.append(cookie_until)
    if not candidates:
        return None
    until = max(candidates)
    if session_until != until:
        request.session[_SESSION_LOCK] = until
    if cookie_until != until:
        setattr(_raw(request), _PENDING_COOKIE, until)
    return until


def is_locked(request) -> bool:
    return locked_until(request) is not None


def refuse(request) -> None:
    """Lock this browser for a day and withdraw any guest pass it held.

    A later refusal does not extend an existing lock: the day runs from the first refusal.
    """
    until = locked_until(request) or int(time.time()) + LOCK_SECONDS
    request.session[_SESSION_LOCK] = until
    request.session.pop(SESSION_CONFIRMED_AT, None)
    request.session.pop(SESSION_GATE_VERSION, None)
    setattr(_raw(request), _PENDING_COOKIE, until)


def mark_session_confirmed(request) -> None:
    request.session[SESSION_CONFIRMED_AT] = timezone.now().isoformat()
    request.session[SESSION_GATE_VERSION] = GATE_VERSION


def session_confirmed(request) -> bool:
    return bool(request.session.get(SESSION_CONFIRMED_AT)) and not is_locked(request)


def persist_lock(request, response: HttpResponse) -> HttpResponse:
    """Write the lock cookie if `refuse` or `locked_until` asked for it during this request."""
    until = getattr(_raw(request), _PENDING_COOKIE, None)
    if until is None:
        return response
    remaining = until - int(time.time())
    if remaining > 0:
        response.set_signed_cookie(
            LOCK_COOKIE,
            str(until),
            salt=_LOCK_SALT,
            max_age=remaining,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    return response


def gate_door(view):
    """Decorate a view that can refuse or see a lock, so the lock cookie reaches the browser."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        return persist_lock(request, view(request, *args, **kwargs))

    return wrapper
