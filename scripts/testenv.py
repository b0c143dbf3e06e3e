"""Choose the services the test suite runs against, say which, then run pytest.

PostgreSQL and Redis are used when they answer on 127.0.0.1 (or where DATABASE_URL / REDIS_URL
point); otherwise SQLite and the on-disk broker, with PostgreSQL-only tests skipped. With CI=true
both are required: a missing one fails the run instead of silently falling back.
"""

import os
import socket
import sys
from urllib.parse import urlsplit

DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/veyltak"
DEFAULT_REDIS = "redis://127.0.0.1:6379"


def _answers(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or default_port), timeout=1
        ):
            return True
    except OSError:
        return False


def _postgres_ready(url: str) -> tuple[bool, str]:
    if not _answers(url, 5432):
        return False, "nothing listens"
    import psycopg

    parts = urlsplit(url)
    try:
        # Connect to the maintenance database: the test database is created by pytest-django.
        psycopg.connect(
            host=parts.hostname,
            port=parts.port or 5432,
            user=parts.username or "postgres",
            password=parts.password,
            dbname="postgres",
            connect_timeout=3,
        ).close()
    except psycopg.Error as exc:
        return False, str(exc).strip()
    return True, "ok"


def main() -> int:
    ci = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
    env = os.environ.copy()

    pg_url = env.get("DATABASE_URL") or DEFAULT_PG
    pg_ok, pg_why = (
        _postgres_ready(pg_url) if pg_url.startswith("postgres") else (False, "not PostgreSQL")
    )
    redis_base = (env.get("REDIS_URL") or DEFAULT_REDIS).rstrip("/")
    redis_base = redis_base.rsplit("/", 1)[0] if redis_base.count("/") > 2 else redis_base
    redis_ok = _answers(redis_base, 6379)

    if ci and not (pg_ok and redis_ok):
        missing = [name for name, ok in (("PostgreSQL", pg_ok), ("Redis", redis_ok)) if not ok]
        print(
            f"CI=true needs PostgreSQL and Redis; not answering: {', '.join(missing)} "
            f"(PostgreSQL: {pg_why}).",
            file=sys.stderr,
        )
        return 2

    if pg_ok:
        env["DATABASE_URL"] = pg_url
    else:
        env.pop("DATABASE_URL", None)
    if redis_ok:
        # Separate Redis databases for the test broker and cache, away from a local `make run`.
        broker_db = env.get("TEST_REDIS_BROKER_DB", "14")
        cache_db = env.get("TEST_REDIS_CACHE_DB", "15")
        env["CELERY_BROKER_URL"] = f"{redis_base}/{broker_db}"
        env["REDIS_URL"] = f"{redis_base}/{cache_db}"
    else:
        env.pop("REDIS_URL", None)
        env["CELERY_BROKER_URL"] = "filesystem://"
    env.setdefault("VEYLTAK_VAR_DIR", os.path.join(os.getcwd(), "var", "test"))
    env["STATIC_PLAIN"] = "1"

    print(
        "tests use: "
        + (
            f"PostgreSQL at {urlsplit(pg_url).hostname}:{urlsplit(pg_url).port or 5432}"
            if pg_ok
            else f"SQLite (PostgreSQL not available: {pg_why}; PostgreSQL-only tests are skipped)"
        )
        + ", "
        + (f"Redis at {redis_base}" if redis_ok else "the on-disk broker (Redis not available)"),
        flush=True,
    )
    args = [sys.executable, "-m", "pytest", *sys.argv[1:]]
    os.execve(sys.executable, args, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
