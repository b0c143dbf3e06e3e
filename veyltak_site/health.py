"""/healthz: 200 when the database and the broker answer, 503 naming the part that is down."""

import logging

from django.db import connection
from django.http import JsonResponse

from veyltak_site.celery import app as celery_app

log = logging.getLogger(__name__)


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


def healthz(request):
    checks = {}
    for name, check in (("database", _database), ("broker", _broker)):
        try:
            checks[name] = check()
        except Exception as exc:
            log.warning("health check %s failed: %s", name, exc)
            checks[name] = "down"
    down = [name for name, state in checks.items() if state != "ok"]
    body = {"status": "ok" if not down else "down", "checks": checks}
    if down:
        body["down"] = down
    return JsonResponse(body, status=503 if down else 200)
