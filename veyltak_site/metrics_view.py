"""/metrics: the Prometheus text format, for the operator's scraper only.

Allowed with ``Authorization: Bearer <METRICS_TOKEN>``, or from an address in
METRICS_ALLOWED_IPS when the request came straight from there (no proxy header: a proxy of the
site's own in such a network would otherwise pass every visitor's request on). Anything else,
and everything when neither variable is set, gets the site's ordinary 404 page: to the public
the route does not exist, and a wrong token learns nothing a missing one would not.

With PROMETHEUS_MULTIPROC_DIR the figures are those of every process writing there (web and
workers on this machine), added up; the broker's queue depth is read now, at the scrape.
"""

from __future__ import annotations

import contextlib
import glob
import hmac
import ipaddress
import logging
import os

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

log = logging.getLogger(__name__)

# Headers a proxy adds when it passes a request on.
_PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def _token_ok(request: HttpRequest) -> bool | None:
    """True or False for a bearer token sent; None when none was."""
    header = request.headers.get("Authorization", "")
    scheme, _, sent = header.partition(" ")
    if scheme.lower() != "bearer" or not sent:
        return None
    wanted = settings.METRICS_TOKEN
    return bool(wanted) and hmac.compare_digest(sent.strip().encode(), wanted.encode())


def _address_ok(request: HttpRequest) -> bool:
    if not settings.METRICS_ALLOWED_IPS or any(h in request.META for h in _PROXY_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in settings.METRICS_ALLOWED_IPS)


def allowed(request: HttpRequest) -> bool:
    token = _token_ok(request)
    if token is False:
        log.warning("metrics: wrong token from %s", request.META.get("REMOTE_ADDR"))
        return False
    return token is True or _address_ok(request)


class BrokerQueueCollector:
    """The messages waiting in each of the broker's queues (CELERY_TASK_QUEUES: the rival's
    turns, the debriefs), asked at each scrape: LLEN on Redis, the queue folder of the embedded
    broker, a passive declare on RabbitMQ (kombu's one call for all three). Nothing is reported
    while the broker does not answer (/healthz says so)."""

    def collect(self):
        from veyltak_site.celery import app

        gauge = GaugeMetricFamily(
            "veyltak_broker_queue_messages",
            "Messages waiting in each of the broker's queues (celery: rival turns and the "
            "beat's tasks; debrief: finished heists' debriefs), read at scrape time.",
            labels=["queue"],
        )
        try:
            with app.connection_for_read() as conn:
                conn.ensure_connection(max_retries=1, timeout=2)
                depths = {queue: queue_messages(conn, queue) for queue in sorted(app.amqp.queues)}
        except Exception as exc:
            log.warning("metrics: broker queue depth not read: %s", exc)
        else:
            for queue, waiting in depths.items():
                gauge.add_metric([queue], waiting)
        yield gauge


def queue_messages(conn, queue: str) -> int:
    """Messages waiting in ``queue``; 0 for a queue the broker does not know yet (nothing was
    ever sent to it: Redis and RabbitMQ answer NOT_FOUND). A channel of its own each time: on
    RabbitMQ that answer closes the channel it came on."""
    with conn.channel() as channel:
        try:
            return channel.queue_declare(queue=queue, passive=True).message_count
        except conn.channel_errors:
            return 0


class _ThisProcess:
    """Everything this process's default registry holds (no PROMETHEUS_MULTIPROC_DIR)."""

    def collect(self):
        return REGISTRY.collect()


class ProcessFilesCollector(MultiProcessCollector):
    """prometheus_client's multiprocess collector, skipping a file that a process has created
    and not yet sized: a process opens its file, then sizes it, and a scrape between the two
    read 0 bytes and answered 500 (seen in tests/site/test_observability_stack.py as a heist's
    debrief worker first counted). Such a file holds no value yet; a file only grows, so one
    with bytes in it is read whole."""

    def __init__(self, registry: CollectorRegistry, path: str) -> None:
        super().__init__(registry, path=path)
        self.folder = path

    def collect(self):
        files = []
        for name in glob.glob(os.path.join(self.folder, "*.db")):
            with contextlib.suppress(OSError):  # gone since the listing: nothing to read
                if os.path.getsize(name) > 0:
                    files.append(name)
        return self.merge(files, accumulate=True)


def _registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        ProcessFilesCollector(registry, path=path)
    else:
        registry.register(_ThisProcess())
    registry.register(BrokerQueueCollector())
    return registry


def metrics_view(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD") or not allowed(request):
        raise Http404
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
