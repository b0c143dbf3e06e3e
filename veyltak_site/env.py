"""Strict parsing of environment variables for settings.

A malformed value stops start-up with ImproperlyConfigured naming the variable, so a typo in a
deployment fails loudly instead of silently falling back to a default.
"""

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_str(name: str, default: str) -> str:
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean: use one of {sorted(_TRUE | _FALSE)}."
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}.")
    return number


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number.") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}.")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, default: str, *, schemes: set[str]) -> str:
    value = _raw(name)
    if value is None:
        return default
    scheme = urlsplit(value).scheme
    if scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name} has scheme {scheme or '(none)'!r}; expected one of {sorted(schemes)}."
        )
    return value
