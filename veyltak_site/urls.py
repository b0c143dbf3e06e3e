from django.contrib import admin
from django.urls import include, path

from veyltak_site.health import healthz
from veyltak_site.throttling import too_many_requests


def handler429(request):
    """allauth's own limits (password reset, e-mail management...) answer as every limited
    door does: 429 `rate_limited` with Retry-After (allauth looks this name up here)."""
    return too_many_requests(request, None)


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Ours first: the gated sign-up shadows allauth's at the same path and name.
    path("", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("veyltak_site.api_urls")),
    path("", include("game.urls")),
]
