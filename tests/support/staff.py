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


def sign_in_with_second_factor(client, user) -> None:
    """Sign ``user`` in on ``client`` as a sign-in with the app's code leaves the session:
    allauth's record of a second factor passed in this session (``mfa``), which the admin
    asks for (accounts/admin.py). ``user`` has a factor (``give_second_factor``)."""
    from allauth.account.internal.flows.login import record_authentication
    from allauth.mfa.models import Authenticator
    from django.http import HttpRequest

    client.force_login(user)
    authenticator = Authenticator.objects.get(user=user, type=Authenticator.Type.TOTP)
    request = HttpRequest()
    request.session = client.session
    record_authentication(request, user, "mfa", id=authenticator.pk, type=authenticator.type)
    request.session.save()
