"""Throwaway servers for the chaos tests (tests/site/test_chaos.py): a PostgreSQL cluster
(initdb into a temporary folder, pg_ctl on a free port) and a Redis, both the test's own, so
stopping and killing them touches nothing else on the machine; and the site's processes (the
Procfile's web, worker and debrief commands) on them, started and killed by the test."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
PG_BINS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available() -> str | None:
    """Why the chaos tests cannot run here, or None."""
    if not PG_BINS or not (PG_BINS[0] / "initdb").exists():
        return "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql"
    if not shutil.which("redis-server"):
        return "no redis-server"
    return None


def _as_postgres(cmd: list[str]) -> list[str]:
    # initdb and the server refuse to run as root.
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class Postgres:
    def __init__(self, base: Path) -> None:
        self.bin = PG_BINS[0]
        # A folder the postgres user can reach (pytest's own are private to root).
        self.dir = Path(tempfile.mkdtemp(prefix="veyltak-chaos-pg-"))
        self.dir.chmod(0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/veyltak"
        subprocess.run(
            _as_postgres(
                [
                    str(self.bin / "initdb"),
                    "-D",
                    str(self.dir / "data"),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=180,
        )
        self.start()
        subprocess.run(
            _as_postgres(
                [
                    str(self.bin / "createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "-U",
                    "postgres",
                    "veyltak",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=60,
        )

    def _ctl(self, *args: str, check: bool = True) -> None:
        subprocess.run(
            _as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), *args]),
            check=check,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=on"
        self._ctl("-l", str(self.dir / "log"), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop", check=False)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    def __init__(self, base: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.log = base / "redis.log"
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=open(self.log, "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return
            time.sleep(0.1)
        raise RuntimeError("redis did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def _procfile() -> dict[str, str]:
    found = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if re.match(r"^[a-z]+:", line):
            name, command = line.split(":", 1)
            found[name] = command.strip()
    return found


class Site:
    """The Procfile's web (gunicorn), worker and debrief (Celery) on the throwaway servers."""

    def __init__(self, base: Path, pg: Postgres, redis: Redis, **extra: str) -> None:
        self.base_dir = base
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_TEST_NAME", "CELERY_TASK_ALWAYS_EAGER")
        }
        self.env.update(
            # The Procfile's bare commands, from this interpreter's virtualenv (as the runner).
            PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            DATABASE_URL=pg.url,
            REDIS_URL=f"{redis.url}/0",
            CELERY_BROKER_URL=f"{redis.url}/1",
            VEYLTAK_VAR_DIR=str(base / "var"),
            VEYLTAK_PORT=str(self.port),
            STATIC_PLAIN="1",
            LOG_LEVEL="INFO",
            WORKER_HEARTBEAT_SECONDS="1",
            WORKER_SILENT_SECONDS="4",
            **extra,
        )
        self.commands = _procfile()
        self.procs: dict[str, subprocess.Popen] = {}
        for step in (["migrate", "--noinput", "-v", "0"], ["load_catalogue"]):
            subprocess.run(
                [sys.executable, "manage.py", *step],
                cwd=ROOT,
                env=self.env,
                check=True,
                capture_output=True,
                timeout=600,
            )

    def start(self, name: str) -> subprocess.Popen:
        log = open(self.base_dir / f"{name}.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {self.commands[name]}"],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.base_dir / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Kill a process and everything it started (Celery's pool) at once."""
        proc = self.procs[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        proc.wait(timeout=30)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(requests.RequestException):
                if requests.get(self.url + "/healthz", timeout=5).status_code in (200, 503):
                    return
            time.sleep(0.3)
        raise AssertionError("the site did not answer:\n" + self.log("web")[-3000:])

    def stop_all(self) -> None:
        for name in list(self.procs):
            with contextlib.suppress(Exception):
                self.kill(name)


class Player:
    """A guest playing heists over HTTP as the board does: read the view, seal a plan (none
    sent: lie low, always legal), on 409 rival_not_sealed read again and retry."""

    def __init__(self, url: str, *, rival: str = "furnace", difficulty: str = "rookie") -> None:
        self.url = url
        self.http = requests.Session()
        self.start_body = {"rival": rival, "difficulty": difficulty}
        self.heists: list[str] = []
        # (heist, night) -> the rival's commitment the player saw before sealing
        self.seen: dict[tuple[str, int], str] = {}
        self.sealed: list[tuple[str, int]] = []  # seals the site answered 200
        self.answers: dict[int, int] = {}

    def _headers(self) -> dict:
        return {"X-CSRFToken": self.http.cookies.get("csrftoken", "")}

    def call(self, method: str, path: str, body: dict | None = None) -> requests.Response:
        if "csrftoken" not in self.http.cookies:
            self.http.get(self.url + "/api/v1/me/", timeout=30)
        response = self.http.request(
            method, self.url + path, json=body, headers=self._headers(), timeout=60
        )
        self.answers[response.status_code] = self.answers.get(response.status_code, 0) + 1
        return response

    def age_check(self) -> None:
        answer = self.call("POST", "/api/v1/age-check/", {"birth_date": "1990-04-02"})
        assert answer.status_code == 200, answer.text

    def start(self) -> dict:
        answer = self.call("POST", "/api/v1/heists/", self.start_body)
        assert answer.status_code == 201, answer.text
        view = answer.json()
        self.heists.append(view["id"])
        return view

    def step(self, heist_id: str) -> str:
        """One try at the night in play; returns the heist's status afterwards."""
        view = self.call("GET", f"/api/v1/heists/{heist_id}/")
        if view.status_code != 200:
            return "retry"
        view = view.json()
        if view["status"] != "active":
            return view["status"]
        night = view["night"]
        commitment = view["rival"].get("commitment")
        if not commitment:
            time.sleep(0.3)
            return "active"
        self.seen.setdefault((heist_id, night), commitment)
        assert self.seen[(heist_id, night)] == commitment, "the rival's commitment changed"
        sealed = self.call(
            "POST", f"/api/v1/heists/{heist_id}/seal/", {"night": night, "crew": [], "boost": False}
        )
        if sealed.status_code == 200:
            self.sealed.append((heist_id, night))
            return sealed.json()["heist"]["status"]
        if sealed.status_code >= 500:
            body = sealed.json() if "json" in sealed.headers.get("Content-Type", "") else None
            assert sealed.status_code == 503, sealed.text
            assert body is None or body["error"]["code"] == "service_unavailable", sealed.text
        return "active"

    def play(self, heist_id: str, *, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        status = "active"
        while status in ("active", "retry") and time.monotonic() < deadline:
            try:
                status = self.step(heist_id)
            except requests.RequestException:
                time.sleep(0.5)
        return status
