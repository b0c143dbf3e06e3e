"""Thin API views for accounts (DESIGN.md §5): explicit serializers, logic in services."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import extensions, gate, selectors, services
from accounts.authentication import CsrfSessionAuthentication

_INVALID_DATE = "Please enter a valid date."


class _MeBase(serializers.Serializer):
    authenticated = serializers.BooleanField()
    username = serializers.CharField(allow_null=True, help_text="Your public handle.")
    adult_confirmed = serializers.BooleanField()
    signs = serializers.IntegerField()


# The /me answer: the fields above and those the apps above accounts registered in their
# ready() (accounts.extensions), declared together so the schema says what is served. Built
# when the URLconf imports this module, after every app is ready.
MeSerializer = type("MeSerializer", (_MeBase,), extensions.me_declared())


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeApi(APIView):
    authentication_classes = [CsrfSessionAuthentication]

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        user = request.user
        authenticated = bool(user and user.is_authenticated)
        data = {
            "authenticated": authenticated,
            # The public handle (accounts/names.py), never the account's internal username.
            "username": selectors.public_handle(user=user) if authenticated else None,
            "adult_confirmed": selectors.adult_confirmed(request),
            "signs": selectors.signs_balance(user if authenticated else None),
            **extensions.me_fields(request),
        }
        return Response(MeSerializer(data).data)


@method_decorator(gate.gate_door, name="dispatch")
@method_decorator(sensitive_post_parameters("birth_date"), name="dispatch")
class AgeCheckApi(APIView):
    authentication_classes = [CsrfSessionAuthentication]

    class AgeCheckInputSerializer(serializers.Serializer):
        birth_date = serializers.DateField(
            input_formats=["%Y-%m-%d"],
            error_messages={"invalid": _INVALID_DATE, "datetime": _INVALID_DATE},
        )

        @sensitive_variables("value")
        def validate_birth_date(self, value):
            # A future or pre-1900 date is a typo: ask again, no lock (as the page does).
            if not (dt.date(1900, 1, 1) <= value <= timezone.localdate()):
                raise serializers.ValidationError(_INVALID_DATE)
            return value

    class AgeCheckSerializer(serializers.Serializer):
        adult_confirmed = serializers.BooleanField()

    @extend_schema(request=AgeCheckInputSerializer, responses=AgeCheckSerializer)
    @sensitive_variables()
    def post(self, request):
        serializer = self.AgeCheckInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.age_check(request=request, birth_date=serializer.validated_data["birth_date"])
        return Response(self.AgeCheckSerializer({"adult_confirmed": True}).data)
