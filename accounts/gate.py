"""The age gate: one rule, one lock, and nothing that teaches the answer.

The cut-off lives here and only here. Pages, scripts and refusals never state it: a refusal is
the same friendly sentence whether the date was just refused or the browser is locked, so trying
dates teaches nothing. A refused browser is locked for a day on every door (sign-up, guest check,
API, signing in to an account that has not passed the gate) through two independent stores that
heal each other: a signed cookie, which outlives a sign-out, and a record on the server
(``GateRecord``, keyed by the browser's guest id), which outlives a deleted cookie. Signing in
to an account that passed the gate stays possible: its holder passed it (docs/security.md).

The verdict lives in that record, never in the session data: a session is saved whole at the
end of each request, so of several checks sent at once the last to finish would write back
whatever it had read, a refusal's lock included or not. Instead every check of one browser
runs under the record's row lock (``_serialised``), and a refusal writes the lock and clears
the confirmation in one row that the database keeps consistent (both are never set at once),
so a refusal always wins: a check after it finds the lock, a confirmation before it is undone.

The birth date is a local variable of `passes` and nothing else: it is never stored, logged or
put in a message (`sensitive_variables` keeps it out of error reports too).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import wraps

from django.conf import settings
from django.core import signing
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from accounts.guest import existing_guest_id, guest_id
from accounts.models import GateRecord
from veyltak_site.rows import ModelRows

# Bump when the rule changes: every stored confirmation names the version it passed under.
GATE_VERSION = "2026.11"
_MINIMUM_YEARS = 18

LOCK_SECONDS = 24 * 60 * 60
LOCK_COOKIE = "vt_gate"
_LOCK_SALT = "accounts.gate.lock"
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


def _now() -> float:
    # Epoch seconds from time.time(), the clock the lock cookie uses too.
    return time.time()


def _at(epoch: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch, tz=dt.UTC)


def _epoch(moment: dt.datetime | None) -> int | None:
    return int(moment.timestamp()) if moment is not None else None


def _cookie_until(request) -> int | None:
    try:
        until = int(
            _raw(request).get_signed_cookie(LOCK_COOKIE, salt=_LOCK_SALT, max_age=LOCK_SECONDS)
        )
    except (KeyError, signing.BadSignature, ValueError):
        return None
    return until if until > _now() else None


_RECORDS = ModelRows(GateRecord, "g")


def _record(request) -> GateRecord | None:
    """This browser's record as it is now, or None. Read on every request to a heist route
    (``session_confirmed``), so in plain SQL (veyltak_site.rows): through the ORM the query's
    building cost more than the rest of the age check."""
    key = existing_guest_id(request)
    if not key:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_RECORDS.columns(connection)} FROM {_RECORDS.table(connection)} "  # noqa: S608
            f"WHERE {_RECORDS.column(connection, 'key')} = %s",
            [key],
        )
        row = cursor.fetchone()
    return _RECORDS.build(row, connection) if row is not None else None


def _active(until: int | None) -> int | None:
    return until if until is not None and until > _now() else None


@contextmanager
def _serialised(request) -> Iterator[GateRecord]:
    """This browser's record, created if new, under its row lock for one transaction: every
    check of one browser (guest check, sign-up, refusal) runs one at a time."""
    key = guest_id(request)
    with transaction.atomic():
        GateRecord.objects.bulk_create([GateRecord(key=key)], ignore_conflicts=True)
        yield GateRecord.objects.select_for_update().get(key=key)


def _lock(record: GateRecord, until: int) -> None:
    # The lock and the confirmation are never both set (a database constraint): writing the
    # one clears the other, in one UPDATE.
    record.locked_until = _at(until)
    record.confirmed_at = None
    record.gate_version = ""
    record.save(update_fields=["locked_until", "confirmed_at", "gate_version", "updated_at"])


def _heal(request, record: GateRecord | None, until: int) -> None:
    """Make both stores say the browser is locked until ``until``."""
    if _active(_epoch(record.locked_until) if record else None) != until:
        with _serialised(request) as locked:
            current = _active(_epoch(locked.locked_until))
            if current is None or current < until:
                _lock(locked, until)
    if _cookie_until(request) != until:
        setattr(_raw(request), _PENDING_COOKIE, until)


def locked_until(request, *, record: GateRecord | bool | None = False) -> int | None:
    """When this browser's lock ends (epoch seconds), or None if it is not locked.

    Either store is enough; whichever is missing is written again (the record here, the cookie
    by ``persist_lock`` on the way out). ``record``: the browser's record if the caller read
    it already (None: it has none).
    """
    if record is False:
        record = _record(request)
    stored = _active(_epoch(record.locked_until)) if record else None
    candidates = [until for until in (stored, _cookie_until(request)) if until is not None]
    if not candidates:
        return None
    until = max(candidates)
    _heal(request, record, until)
    return until


def is_locked(request) -> bool:
    return locked_until(request) is not None


@contextmanager
def door(request, *, passed: bool = True) -> Iterator[str]:
    """One door's verdict, serialised with every other check of this browser; the caller's
    own writes inside the block (the sign-up form creates the account that carries its
    attestation) commit or roll back with it, so no refusal slips in between.

    ``passed`` is whether the date given passes (``passes``). Yields ``"locked"`` (refused
    whatever was sent: an earlier refusal's lock holds), ``"refused"`` (this refusal locks the
    browser for a day and withdraws any pass it held) or ``"confirmed"``.
    """
    cookie = _cookie_until(request)
    with _serialised(request) as record:
        current = _active(_epoch(record.locked_until))
        held = [until for until in (current, cookie) if until is not None]
        until = None
        if held:
            until = max(held)
            if current != until:
                _lock(record, until)
            verdict = "locked"
        elif not passed:
            # A later refusal does not extend an existing lock: the day runs from the first.
            until = int(_now()) + LOCK_SECONDS
            _lock(record, until)
            verdict = "refused"
        else:
            record.confirmed_at = timezone.now()
            record.gate_version = GATE_VERSION
            record.locked_until = None  # one that has ended: only one of the two is ever set
            record.save(
                update_fields=["confirmed_at", "gate_version", "locked_until", "updated_at"]
            )
            verdict = "confirmed"
        if until is not None:
            setattr(_raw(request), _PENDING_COOKIE, until)
        yield verdict


def check(request, *, passed: bool) -> str:
    """The verdict of a door that only checks (the guest check): see ``door``."""
    with door(request, passed=passed) as verdict:
        return verdict


def refuse(request) -> None:
    """Lock this browser for a day and withdraw any pass it held (a refused date on a door
    that judged the date itself, e.g. the sign-up form)."""
    check(request, passed=False)


def session_confirmed(request) -> bool:
    """A guest browser that passed the check, and is not locked."""
    record = _record(request)
    if record is None or record.confirmed_at is None:
        return False
    # A record with a confirmation holds no lock (never both); the cookie still may.
    return locked_until(request, record=record) is None


def persist_lock(request, response: HttpResponse) -> HttpResponse:
    """Write the lock cookie if a check or ``locked_until`` asked for it during this request."""
    until = getattr(_raw(request), _PENDING_COOKIE, None)
    if until is None:
        return response
    remaining = until - int(_now())
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
