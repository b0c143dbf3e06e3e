"""Several database clients at once: each target in a thread of its own (its own connection,
real commits), all released together."""

from __future__ import annotations

import threading

from django.db import connection


def run_threads(*targets):
    """Run each target in its own thread (own DB connection), started together."""
    barrier = threading.Barrier(len(targets))
    results: list = [None] * len(targets)
    errors: list = []

    def runner(i, target):
        try:
            barrier.wait(timeout=10)
            results[i] = target()
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results
