"""One business error type and one API error shape.

Services raise ApplicationError(code, message); the DRF handler renders it, and every framework
error (validation, auth, 404, throttling), as {"error": {"code", "message", "fields"?}}.
"""

import math

from django.core.exceptions import PermissionDenied, RequestDataTooBig
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
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "server_error",
    503: "service_unavailable",
}


def try_again(wait: int | None) -> str:
    """The one wording of when a refused request may come again (every 429, API or page):
    "please try again in 3 seconds", or "in a little while" when no wait is known."""
    when = f"in {wait} second{'s' if wait != 1 else ''}" if wait else "in a little while"
    return f"please try again {when}"


# What an error says when the framework gave no words of its own (veyltak_site.middleware uses
# these for answers that never reached a DRF view: an unknown route, a body over the limit).
DEFAULT_MESSAGES = {
    400: "The request is not valid.",
    403: "You may not do that.",
    404: "There is nothing here.",
    405: "That method is not allowed here.",
    413: "The request body is too large.",
    429: f"Too many requests: {try_again(None)}.",
    500: "Something went wrong on our side. Please try again.",
    503: "The site is briefly unavailable: please try again in a moment.",
}


def error_code(status_code: int) -> str:
    return _DEFAULT_CODES.get(status_code, "server_error" if status_code >= 500 else "error")


class PayloadTooLarge(exceptions.APIException):
    status_code = 413
    default_detail = DEFAULT_MESSAGES[413]
    default_code = "payload_too_large"


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
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, exceptions.Throttled):
        # DRF's own code is `throttled`; the API's is `rate_limited` (DESIGN.md section 5).
        # The handler below keeps `Retry-After`, which DRF sets from `exc.wait`.
        wait = math.ceil(exc.wait) if exc.wait else None
        exc.wait = wait
        exc.detail = exceptions.ErrorDetail(
            f"Too many requests: {try_again(wait)}.", code="rate_limited"
        )

    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: let Django log it and answer 500
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = error_body(
            "invalid_input", "Some fields are not valid; see `fields`.", fields
        )
        return response
    code = error_code(response.status_code)
    detail = getattr(exc, "detail", None)
    if hasattr(detail, "code") and isinstance(detail.code, str) and detail.code != "error":
        code = detail.code
    response.data = error_body(code, _flatten(detail) if detail else str(exc))
    return response
