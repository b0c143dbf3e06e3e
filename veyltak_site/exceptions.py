"""One business error type and one API error shape.

Services raise ApplicationError(code, message); the DRF handler renders it, and every framework
error (validation, auth, 404, throttling), as {"error": {"code", "message", "fields"?}}.
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApplicationError(Exception):
    """A refused request: `code` is a stable snake_case identifier, `message` is for a person."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        fields: dict | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status_code = status_code
        self.fields = fields


def error_body(code: str, message: str, fields: dict | None = None) -> dict:
    error = {"code": code, "message": message}
    if fields:
        error["fields"] = fields
    return {"error": error}


_DEFAULT_CODES = {
    400: "invalid_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    415: "unsupported_media_type",
    429: "throttled",
}


def _flatten(detail) -> str:
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    if isinstance(detail, dict):
        return " ".join(_flatten(item) for item in detail.values())
    return str(detail)


def api_exception_handler(exc, context):
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status_code)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: let Django log it and answer 500
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = error_body(
            "invalid_input", "Some fields are not valid; see `fields`.", fields
        )
        return response
    code = _DEFAULT_CODES.get(response.status_code, "error")
    detail = getattr(exc, "detail", None)
    if hasattr(detail, "code") and isinstance(detail.code, str) and detail.code != "error":
        code = detail.code
    response.data = error_body(code, _flatten(detail) if detail else str(exc))
    return response
