"""The player's time zone (DESIGN.md section 11): the day of their jobs turns at midnight there.

A zone is an IANA name (``Europe/Paris``), as browsers report it
(``Intl.DateTimeFormat().resolvedOptions().timeZone``) and as Python's ``zoneinfo`` reads it
from the system's time zone database. A profile without one is in UTC until the browser or the
player sets it.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from functools import cache

from django.core.exceptions import ValidationError

DEFAULT = "UTC"
MAX_LENGTH = 64
# The database's own files and aliases a browser never reports; accepted names are the rest.
_NOT_ZONES = frozenset({"Factory", "localtime", "posixrules"})
_LISTED_PREFIXES = (
    "Africa/",
    "America/",
    "Antarctica/",
    "Arctic/",
    "Asia/",
    "Atlantic/",
    "Australia/",
    "Europe/",
    "Indian/",
    "Pacific/",
)


@cache
def known() -> frozenset[str]:
    """Every zone name this server can turn a day in (UTC always, even on a machine without
    the system's zone files: there, UTC is all it knows)."""
    return frozenset(
        z
        for z in zoneinfo.available_timezones()
        if z not in _NOT_ZONES and not z.startswith(("posix/", "right/"))
    ) | {DEFAULT}


@cache
def choices() -> tuple[str, ...]:
    """The zones the profile lists: UTC, then the regions' cities in order (the aliases a
    browser may still send, such as ``US/Eastern``, are accepted but not listed)."""
    return (DEFAULT, *sorted(z for z in known() if z.startswith(_LISTED_PREFIXES)))


def clean(name: object) -> str:
    """``name`` if it is a zone this server knows, else ValidationError ``unknown_time_zone``."""
    if isinstance(name, str) and len(name) <= MAX_LENGTH and name in known():
        return name
    raise ValidationError(
        "That is not a time zone we know: choose one from the list, such as Europe/Paris.",
        code="unknown_time_zone",
    )


def zone(name: str) -> dt.tzinfo:
    """The zone of a stored name; an empty name (not set yet) is UTC, which needs no zone
    file."""
    if not name or name == DEFAULT:
        return dt.UTC
    return zoneinfo.ZoneInfo(name)
