"""Site-wide answers that must hold before (or whatever) a view runs.

- ``RequestBoundaryMiddleware``: a body over the limit is 413 on every route, before anything
  reads it; under ``/api/`` every answer is JSON in the error shape (an unknown route is 404
  ``not_found``, never Django's HTML page or a 301 to the slashed path that would drop a POST's
  body), whatever produced the error.
- ``PrivateCacheMiddleware``: nothing is cacheable unless a view says so. Every page carries
  the signed-in player's navigation, and most answers are personal (the profile, the board,
  the deck builder, /api/v1/me/, heists), so the safe default is ``private, no-store``.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.cache import patch_cache_control

from veyltak_site.exceptions import DEFAULT_MESSAGES, error_body, error_code

API_PREFIX = "/api/"
# Headers of an error answer worth keeping when its body is replaced.
_KEPT_HEADERS = ("Allow", "Retry-After", "Vary", "Cache-Control")


def _content_length(request: HttpRequest) -> int | None:
    raw = request.META.get("CONTENT_LENGTH") or ""
    if not raw:
        return None
    try:
        return max(0, int(raw))
    except ValueError:
        return None  # Django reads no body it cannot size


def json_error(status: int, *, code: str | None = None, message: str | None = None):
    code = code or error_code(status)
    message = message or DEFAULT_MESSAGES.get(status) or "The request could not be answered."
    return JsonResponse(error_body(code, message), status=status)


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


NO_ROUTE = "There is no such API route."


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


class RequestBoundaryMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = request.path_info.startswith(API_PREFIX)
        limit = settings.API_MAX_BODY_BYTES if api else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        length = _content_length(request)
        if length is not None and length > limit:
            if api:
                return json_error(413, message=f"The request body is over {limit} bytes.")
            return HttpResponse(
                "The request is too large.", status=413, content_type="text/plain; charset=utf-8"
            )
        if not api:
            return self.get_response(request)
        # A path without its slash is answered here, before CommonMiddleware could redirect to
        # the slashed path: a 301 turns a POST into a GET without its body. The slashed form is
        # the only one. (A slashed path is never redirected: it is resolved once, by Django.)
        if not request.path_info.endswith("/") and not _resolves(request.path_info):
            message = NO_ROUTE
            if _resolves(request.path_info + "/"):
                message += f" Did you mean {request.path_info}/ (with the slash)?"
            return json_error(404, message=message)
        response = self.get_response(request)
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return json_error(404, message=NO_ROUTE)  # no route took the path
        if response.status_code >= 400 and not _is_json(response):
            replaced = json_error(response.status_code)
            for header in _KEPT_HEADERS:
                if header in response:
                    replaced[header] = response[header]
            response = replaced
        return response


class PrivateCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Cache-Control" not in response:
            patch_cache_control(response, private=True, no_store=True)
        return response
