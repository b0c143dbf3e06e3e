"""Each request's id and figures; each database query's.

``RequestTelemetryMiddleware`` comes first in MIDDLEWARE, so it sees every answer (a 413 made
before the view, WhiteNoise's static files) and times all the middleware after it. It takes
the request id from ``X-Request-ID`` when sane (else makes one), holds it in a context
variable for the log lines and the tasks of the request (veyltak_site.logs), and sends it
back. Routes are counted by their URL pattern, never by path, so a heist's id never becomes a
label.

Database queries are timed by an execute wrapper put on every connection when it is opened
(``connection_created``; veyltak_site.apps connects it): a few microseconds a query.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.signals import request_finished
from django.db.backends.signals import connection_created
from django.http import HttpRequest, HttpResponse

from veyltak_site import metrics
from veyltak_site.logs import REQUEST_ID_HEADER, request_id, sane_request_id

_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return "/" + match.route
    if request.path_info.startswith(settings.STATIC_URL):
        return "static"
    return "unmatched"


class RequestTelemetryMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = sane_request_id(request.headers.get(REQUEST_ID_HEADER))
        # Cleared when the answer is closed (request_finished), not here: Django logs a 4xx or
        # 5xx answer after the middleware has returned it.
        request_id.set(rid)
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        response[REQUEST_ID_HEADER] = rid
        method = request.method if request.method in _METHODS else "other"
        route = _route(request)
        metrics.HTTP_REQUESTS.labels(method, route, str(response.status_code)).inc()
        metrics.HTTP_SECONDS.labels(method, route).observe(seconds)
        return response


def _timed(alias: str):
    seconds = metrics.DB_QUERY_SECONDS.labels(alias)  # looked up once per connection

    def execute(run, sql, params, many, context):
        started = time.perf_counter()
        try:
            return run(sql, params, many, context)
        except Exception as exc:
            metrics.DB_ERRORS.labels(alias, type(exc).__name__).inc()
            raise
        finally:
            seconds.observe(time.perf_counter() - started)

    return execute


def _instrument(sender, connection, **kwargs) -> None:
    metrics.DB_CONNECTIONS.labels(connection.alias).inc()
    if not getattr(connection, "_veyltak_timed", False):
        connection.execute_wrappers.append(_timed(connection.alias))
        connection._veyltak_timed = True


def _request_done(**kwargs) -> None:
    request_id.set(None)


def connect() -> None:
    """Time every database connection's queries; end each request's id with the request."""
    connection_created.connect(_instrument, dispatch_uid="veyltak-db-telemetry")
    request_finished.connect(_request_done, dispatch_uid="veyltak-request-id-done")
