"""What the site counts for its operators, exported at /metrics (veyltak_site.metrics_view).

Every metric is defined here, and the apps record through the small functions below, called
where the thing happens (the services) so that business code stays one line longer at most.
Counters of writes are incremented once the transaction commits (a rolled-back heist or
purchase never happened); durations are observed as measured.

With several processes (gunicorn's workers, Celery's pool) each one writes its values to files
in PROMETHEUS_MULTIPROC_DIR and a scrape adds them up (prometheus_client's multiprocess mode,
chosen when this module is first imported); without it they live in this process's memory.
"""

from __future__ import annotations

from django.db import transaction
from prometheus_client import Counter, Histogram

# Rival turns: Rookie about 5 ms, Kingpin about 36 ms of CPU (bench/worker.py), slower on a busy
# machine.
_DECISION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_QUERY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

# --- Requests, database, cache (veyltak_site.telemetry, veyltak_site.cache) -------------------
HTTP_REQUESTS = Counter(
    "veyltak_http_requests",
    "Requests answered, by method, route (the URL pattern) and status.",
    ["method", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "veyltak_http_request_duration_seconds",
    "Time to answer a request (all middleware included), by method and route.",
    ["method", "route"],
    buckets=_REQUEST_BUCKETS,
)
DB_QUERY_SECONDS = Histogram(
    "veyltak_db_query_duration_seconds",
    "Database queries and their time, by connection alias.",
    ["alias"],
    buckets=_QUERY_BUCKETS,
)
DB_ERRORS = Counter(
    "veyltak_db_errors", "Database queries that raised, by alias and error.", ["alias", "error"]
)
DB_CONNECTIONS = Counter(
    "veyltak_db_connections", "Database connections opened, by alias.", ["alias"]
)
CACHE_GETS = Counter(
    "veyltak_cache_gets", "Keys read from the cache, by result (hit or miss).", ["result"]
)
CACHE_ERRORS = Counter(
    "veyltak_cache_errors", "Cache calls that raised (the cache away), by operation.", ["operation"]
)

# --- The game -----------------------------------------------------------------------------------
RIVAL_DECISION_SECONDS = Histogram(
    "veyltak_rival_decision_seconds",
    "Time the rival took to choose a night's plan, by difficulty.",
    ["difficulty"],
    buckets=_DECISION_BUCKETS,
)
RIVAL_PLANS_SEALED = Counter(
    "veyltak_rival_plans_sealed",
    "Rival plans sealed, by who sealed them: the Celery task, or the web fallback (a night "
    "older than RIVAL_FALLBACK_SECONDS that no worker had sealed).",
    ["by"],
)
SEAL_SECONDS = Histogram(
    "veyltak_seal_duration_seconds",
    "Time to seal a player's plan and resolve the night (row lock wait included).",
    buckets=_REQUEST_BUCKETS,
)
HEISTS_STARTED = Counter(
    "veyltak_heists_started", "Heists started, by difficulty and mode.", ["difficulty", "mode"]
)
HEISTS_FINISHED = Counter(
    "veyltak_heists_finished",
    "Heists played to their end, by difficulty and outcome for the player.",
    ["difficulty", "outcome"],
)
HEISTS_ABANDONED = Counter(
    "veyltak_heists_abandoned",
    "Heists closed before their end, by how: stale (no seal for HEIST_ABANDON_MINUTES), "
    "crowded (a start beyond HEIST_ACTIVE_MAX), staff.",
    ["how"],
)
DEBRIEFS_COMPUTED = Counter(
    "veyltak_debriefs_computed",
    "Heist debriefs worked out and stored, by who: the Celery task or the web fallback.",
    ["by"],
)

# --- Signs and the shop -------------------------------------------------------------------------
SIGNS_AWARDED = Counter(
    "veyltak_signs_awarded",
    "Signs paid into players' wallets, by reason (heist, featured, welcome, grant...).",
    ["reason"],
)
PURCHASES = Counter("veyltak_purchases", "Shop purchases made, by item kind.", ["kind"])


def _after_commit(counter, amount: float = 1) -> None:
    # Outside any transaction on_commit runs at once.
    transaction.on_commit(lambda: counter.inc(amount))


def heist_started(*, difficulty: str, mode: str) -> None:
    _after_commit(HEISTS_STARTED.labels(difficulty, mode))


def heist_finished(*, difficulty: str, outcome: str) -> None:
    _after_commit(HEISTS_FINISHED.labels(difficulty, outcome))


def heists_abandoned(*, how: str, count: int) -> None:
    if count:
        _after_commit(HEISTS_ABANDONED.labels(how), count)


def rival_decided(*, difficulty: str, seconds: float) -> None:
    RIVAL_DECISION_SECONDS.labels(difficulty).observe(seconds)


def rival_plan_sealed(*, by: str) -> None:
    RIVAL_PLANS_SEALED.labels(by).inc()


def seal_timed(seconds: float) -> None:
    SEAL_SECONDS.observe(seconds)


def debrief_computed(*, by: str) -> None:
    """A debrief was stored (``by``: "task" or "web"): call it where the debrief service stores
    one, after the fact (it counts once its transaction commits)."""
    _after_commit(DEBRIEFS_COMPUTED.labels(by))


def signs_awarded(*, reason: str, amount: int) -> None:
    if amount > 0:
        _after_commit(SIGNS_AWARDED.labels(reason), amount)


def purchase_made(*, kind: str) -> None:
    _after_commit(PURCHASES.labels(kind))
