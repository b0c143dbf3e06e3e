"""A web process hands the GIL on after 1 ms instead of Python's 5 (veyltak_site/wsgi.py), so a
thread whose query has answered does not wait behind a busy seal for long; an operator may
choose another interval (WEB_SWITCH_INTERVAL_MS)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHECK = "import sys, veyltak_site.wsgi; print(round(sys.getswitchinterval() * 1000, 3))"


def _run(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WEB_SWITCH_INTERVAL_MS"}
    return {**env, "DJANGO_SETTINGS_MODULE": "veyltak_site.settings", **extra}


def test_a_web_process_switches_every_millisecond():
    done = _run(_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1.0"
    # Python's own default, which the test process keeps: only the web's entry point sets it.
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_an_operators_interval_is_used_and_a_bad_one_refused():
    done = _run(_env(WEB_SWITCH_INTERVAL_MS="2.5"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2.5"
    refused = _run(_env(WEB_SWITCH_INTERVAL_MS="0"))
    assert refused.returncode != 0
    assert "WEB_SWITCH_INTERVAL_MS" in refused.stderr
