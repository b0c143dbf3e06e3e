"""Rate limits: one mechanism for every door that costs the site work (issues 16 and 17).

A *scope* names a door: ``heist_start``, ``featured_start``, ``seal``, ``age_check``,
``purchase``, ``sign_in`` and ``sign_up`` (RATE_LIMITS in settings, each part overridable by
``RATE_<SCOPE>_<KIND>``). A door joins by naming its scope on a DRF view, or, for a page, with
:func:`limit_posts` (or by calling :func:`hit`). Each scope limits one or more *kinds* of
caller at once:

- ``session``: the signed-in player, else the browser's guest id or session;
- ``address``: the client address (an IPv6 address counts as its /64, which one machine
  usually holds whole).

Counters live in the shared cache, never in the process: Redis in production, the file cache
in `make run`. Each limit is a *sliding* window counted in tenths of its period (issue 27, S8):
a request is let through only if the current tenth and the ten before it hold no more than the
limit with it, so no stretch of the period's length, wherever it starts, ever lets more through
than the limit (a burst at the end of one clock window no longer buys a fresh window's worth
right after it; a steady client gets the limit per 1.1 periods). Every request counts, a
refused one too, so hammering a door does not open it sooner. Counting is atomic across
threads and processes: ``INCR`` on Redis (one round trip with the reads), and on the file cache
(whose increment is a read and a write) under an exclusive file lock beside its files. The
limits are far above what a person playing meets; they exist to stop one client from queueing
work for everyone.

Views use :class:`ScopedRateThrottle` (``throttle_scope = "<scope>"``); DRF then answers 429,
rendered as ``rate_limited`` with ``Retry-After`` (veyltak_site.exceptions). Pages answer
:func:`too_many_requests`: the same 429 with ``Retry-After``, as JSON under ``/api/`` and as a
page (``templates/429.html``, which names the code ``rate_limited``) elsewhere. allauth's own
limits (password reset, sign-in failures per email, ...) answer the same way
(``veyltak_site.urls.handler429`` and the account adapter).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import ipaddress
import logging
import math
import os
import threading
import time

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.filebased import FileBasedCache
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


# A window is counted in this many steps; it spans the current step and this many before it.
STEPS = 10
_LOCK_NAME = "ratelimit.lock"
_local_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class _Window:
    rate: Rate
    keys: list[str]  # oldest step first, the current step last
    step: float
    index: int  # the current step's number

    @property
    def timeout(self) -> int:
        # Long enough for the last step this one is read in, and one more second.
        return math.ceil((STEPS + 2) * self.step) + 1


def _windows(scope: str, request, now: float) -> list[_Window]:
    windows = []
    for kind, rate in settings.RATE_LIMITS.get(scope, {}).items():
        ident = _IDENTS[kind](request)
        if ident is None:
            continue
        step = rate.seconds / STEPS
        index = int(now // step)
        keys = [
            f"rl:{scope}:{kind}:{ident}:{rate.seconds}:{i}" for i in range(index - STEPS, index + 1)
        ]
        windows.append(_Window(rate, keys, step, index))
    return windows


def _count_redis(backend: RedisCache, windows: list[_Window]) -> list[list[int]]:
    # One round trip: open the current step's counter (SET NX EX), count (INCR), read the
    # steps before it (MGET). INCR is atomic; the earlier steps no longer change.
    pipe = backend._cache.get_client(write=True).pipeline(transaction=False)
    for window in windows:
        names = [backend.make_key(key) for key in window.keys]  # our own keys: no memcached checks
        pipe.set(names[-1], 0, ex=window.timeout, nx=True)
        pipe.incr(names[-1])
        pipe.mget(names[:-1])
    answers = pipe.execute()
    counts = []
    for i, _ in enumerate(windows):
        current, earlier = answers[3 * i + 1], answers[3 * i + 2]
        counts.append([int(value or 0) for value in earlier] + [int(current)])
    return counts


@contextlib.contextmanager
def _counting_lock(backend):
    """Serialise counting on caches whose increment is a read and a write: the file cache
    across processes (an exclusive lock on a file beside its entries), others in-process."""
    if isinstance(backend, FileBasedCache):
        os.makedirs(backend._dir, exist_ok=True)
        with open(os.path.join(backend._dir, _LOCK_NAME), "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        with _local_lock:
            yield


def _count_locked(backend, windows: list[_Window]) -> list[list[int]]:
    counts = []
    for window in windows:
        with _counting_lock(backend):
            current = backend.get(window.keys[-1], 0) + 1
            backend.set(window.keys[-1], current, timeout=window.timeout)
        earlier = backend.get_many(window.keys[:-1])
        counts.append([int(earlier.get(key, 0)) for key in window.keys[:-1]] + [current])
    return counts


def _wait(window: _Window, counts: list[int], now: float) -> int | None:
    """None if the window holds no more than its limit, else the seconds until enough of its
    oldest steps have left it for one more request (at least 1)."""
    total = sum(counts)
    if total <= window.rate.count:
        return None
    # The oldest steps leave the window one by one, the first at the next step's start.
    dropped = 0
    while total >= window.rate.count and dropped < len(counts):
        total -= counts[dropped]
        dropped += 1
    opens_at = (window.index + dropped) * window.step
    return max(1, math.ceil(opens_at - now))


def hit(scope: str, request, *, now: float | None = None) -> int | None:
    """Count one request against every limit of ``scope``. Returns None when all allow it,
    else the seconds until the tightest refusing limit lets it through (at least 1)."""
    now = time.time() if now is None else now
    windows = _windows(scope, request, now)
    if not windows:
        return None
    backend = caches[DEFAULT_CACHE_ALIAS]
    try:
        if isinstance(backend, RedisCache):
            counts = _count_redis(backend, windows)
        else:
            counts = _count_locked(backend, windows)
    except Exception as exc:
        # The cache is away (Redis stopped): the door stays open rather than failing
        # every request; /healthz says the cache is down (issue 16, chaos).
        log.warning("rate limit %s not counted, the cache is away: %s", scope, exc)
        return None
    waits = [_wait(window, count, now) for window, count in zip(windows, counts, strict=True)]
    refused = [wait for wait in waits if wait is not None]
    return max(refused) if refused else None


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
