from rest_framework.permissions import BasePermission

from accounts.selectors import adult_confirmed
from veyltak_site.exceptions import ApplicationError


class AdultConfirmed(BasePermission):
    """Heist routes: a signed-in player with a confirmation, or a guest session that passed.

    Raises instead of returning False so the answer carries its own code, `age_check_required`,
    which the client uses to send the player to the check.
    """

    def has_permission(self, request, view) -> bool:
        if adult_confirmed(request):
            return True
        raise ApplicationError(
            "age_check_required",
            "Please confirm your date of birth before you play.",
            status_code=403,
        )


class SignedIn(BasePermission):
    """What a signed-in player keeps (their time zone, their jobs): a guest gets 403
    ``sign_in_required`` (DESIGN.md section 5), a code the client can act on."""

    def has_permission(self, request, view) -> bool:
        if request.user and request.user.is_authenticated:
            return True
        raise ApplicationError(
            "sign_in_required", "Sign in to keep jobs and a time zone.", status_code=403
        )
