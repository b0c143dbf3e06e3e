"""The local stack as `make run` starts it (scripts/runner.py with the Procfile), for tests.

Embedded defaults only (SQLite and the on-disk broker in a VEYLTAK_VAR_DIR of the test's own),
whatever services the rest of the suite uses. Every process it starts carries that
VEYLTAK_VAR_DIR in its environment, which is how a test finds what is left running.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import requests
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
EMBEDDED_DROP = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DATABASE_TEST_NAME")


def embedded_env(var: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED_DROP}
    env.update(VEYLTAK_VAR_DIR=str(var), STATIC_PLAIN="1", LOG_LEVEL="INFO", **extra)
    # The Procfile's bare commands, from this interpreter's virtualenv (as the runner finds them).
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def prepare(var: Path) -> None:
    """What `make run` does before it starts the runner: migrate, load the catalogue."""
    env = embedded_env(var)
    for step in (["migrate", "--noinput", "-v", "0"], ["load_catalogue"]):
        subprocess.run(
            [sys.executable, "manage.py", *step],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )


def free_port() -> int:
    # The port range this project's local runs use (8100-8199), then any.
    for port in [*range(8150, 8200), 0]:
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind(("127.0.0.1", port))
            return s.getsockname()[1]
    raise RuntimeError("no free port")


def processes_of(var: Path) -> list[int]:
    """Every running process started for this VEYLTAK_VAR_DIR (zombies are not running)."""
    needle = f"VEYLTAK_VAR_DIR={var}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


class Stack:
    def __init__(self, var: Path, *, grace: float = 20.0, **extra_env: str) -> None:
        self.var = var
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = var / f"runner-{uuid.uuid4().hex[:8]}.log"
        env = embedded_env(var, VEYLTAK_PORT=str(self.port), **extra_env)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "scripts/runner.py",
                    "--procfile",
                    "Procfile",
                    "--grace",
                    str(grace),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pid_of(self, name: str) -> int:
        """The pid of the latest start of a Procfile process, from the runner's log."""
        found = re.findall(rf"{name}\s*\| started \(pid (\d+)\)", self.log())
        assert found, self.log()
        return int(found[-1])

    def health(self) -> dict:
        return requests.get(self.base + "/healthz", timeout=5).json()

    def wait_healthy(self, timeout: float = 120) -> dict:
        deadline = time.monotonic() + timeout
        body: dict = {}
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log()
            with contextlib.suppress(requests.RequestException, ValueError):
                body = self.health()
                if body["status"] == "ok":
                    return body
            time.sleep(0.3)
        raise AssertionError(f"not healthy after {timeout} s: {body}\n{self.log()}")

    def wait_log(self, pattern: str, *, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.log())) < count:
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n{self.log()}"
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)

    def kill_everything(self) -> None:
        """Clean-up after a failed test: nothing of this stack may outlive it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        deadline = time.monotonic() + 15
        while (left := processes_of(self.var)) and time.monotonic() < deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)


def rival_plans_per_night(var: Path, heist_ids: list[str]) -> dict[str, list[int]]:
    """For each heist, its nights in order and whether each has a sealed rival plan (1/0)."""
    db = sqlite3.connect(f"file:{var / 'db.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        found: dict[str, list[int]] = {}
        for heist_id in heist_ids:
            rows = db.execute(
                "SELECT night, rival_commitment IS NOT NULL AND rival_plan IS NOT NULL "
                "FROM game_heistnight WHERE heist_id = ? ORDER BY night",
                (uuid.UUID(heist_id).hex,),
            ).fetchall()
            found[heist_id] = [int(sealed) for _, sealed in rows]
        return found
    finally:
        db.close()
