"""Logs a machine can read: one JSON object per line (LOG_FORMAT=json), each with the request id.

The request id is taken from a request's ``X-Request-ID`` when it is sane, else made here, and
sent back in the answer (veyltak_site.telemetry); a task sent while a request is answered
carries it in a header of its own, so the worker's lines for that task have the same id
(veyltak_site.celery). Plain text stays the default.

Standard library only: gunicorn's master formats its own lines with this module before it
forks, and must not set up Django or Celery.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import uuid
from contextvars import ContextVar

# The id of the request (or of the request that sent the task) being handled, if any.
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
# The Celery task being run in this thread, if any: (name, id).
current_task: ContextVar[tuple[str, str] | None] = ContextVar("current_task", default=None)

REQUEST_ID_HEADER = "X-Request-ID"
# What a proxy's or a client's id may look like to be kept: a UUID, hex, base64, an AWS
# trace id... Nothing that could break a log line (spaces, quotes, controls), at most 128.
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,127}")

# What every LogRecord has; anything else on a record came from ``extra=`` and is kept.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}
_OWN = {"request_id"}


def json_wanted() -> bool:
    """LOG_FORMAT=json asked for (settings.py parses the variable strictly; gunicorn's config
    and the Celery app read it before settings are loaded)."""
    return os.environ.get("LOG_FORMAT", "").strip() == "json"


def sane_request_id(value: str | None) -> str:
    """``value`` when it is an id worth keeping, else a new one."""
    if value and _SANE_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (``-`` outside any request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, request_id, the task
    when in one, the exception's traceback, and whatever ``extra=`` added."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": request_id.get(),
            "pid": record.process,
        }
        if (task := current_task.get()) is not None:
            entry["task"], entry["task_id"] = task
        if record.name == "gunicorn.access" and isinstance(record.args, dict):
            entry.update(_gunicorn_access(record.args))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in _OWN and key not in entry:
                entry[key] = value
        return json.dumps(entry, default=str, ensure_ascii=False)


def _gunicorn_access(atoms: dict) -> dict[str, object]:
    """gunicorn's access line as fields (its atoms), the request id from the answer's header
    (gunicorn writes the line after the site has answered, outside the request's context)."""

    def atom(key: str) -> str | None:
        value = atoms.get(key)
        return None if value in (None, "-") else str(value)

    status = atom("s")
    size = atom("B")
    return {
        "request_id": atom("{x-request-id}o"),
        "method": atom("m"),
        "path": atom("U"),
        "query": atom("q"),
        "status": int(status) if status and status.isdigit() else status,
        "bytes": int(size) if size and size.isdigit() else 0,
        "duration_ms": round(int(atoms.get("D") or 0) / 1000, 1),
        "remote": atom("h"),
        "user_agent": atom("a"),
    }
