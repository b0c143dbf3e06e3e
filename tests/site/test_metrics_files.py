"""Multiprocess metrics files: processes that exited are folded into one file per kind when a
server starts, so files do not pile up and no sum ever goes down."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from veyltak_site.metrics_files import fold_dead_processes

# A process of the site, as far as its metrics go: it counts, times and exits.
PROCESS = """
from prometheus_client import Counter, Gauge, Histogram
Counter("t_things", "Things.", ["kind"]).labels("a").inc(2)
Histogram("t_seconds", "Seconds.", buckets=(0.1, 1.0)).observe(0.5)
Gauge("t_level", "A level.").set(7)
"""


def run_process(path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(path)}
    subprocess.run([sys.executable, "-c", PROCESS], env=env, check=True, timeout=60)


def sums(path) -> dict[tuple[str, tuple], float]:
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(path))
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in registry.collect()
        for s in family.samples
        if family.type != "gauge"
    }


def test_dead_processes_are_folded_and_every_sum_stays(tmp_path):
    for _ in range(3):
        run_process(tmp_path)
    # A process still running keeps its file (here: this test's, by its pid).
    live = tmp_path / f"counter_{os.getpid()}.db"
    shutil.copy(next(tmp_path.glob("counter_*.db")), live)
    before = sums(tmp_path)
    assert before[("t_things_total", (("kind", "a"),))] == 8
    assert before[("t_seconds_count", ())] == 3

    assert fold_dead_processes(str(tmp_path)) == 9  # 3 x (counter, histogram, gauge)
    left = sorted(p.name for p in tmp_path.glob("*.db"))
    assert left == sorted(["counter_folded.db", live.name, "histogram_folded.db"])
    assert sums(tmp_path) == before

    run_process(tmp_path)  # a later process, folded into what was folded before
    assert fold_dead_processes(str(tmp_path)) == 3
    after = sums(tmp_path)
    assert after[("t_things_total", (("kind", "a"),))] == 10
    assert after[("t_seconds_bucket", (("le", "1.0"),))] == 4
    assert after[("t_seconds_sum", ())] == 2.0
    assert fold_dead_processes(str(tmp_path)) == 0
