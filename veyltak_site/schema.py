"""OpenAPI pieces every app's API shares: the one error shape (veyltak_site.exceptions)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

# One component for every app's error answers (a second "Error" would clash in the schema).
ERROR = inline_serializer(
    name="Error",
    fields={
        "error": inline_serializer(
            name="ErrorBody",
            fields={
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(required=False),
            },
        )
    },
)


def errors(**codes: str) -> dict[int, OpenApiResponse]:
    """``{status: OpenApiResponse(ERROR, text)}`` from ``{"409": "`code`: when..."}``."""
    return {int(s): OpenApiResponse(ERROR, description=text) for s, text in codes.items()}
