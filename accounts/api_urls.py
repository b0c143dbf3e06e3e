from django.urls import path

from accounts import api

urlpatterns = [
    path("me/", api.MeApi.as_view(), name="api-me"),
    path("me/time-zone/", api.TimeZoneApi.as_view(), name="api-me-time-zone"),
    path("age-check/", api.AgeCheckApi.as_view(), name="api-age-check"),
]
