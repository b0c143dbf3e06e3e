"""Rate limits: one mechanism for every door that costs the site work (issues 16 and 17).

A *scope* names a door: ``heist_start``, ``featured_start``, ``seal``, ``age_check``,
``purchase``, ``sign_in`` and ``sign_up`` (RATE_LIMITS in settings, each part overridable by
``RATE_<SCOPE>_<KIND>``). A door joins by naming its scope on a DRF view, or, for a page, with
:func:`limit_posts` (or by calling :func:`hit`). Each scope limits one or more *kinds* of
caller at once:

- ``session``: the signed-in player, else the browser's guest id or session;
- ``address``: the client address (an IPv6 address counts as its /64, which one machine
  usually holds whole).

Counters are fixed windows in the shared cache (Redis in production: ``INCR`` is atomic, so
threads and processes racing one counter all count), never in the process. A refused request
counts too, so hammering a door does not open it sooner. The limits are far above what a
person playing meets; they exist to stop one client from queueing work for everyone.

Views use :class:`ScopedRateThrottle` (``throttle_scope = "<scope>"``); DRF then answers 429,
rendered as ``rate_limited`` with ``Retry-After`` (veyltak_site.exceptions). Pages answer
:func:`too_many_requests`: the same 429 with ``Retry-After``, as JSON under ``/api/`` and as a
page (``templates/429.html``, which names the code ``rate_limited``) elsewhere. allauth's own
limits (password reset, sign-in failures per email, ...) answer the same way
(``veyltak_site.urls.handler429`` and the account adapter).
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from rest_framework.throttling import BaseThrottle

from accounts.guest import existing_guest_id
from veyltak_site.env import Rate, parse_rate

log = logging.getLogger(__name__)

__all__ = [
    "Rate",
    "ScopedRateThrottle",
    "client_address",
    "hit",
    "limit_posts",
    "parse_rate",
    "too_many_requests",
]


def client_address(request) -> str:
    """The client's address as limits count it: REMOTE_ADDR, or with NUM_PROXIES trusted
    proxies in front, the address they saw (X-Forwarded-For)."""
    address = request.META.get("REMOTE_ADDR", "")
    proxies = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            address = hops[-min(proxies, len(hops))]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _session_ident(request) -> str | None:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    if getattr(request, "session", None) is None:
        return None
    guest = existing_guest_id(request)
    return f"guest:{guest}" if guest else None


_IDENTS = {"session": _session_ident, "address": client_address}


def _count(key: str, timeout: int) -> int:
    # add() creates the window's counter (no-op when it exists), incr() counts atomically.
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls: this request opens the window
        cache.add(key, 1, timeout=timeout)
        return 1


def _count_all(windows: list[tuple[str, int]]) -> list[int]:
    """Count one hit in each ``(key, timeout)`` window; the counts after it.

    On Redis, one round trip for all of them (``SET NX EX`` opens a window, ``INCR`` counts;
    Django's Redis cache keeps a whole number as a plain Redis integer, so ``cache.get`` reads
    the same counter). Any other cache counts window by window (:func:`_count`)."""
    if not isinstance(cache, RedisCache):
        return [_count(key, timeout) for key, timeout in windows]
    pipe = cache._cache.get_client(write=True).pipeline(transaction=False)
    for key, timeout in windows:
        name = cache.make_and_validate_key(key)
        pipe.set(name, 0, ex=timeout, nx=True)
        pipe.incr(name)
    return pipe.execute()[1::2]


def hit(scope: str, request, *, now: float | None = None) -> int | None:
    """Count one request against every limit of ``scope``. Returns None when all allow it,
    else the seconds until the tightest refusing limit lets it through (at least 1)."""
    limits = settings.RATE_LIMITS.get(scope)
    if not limits:
        return None
    now = time.time() if now is None else now
    counted = []
    for kind, rate in limits.items():
        ident = _IDENTS[kind](request)
        if ident is not None:
            window = int(now // rate.seconds)
            counted.append((rate, window, f"rl:{scope}:{kind}:{ident}:{window}"))
    try:
        counts = _count_all([(key, rate.seconds + 1) for rate, _, key in counted])
    except Exception as exc:
        # The cache is away (Redis stopped): the door stays open rather than failing
        # every request; /healthz says the cache is down (issue 16, chaos).
        log.warning("rate limit %s not counted, the cache is away: %s", scope, exc)
        return None
    wait = None
    for (rate, window, _), count in zip(counted, counts, strict=True):
        if count > rate.count:
            until = (window + 1) * rate.seconds - now
            wait = max(wait or 0, max(1, math.ceil(until)))
    return wait


class ScopedRateThrottle(BaseThrottle):
    """DRF throttle for a view with ``throttle_scope``; counts on the shared cache (:func:`hit`)."""

    def __init__(self) -> None:
        self._wait: int | None = None

    def allow_request(self, request, view) -> bool:
        scope = getattr(view, "throttle_scope", None)
        if not scope:
            return True
        self._wait = hit(scope, request)
        return self._wait is None

    def wait(self) -> int | None:
        return self._wait


def too_many_requests(request, wait: int | None) -> HttpResponse:
    """The one 429 answer of a page door: ``rate_limited`` with ``Retry-After``; JSON in the
    API's error shape under ``/api/``, else a page saying when to try again."""
    from veyltak_site.exceptions import error_body, try_again

    wait = max(1, int(wait or 60))
    message = f"Too many requests: {try_again(wait)}."
    if request.path_info.startswith("/api/"):
        response: HttpResponse = JsonResponse(error_body("rate_limited", message), status=429)
    else:
        html = render_to_string(
            "429.html", {"message": message, "code": "rate_limited"}, request=request
        )
        response = HttpResponse(html, status=429)
    response["Retry-After"] = str(wait)
    return response


def limit_posts(scope: str):
    """Decorate a page view: each POST counts against ``scope``; over a limit the view does
    not run and the answer is :func:`too_many_requests`. GETs (showing the form) are free."""

    def decorate(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                wait = hit(scope, request)
                if wait is not None:
                    return too_many_requests(request, wait)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate
