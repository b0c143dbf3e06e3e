from django.conf import settings
from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import SAFE_METHODS

from veyltak_site import throttling


class CsrfSessionAuthentication(SessionAuthentication):
    """Session authentication that checks CSRF for guests too.

    DRF checks CSRF only for signed-in users; a guest's session carries state worth protecting
    (the gate's lock and pass, the guest id), so every unsafe request needs the token that
    GET /api/v1/me/ hands out.
    """

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is None:
            self.enforce_csrf(request)
        return result

    def enforce_csrf(self, request):
        # A refused post counts at its own door (veyltak_site/csrf.py); over the limit it is
        # answered 429 rate_limited, as every limited door is.
        try:
            if _no_header(request):
                raise exceptions.PermissionDenied("CSRF Failed: CSRF token missing.")
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            # Django's request: DRF's would authenticate again to learn who is asking.
            wait = throttling.hit("csrf_refused", getattr(request, "_request", request))
            if wait is not None:
                raise exceptions.Throttled(wait) from None
            raise


def _no_header(request) -> bool:
    """An unsafe request without the CSRF header. The API's token comes in the header (its
    bodies are JSON); Django's check would parse the body first, looking for a form's token,
    so a form or a broken body without the header was a 415 or 400 that no limit counted.
    The test client's switch that turns CSRF checks off (as Django's check) is kept."""
    checks_off = getattr(getattr(request, "_request", request), "_dont_enforce_csrf_checks", False)
    return (
        request.method not in SAFE_METHODS
        and not checks_off
        and not request.META.get(settings.CSRF_HEADER_NAME)
    )


class CsrfSessionScheme(SessionScheme):
    """OpenAPI: the session cookie, with the CSRF header required on unsafe methods."""

    target_class = "accounts.authentication.CsrfSessionAuthentication"
    name = "sessionCsrfAuth"
