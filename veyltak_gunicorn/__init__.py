"""gunicorn's threaded worker, with its own refusals in the API's error shape (issue 27, S9).

gunicorn answers a request it cannot parse itself, before Django sees it (a request line over
its limit: 414; a header with a byte HTTP does not allow: 400; too many or too large headers:
431), with a small HTML page written straight to the socket. Its worker's ``handle_error`` is
the one place those answers are made, so this worker (``--worker-class
veyltak_gunicorn.ThreadWorker`` in the Procfile) lets gunicorn decide status,
logging and the access log as ever, catches the page it writes, and sends the same status as
``{"error": {"code", "message"}}`` instead, wherever the path is under /api/ or could not be
read (gunicorn reads a request's headers before it hands over its path, so a refusal of the
line or of a header never knows it). Pages whose path is known keep gunicorn's own answer.

Loaded by gunicorn's master before it forks the workers, so it lives outside ``veyltak_site``
(whose package sets up the Celery app on import: a master holding Celery's state made its
workers' shutdown hang) and imports nothing of Django.
"""

from __future__ import annotations

import json

from gunicorn import util
from gunicorn.workers import gthread

API_PREFIX = "/api/"

_CODES = {
    400: ("invalid_request", "The request could not be read: a malformed line or header."),
    403: ("permission_denied", "You may not do that."),
    414: ("uri_too_long", "The address of the request is too long."),
    417: ("expectation_failed", "The request's Expect header cannot be met."),
    431: ("headers_too_large", "The request's headers are too many or too large."),
    500: ("server_error", "Something went wrong on our side. Please try again."),
    501: ("not_implemented", "The request uses a transfer coding this site does not accept."),
}


class _Captured:
    """Stands in for the client's socket while gunicorn writes its error page."""

    def __init__(self, sock) -> None:
        self._sock = sock
        self.data = bytearray()

    def gettimeout(self) -> float:
        return 0.0  # gunicorn then writes at once, without changing the socket's mode

    def sendall(self, data: bytes) -> None:
        self.data += data

    def __getattr__(self, name):
        return getattr(self._sock, name)


def _json_error(status_line: bytes) -> bytes:
    parts = status_line.decode("latin-1").split(" ", 2)
    status, reason = int(parts[1]), (parts[2] if len(parts) > 2 else "Error")
    code, message = _CODES.get(status, ("invalid_request", "The request could not be read."))
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        "Cache-Control: private, no-store\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    return head + body


class ThreadWorker(gthread.ThreadWorker):
    def handle_error(self, req, client, addr, exc):
        captured = _Captured(client)
        super().handle_error(req, captured, addr, exc)
        if not captured.data:
            return  # gunicorn wrote nothing (it could not): neither do we
        path = getattr(req, "path", None)
        if path is None and getattr(exc, "req", None) is not None:
            path = getattr(exc.req, "path", None)
        if path is None or path.startswith(API_PREFIX):
            answer = _json_error(bytes(captured.data).split(b"\r\n", 1)[0])
        else:
            answer = bytes(captured.data)
        try:
            util.write_nonblock(client, answer)
        except Exception:  # the client is gone: as gunicorn does, say so in the debug log
            self.log.debug("Failed to send error message.")
