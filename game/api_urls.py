from django.urls import path

from game import api

urlpatterns = [
    path("crew/", api.CrewListApi.as_view(), name="api-crew"),
]
