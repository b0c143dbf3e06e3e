"""Strict parsing of environment variables for settings.

A malformed value stops start-up with ImproperlyConfigured naming the variable, so a typo in a
deployment fails loudly instead of silently falling back to a default.
"""

import ipaddress
import os
import re
from dataclasses import dataclass
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


_INT = re.compile(r"[+-]?[0-9]+")


def env_int(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    value = _raw(name)
    if value is None:
        return default
    # Digits only: int() would also take "1_440" or "١٤٤٠".
    if not _INT.fullmatch(value):
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}.")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name}={number} must be at most {maximum}.")
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


@dataclass(frozen=True, slots=True)
class Rate:
    """A rate limit: at most ``count`` requests per ``seconds`` (veyltak_site.throttling)."""

    count: int
    seconds: int

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds}s"


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"([0-9]{1,9})/([0-9]{0,6})([smhd])")


def parse_rate(text: str) -> Rate:
    """``"30/10m"`` is 30 per 10 minutes; also ``"5/s"``, ``"100/h"``, ``"20/90s"``, ``"1/d"``.

    Raises ValueError for anything else."""
    match = _RATE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a rate like 30/10m (count/[n]unit, unit s, m, h or d)")
    count, number, unit = int(match[1]), int(match[2] or 1), match[3]
    if count < 1 or number < 1:
        raise ValueError(f"{text!r}: the count and the period must be at least 1")
    return Rate(count, number * _UNITS[unit])


def env_rate(name: str, default: str) -> Rate:
    value = _raw(name) or default
    try:
        return parse_rate(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}.") from None


def env_choice(name: str, default: str, *, choices: set[str]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: use one of {sorted(choices)}.")
    return value


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Comma-separated addresses or networks (``10.0.0.7``, ``10.0.0.0/8``, ``fd00::/8``)."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ipaddress.ip_network(item, strict=True))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an address or network ({exc})."
            ) from None
    return networks


_TOKEN = re.compile(r"[\x21-\x7e]{32,256}")


def env_token(name: str) -> str:
    """A secret of 32 to 256 visible ASCII characters (no spaces), or "" when unset."""
    value = _raw(name)
    if value is None:
        return ""
    if not _TOKEN.fullmatch(value):
        raise ImproperlyConfigured(
            f"{name} must be 32 to 256 visible ASCII characters without spaces "
            "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)."
        )
    return value


def env_dir(name: str) -> str:
    """An existing, writable folder, or "" when unset."""
    value = _raw(name)
    if value is None:
        return ""
    if not os.path.isdir(value) or not os.access(value, os.W_OK):
        raise ImproperlyConfigured(f"{name}={value!r} is not a writable folder.")
    return value
