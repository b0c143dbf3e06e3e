"""The files of prometheus_client's multiprocess mode, kept from piling up.

Each process writes its own files in PROMETHEUS_MULTIPROC_DIR (``counter_<pid>.db``,
``histogram_<pid>.db``...) and a scrape adds them all up. A process that has exited leaves its
files behind, so that its counts are not lost; over restarts they pile up. Deleting them would
make the sums go down (to Prometheus a counter reset, which rate() reads as a burst of
everything the live processes had counted), so ``fold_dead_processes`` adds the counters and
histograms of dead processes into one file per kind (``counter_folded.db``...) and removes
theirs; a dead process's gauges mean nothing any more and are removed.

Called by gunicorn's master when it starts (gunicorn.conf.py), before any worker of its own
runs. No Django here: the master must not set it up.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
from collections import defaultdict

from prometheus_client.mmap_dict import MmapedDict

FOLDED = "folded"


def _alive(pid: str) -> bool:
    if not pid.isdigit():
        return True  # not a process's file (the folded ones)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pid(path: str) -> str:
    return os.path.basename(path)[: -len(".db")].rsplit("_", 1)[-1]


def fold_dead_processes(path: str) -> int:
    """Fold the files of processes that are no longer running; returns how many went."""
    with open(os.path.join(path, ".fold.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two servers starting at once fold one at a time
        gone = 0
        for kind in ("counter", "histogram"):
            dead = [f for f in glob.glob(os.path.join(path, f"{kind}_*.db")) if not _alive(_pid(f))]
            if not dead:
                continue
            folded = os.path.join(path, f"{kind}_{FOLDED}.db")
            totals: dict[str, float] = defaultdict(float)
            for f in [folded, *dead] if os.path.exists(folded) else dead:
                # Counters and histograms' buckets and sums add up, key by key.
                for key, value, _timestamp, _pos in MmapedDict.read_all_values_from_file(f):
                    totals[key] += value
            temp = os.path.join(path, f".{kind}_{FOLDED}.tmp")  # not *.db: no scrape reads it
            out = MmapedDict(temp)
            for key, value in totals.items():
                out.write_value(key, value, 0.0)
            out.close()
            os.replace(temp, folded)
            for f in dead:
                os.remove(f)
            gone += len(dead)
        for f in glob.glob(os.path.join(path, "gauge_*.db")):
            if not _alive(_pid(f)):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(f)
                gone += 1
        return gone
