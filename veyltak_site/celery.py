"""The Celery app, configured from Django settings (CELERY_* names)."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")

app = Celery("veyltak")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _close_old_connections(**kwargs) -> None:
    """Database connections in a worker follow the same policy as in a web request.

    Django closes a connection at the start and end of each request when it has errors or is
    older than CONN_MAX_AGE, and health-checks a reused one first (CONN_HEALTH_CHECKS). Celery's
    own fixup would instead open a new PostgreSQL connection for every task (a backend process
    started and ended per rival turn) unless CELERY_DB_REUSE_MAX is set; settings.py sets it, and
    this keeps the connections honest.
    """
    from django.db import close_old_connections

    close_old_connections()
