"""A stable id for the browser, kept in the session data.

Django's `login()` cycles the session key but keeps its data (for a session that had no user
yet), so the id survives sign-up and sign-in: the heist app can adopt a guest's heists by it.
Sign-out flushes the session and so starts a new guest.
"""

import secrets

_SESSION_KEY = "accounts.guest_id"


def guest_id(request) -> str:
    value = request.session.get(_SESSION_KEY)
    if not value:
        value = secrets.token_urlsafe(18)
        request.session[_SESSION_KEY] = value
    return value
