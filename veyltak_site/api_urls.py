"""Every route of the JSON API, version 1 (DESIGN.md §5)."""

from django.urls import include, path

urlpatterns = [
    path("", include("accounts.api_urls")),
    path("", include("game.api_urls")),
    path("", include("shop.api_urls")),
]
