"""Every process of the site runs numpy's BLAS on one thread (veyltak_site/__init__.py): the
rival's small products lose CPU to BLAS threads (issue 29), and an operator may still choose."""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = "import veyltak_site, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


def _run(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_site_sets_one_blas_thread_before_numpy_loads():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _run(env) == "1"


def test_an_operators_own_value_stays():
    assert _run({**os.environ, "OPENBLAS_NUM_THREADS": "2"}) == "2"
