"""Small HTTP rules the views share."""

from __future__ import annotations

from django.utils.http import parse_etags


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (or is ``*``), by the weak comparison
    RFC 9110 asks of it (section 13.1.2): ``W/"x"`` and ``"x"`` match. A malformed header
    matches nothing, so it costs the client a full answer, never a wrong 304."""
    wanted = etag.removeprefix("W/")
    return any(t == "*" or t.removeprefix("W/") == wanted for t in parse_etags(if_none_match))
