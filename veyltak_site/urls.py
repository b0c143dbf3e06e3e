from django.contrib import admin
from django.urls import include, path

from veyltak_site.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Ours first: the gated sign-up shadows allauth's at the same path and name.
    path("", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("veyltak_site.api_urls")),
    path("shop/", include("shop.urls")),
    path("", include("game.urls")),
]
