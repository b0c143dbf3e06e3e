"""A real Celery worker in a subprocess, on this test run's database and broker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection


class LiveWorker:
    """A real Celery worker in a subprocess, on the test database and the test broker."""

    def __init__(self, log_path) -> None:
        self.log_path = log_path
        self.process = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def task_returns(self, name: str) -> list[str]:
        """What each finished run of task ``name`` returned, from the worker's log."""
        pattern = re.compile(rf"Task {re.escape(name)}\[[^\]]+\] succeeded in [^:]+: (\S+)")
        return pattern.findall(self.log())


def live_worker_process(tmp_path, *, pool: str, concurrency: int, conn_max_age: int):
    """Start ``celery -A veyltak_site worker`` (a generator for a fixture: yields the worker,
    stops it after). The worker is another process, so it only sees committed rows: use it from
    tests marked ``django_db(transaction=True)``. Stale messages are purged first and after."""
    from veyltak_site.celery import app

    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp", "pyamqp", "filesystem")):
        pytest.skip(f"needs a broker another process shares, not {settings.CELERY_BROKER_URL}")
    app.control.purge()
    db = connection.settings_dict
    if settings.USING_POSTGRES:
        auth = quote(db["USER"] or "", safe="")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"], safe="")
        url = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    else:  # the test database's file (settings.py), and the on-disk broker of the same var/
        url = f"sqlite:///{db['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "DB_CONN_MAX_AGE": str(conn_max_age),
    }
    env.pop("DATABASE_TEST_NAME", None)
    worker = LiveWorker(tmp_path / "worker.log")
    with open(worker.log_path, "wb") as log:
        worker.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "veyltak_site",
                "worker",
                "--pool",
                pool,
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--hostname",
                f"test-{os.getpid()}@%h",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while " ready." not in worker.log():
            if worker.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Celery worker did not start:\n{worker.log()}")
            time.sleep(0.1)
        yield worker
    finally:
        worker.process.send_signal(signal.SIGTERM)
        try:
            worker.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait(timeout=10)
        app.control.purge()
