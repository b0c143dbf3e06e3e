from rest_framework.permissions import BasePermission

from veyltak_site.exceptions import ApplicationError


class SignedIn(BasePermission):
    """Signs are for signed-in players: a guest gets 403 ``sign_in_required`` (DESIGN.md
    section 5), a code the client can act on, rather than DRF's generic refusal."""

    def has_permission(self, request, view) -> bool:
        if request.user and request.user.is_authenticated:
            return True
        raise ApplicationError(
            "sign_in_required", "Sign in to earn, keep and spend Signs.", status_code=403
        )
