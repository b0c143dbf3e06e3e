"""Thin API views for accounts (DESIGN.md §5): explicit serializers, logic in services."""

from __future__ import annotations

import copy
import datetime as dt
from functools import cache

from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import extensions, gate, selectors, services, time_zones
from accounts.permissions import SignedIn
from veyltak_site.schema import errors
from veyltak_site.throttling import ScopedRateThrottle

_INVALID_DATE = "Please enter a valid date."


@cache
def me_serializer() -> type[serializers.Serializer]:
    """The answer of /api/v1/me/: accounts' own fields, then those other apps registered
    (accounts.extensions, filled from their AppConfig.ready, so built on first use)."""
    fields = {
        "authenticated": serializers.BooleanField(),
        "username": serializers.CharField(allow_null=True, help_text="Your public handle."),
        "adult_confirmed": serializers.BooleanField(),
        "time_zone": serializers.CharField(
            allow_null=True,
            help_text="Where your day turns (jobs): an IANA name, UTC until set; null for a guest.",
        ),
        # Copies made now come after ours (DRF orders fields by when they were made).
        **{name: copy.deepcopy(field) for name, field in extensions.me_fields().items()},
    }
    return type("MeSerializer", (serializers.Serializer,), fields)


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeApi(APIView):
    def get_serializer_class(self) -> type[serializers.Serializer]:
        # drf-spectacular reads the response schema from here.
        return me_serializer()

    def get(self, request):
        user = request.user
        authenticated = bool(user and user.is_authenticated)
        data = {
            "authenticated": authenticated,
            # The public handle (accounts/names.py), never the account's internal username.
            "username": selectors.public_handle(user=user) if authenticated else None,
            "adult_confirmed": selectors.adult_confirmed(request),
            "time_zone": selectors.time_zone(user=user) if authenticated else None,
            **extensions.me_values(user if authenticated else None),
        }
        return Response(me_serializer()(data).data)


@method_decorator(gate.gate_door, name="dispatch")
@method_decorator(sensitive_post_parameters("birth_date"), name="dispatch")
class AgeCheckApi(APIView):
    # Limited per browser and per address like the page (RATE_LIMITS["age_check"]).
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "age_check"

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

    @extend_schema(
        request=AgeCheckInputSerializer,
        responses={
            200: AgeCheckSerializer,
            **errors(
                **{
                    "400": "`invalid_input` (not a date, or not a possible one), `parse_error`.",
                    "403": "`age_check_failed`, `age_check_locked`: this browser is refused "
                    "for 24 hours.",
                    "429": "`rate_limited`: too many checks; `Retry-After` says when to retry.",
                }
            ),
        },
    )
    @sensitive_variables()
    def post(self, request):
        serializer = self.AgeCheckInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.age_check(request=request, birth_date=serializer.validated_data["birth_date"])
        return Response(self.AgeCheckSerializer({"adult_confirmed": True}).data)


class TimeZoneApi(APIView):
    permission_classes = [SignedIn]

    class TimeZoneInputSerializer(serializers.Serializer):
        time_zone = serializers.CharField(
            max_length=time_zones.MAX_LENGTH, help_text="An IANA name, e.g. Europe/Paris."
        )
        if_unset = serializers.BooleanField(
            default=False,
            help_text="Only if none is set yet (the browser's guess never overrides a choice).",
        )

    class TimeZoneSerializer(serializers.Serializer):
        time_zone = serializers.CharField(help_text="The zone now in force.")
        changed = serializers.BooleanField()

    @extend_schema(
        request=TimeZoneInputSerializer,
        description=(
            "Set where your day turns (your jobs reset at midnight there). A change never "
            "makes a day shorter than 20 hours: the day in progress ends at the first "
            "midnight of the new zone at least 20 hours after it began."
        ),
        responses={
            200: TimeZoneSerializer,
            **errors(
                **{
                    "400": "`invalid_input`, `unknown_time_zone`, `parse_error`.",
                    "403": "`sign_in_required`: a guest has no profile to keep it.",
                }
            ),
        },
    )
    def put(self, request):
        data = self.TimeZoneInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        name, changed = services.time_zone_set(
            user=request.user,
            time_zone=data.validated_data["time_zone"],
            if_unset=data.validated_data["if_unset"],
        )
        return Response(self.TimeZoneSerializer({"time_zone": name, "changed": changed}).data)
