"""A stable id for the browser, kept in the session data.

Django's `login()` cycles the session key but keeps its data (for a session that had no user
yet), so the id survives sign-up and sign-in: the heist app can adopt a guest's heists by it.
Sign-out flushes the session and so starts a new guest.

The id is derived from the session key it was first needed under (an HMAC, so it reveals
nothing of the key), not drawn at random: requests of one session running at once, none of
which has saved the id yet, all arrive at the same id instead of each writing its own (the last
session save winning, and the others' heists and gate records orphaned).
"""

from django.utils.crypto import salted_hmac

_SESSION_KEY = "accounts.guest_id"
_SALT = "accounts.guest.id"


def _derive(session_key: str) -> str:
    return salted_hmac(_SALT, session_key, algorithm="sha256").hexdigest()[:32]


def guest_id(request) -> str:
    value = request.session.get(_SESSION_KEY)
    if not value:
        if request.session.session_key is None:
            request.session.save()  # a new session: its key is what the id is derived from
        value = _derive(request.session.session_key)
        request.session[_SESSION_KEY] = value
    return value


def existing_guest_id(request) -> str | None:
    """The browser's id without starting a session: the stored one, or the one its session
    would get; None when there is no session yet."""
    value = request.session.get(_SESSION_KEY)
    if value:
        return value
    key = request.session.session_key
    return _derive(key) if key else None
