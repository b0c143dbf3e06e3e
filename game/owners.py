"""Who is asking for a heist: built from a request in one place (:func:`owner_from_request`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from accounts.guest import guest_id


@dataclass(frozen=True, slots=True)
class Owner:
    """A signed-in player (``user_id``) and/or a guest session (``guest_id``).

    A signed-in player owns the heists on their account and any still-unclaimed heists of the
    browser session they signed in from (the sign-in signal claims those, this covers the race).
    """

    user_id: int | None
    guest_id: str = ""

    def heist_filter(self, prefix: str = "") -> Q:
        """Heists this owner may see; ``prefix`` (e.g. ``"heist__"``) for a related model."""
        q = Q(**{f"{prefix}pk__in": []})
        if self.user_id is not None:
            q |= Q(**{f"{prefix}user_id": self.user_id})
        if self.guest_id:
            q |= Q(**{f"{prefix}user__isnull": True, f"{prefix}guest_id": self.guest_id})
        return q

    def owns(self, heist) -> bool:
        """Whether ``heist`` is one of this owner's (the same rule as :meth:`heist_filter`)."""
        if self.user_id is not None and heist.user_id == self.user_id:
            return True
        return bool(self.guest_id) and heist.user_id is None and heist.guest_id == self.guest_id


def owner_from_request(request) -> Owner:
    """The owner of the heists a request may see and start: the API and the pages both ask here."""
    user = request.user
    return Owner(user_id=user.pk if user.is_authenticated else None, guest_id=guest_id(request))
