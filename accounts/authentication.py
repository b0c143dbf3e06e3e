from drf_spectacular.authentication import SessionScheme
from rest_framework.authentication import SessionAuthentication


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


class CsrfSessionScheme(SessionScheme):
    """OpenAPI: the session cookie, with the CSRF header required on unsafe methods."""

    target_class = "accounts.authentication.CsrfSessionAuthentication"
    name = "sessionCsrfAuth"
