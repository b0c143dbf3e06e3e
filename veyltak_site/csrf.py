"""Posts refused by the CSRF check count at a door of their own (issue 27, S12).

A refused post costs the site little, but 41,000 of them in a minute were counted by no limit.
Each one now counts against ``csrf_refused`` (per browser and per address, RATE_LIMITS), and
over the limit the answer is the one every limited door gives: 429 ``rate_limited`` with
Retry-After. Pages reach :func:`csrf_failure` (CSRF_FAILURE_VIEW); the API's session
authentication counts the same way (accounts.authentication).
"""

from __future__ import annotations

from django.views import csrf

from veyltak_site import throttling


def csrf_failure(request, reason: str = ""):
    wait = throttling.hit("csrf_refused", request)
    if wait is not None:
        return throttling.too_many_requests(request, wait)
    return csrf.csrf_failure(request, reason=reason)
