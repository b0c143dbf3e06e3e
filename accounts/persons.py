"""Once per person (issue 27, S4): what a person may have once is kept against a keyed hash
of their address after their account is deleted, never the address itself.

An address is normalised (NFKC, trimmed, case-folded) and hashed with HMAC-SHA256 under a key
derived from SECRET_KEY (Django's ``salted_hmac``), so the stored value cannot be turned back
into the address, nor tested against one, without the server's key. Changing SECRET_KEY
forgets every person (the next account with an old address is new again).
"""

from __future__ import annotations

import unicodedata

from django.utils.crypto import salted_hmac

_SALT = "veyltak.accounts.person"

WELCOME = "welcome"


def ranked_try(slot: str) -> str:
    """The use of one featured slot's ranked try."""
    return f"featured-ranked:{slot}"


def normalise_email(email: str) -> str:
    return unicodedata.normalize("NFKC", email or "").strip().casefold()


def person_key(email: str) -> str:
    return salted_hmac(_SALT, normalise_email(email), algorithm="sha256").hexdigest()
