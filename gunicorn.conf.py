"""gunicorn's settings for the site's web process (`gunicorn -c gunicorn.conf.py ...`, as in the
Procfile; the command line adds the bind address, workers and threads).

- With PROMETHEUS_MULTIPROC_DIR (metrics from several processes), the files of processes that
  have exited are folded together when the server starts (veyltak_site/metrics_files.py), and a
  worker that exits has its live gauges removed.
- With LOG_FORMAT=json, gunicorn's own lines and its access log are JSON too, one object a line
  (veyltak_site/logs.py), each access line with the answer's X-Request-ID.

This file runs in gunicorn's master, which must not set up Django or Celery: it imports only
modules that import neither.
"""

import os

from veyltak_site import logs

if logs.json_wanted():
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "veyltak_site.logs.JsonFormatter"}},
        "handlers": {
            "json": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            }
        },
        "root": {"level": "INFO", "handlers": ["json"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": True},
        },
    }


def on_starting(server):
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path and os.path.isdir(path):
        from veyltak_site.metrics_files import fold_dead_processes

        if gone := fold_dead_processes(path):
            server.log.info("metrics: folded the files of %s processes that had exited", gone)


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
