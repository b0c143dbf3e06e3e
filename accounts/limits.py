"""allauth's own limits as the site answers them (every limited door: 429 `rate_limited`)."""

from __future__ import annotations

from allauth.account import app_settings as account_settings


def login_failed_wait() -> int:
    """Seconds a sign-in (or a second-factor code) refused for too many failures waits: the
    longest period among allauth's `login_failed` rates (ACCOUNT_RATE_LIMITS), which is when
    it surely opens."""
    from allauth.core.internal.ratelimit import parse_rates

    rates = parse_rates(account_settings.RATE_LIMITS.get("login_failed"))
    return int(max((rate.duration for rate in rates), default=60))
