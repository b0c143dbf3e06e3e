import sys

from django import db
from django.contrib import admin
from django.http import HttpResponse, JsonResponse
from django.urls import include, path

from shop.collection import collection
from veyltak_site.exceptions import DEFAULT_MESSAGES, error_body
from veyltak_site.health import healthz
from veyltak_site.metrics_view import metrics_view
from veyltak_site.throttling import too_many_requests

# Seconds a client is asked to wait when the database is away (a restart takes a few).
DATABASE_RETRY_AFTER = 5


def handler500(request):
    """An unexpected error: 500, never a trace. The database away (a restart, a failover) is
    no bug of the site: 503 `service_unavailable` with Retry-After, and the site recovers by
    itself (CONN_HEALTH_CHECKS opens a new connection on the next request)."""
    exc = sys.exc_info()[1]
    status = 503 if isinstance(exc, db.OperationalError | db.InterfaceError) else 500
    if request.path_info.startswith("/api/"):
        code = "service_unavailable" if status == 503 else "server_error"
        response = JsonResponse(error_body(code, DEFAULT_MESSAGES[status]), status=status)
    else:
        response = HttpResponse(
            DEFAULT_MESSAGES[status], status=status, content_type="text/plain; charset=utf-8"
        )
    if status == 503:
        response["Retry-After"] = str(DATABASE_RETRY_AFTER)
    return response


def handler429(request):
    """allauth's own limits (password reset, e-mail management...) answer as every limited
    door does: 429 `rate_limited` with Retry-After (allauth looks this name up here)."""
    return too_many_requests(request, None)


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    # Ours first: the gated sign-up shadows allauth's at the same path and name.
    path("", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("veyltak_site.api_urls")),
    path("shop/", include("shop.urls")),
    path("collection/", collection, name="collection"),
    path("", include("game.urls")),
]
