"""A test-only urlconf: the site's routes plus tiny views standing in for heist routes."""

from django.http import JsonResponse
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.decorators import adult_required
from accounts.guest import guest_id
from accounts.permissions import AdultConfirmed


class FakeHeistApi(APIView):
    permission_classes = [AdultConfirmed]

    def get(self, request):
        return Response({"ok": True})


@adult_required
def fake_heist_page(request):
    return JsonResponse({"ok": True})


def show_guest_id(request):
    return JsonResponse({"guest_id": guest_id(request)})


urlpatterns = [
    path("test/heist-api/", FakeHeistApi.as_view()),
    path("test/heist-page/", fake_heist_page),
    path("test/guest-id/", show_guest_id),
    path("", include("veyltak_site.urls")),
]
