"""The site's package: imported first by every process of the site (gunicorn through
veyltak_site.wsgi, Celery through ``-A veyltak_site``, manage.py through the settings)."""

import os

# The rival's and the debrief's matrix products are small (tens of rows by a few thousand
# columns): OpenBLAS's threads only add their hand-offs and their spinning to every product,
# about a third of a worker's CPU per Safecracker or Kingpin turn (bench/worker.py, issue 29),
# with the same results. Set before anything imports numpy; an operator's own value stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
