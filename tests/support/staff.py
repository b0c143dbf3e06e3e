"""Staff in tests: the admin lets staff in only with a second factor (accounts/admin.py).

`totp_code` computes an authenticator app's code (RFC 6238: HMAC-SHA1 over the 30 s step,
6 digits) from the secret alone, independently of allauth's own code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import struct
import time


def totp_code(secret: str, at: float | None = None, *, period: int = 30, digits: int = 6) -> str:
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // period)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def give_second_factor(user) -> str:
    """Set up TOTP for ``user`` as the activation page would; returns the secret."""
    from allauth.mfa.totp.internal.auth import TOTP

    secret = base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=")
    TOTP.activate(user, secret)
    return secret
