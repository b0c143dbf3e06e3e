"""A Celery app that takes the site's debrief queue and drops every message: the debrief worker
of ``bench/capacity.py --no-debriefs``.

The site runs unchanged: every finished heist still sends its debrief task, and this worker
takes each one off the queue as the real debrief worker would, so the A/B of one commit differs
only in what the debrief worker does with a message (working the debrief out and storing it, or
nothing). No Django (``fixups=[]``: Celery would otherwise set the site up from
DJANGO_SETTINGS_MODULE), so its CPU is the message handling alone.

    python -m celery -A bench.discard_debriefs worker -Q debrief     # (bench/capacity.py does)
"""

from __future__ import annotations

import os

from celery import Celery

# The site's names (veyltak_site/settings.py: CELERY_TASK_QUEUES, CELERY_TASK_ROUTES).
DEBRIEF_QUEUE = "debrief"
DEBRIEF_TASK = "game.debrief_heist"

app = Celery("discard-debriefs", broker=os.environ["CELERY_BROKER_URL"], fixups=[])
app.conf.update(
    task_queues={DEBRIEF_QUEUE: {}},
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
)


@app.task(name=DEBRIEF_TASK, ignore_result=True)
def debrief_heist(heist_id: str) -> bool:
    """Taken and dropped: nothing worked out, nothing stored."""
    return False
