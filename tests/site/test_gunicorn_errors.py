"""Requests gunicorn itself refuses, before the site sees them, answer in the API's error shape
under `make run` (issue 27, S9): a request line over gunicorn's limit (414), a header with a
byte HTTP does not allow (400), too many headers (431). They were gunicorn's HTML page, even
under /api/. The web process is started from the Procfile's own line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.stack import ROOT, embedded_env, free_port


def _procfile_web() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError("no web line in the Procfile")


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    var: Path = tmp_path_factory.mktemp("gunicorn-var")
    port = free_port()
    env = embedded_env(var, VEYLTAK_PORT=str(port))
    log = open(var / "web.log", "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {_procfile_web()}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, (var / "web.log").read_text()
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            break
        time.sleep(0.2)
    yield port
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)
    log.close()


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize(
    ("name", "request_bytes", "status"),
    [
        ("long line", b"GET /api/v1/" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ("bad header", b"GET /api/v1/me/ HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n", 400),
        (
            "many headers",
            b"GET /api/v1/me/ HTTP/1.1\r\nHost: x\r\n"
            + b"".join(b"X-H%d: v\r\n" % i for i in range(150))
            + b"\r\n",
            431,
        ),
    ],
)
def test_gunicorns_own_refusals_answer_in_the_error_shape(web, name, request_bytes, status):
    got, headers, body = _raw(web, request_bytes)
    assert got == status, (name, body[:300])
    assert headers["content-type"].startswith("application/json"), (name, headers)
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message"}
    assert error["code"] and error["code"].islower() and error["message"].endswith(".")
    assert "<html" not in body.decode().lower()
    assert int(headers["content-length"]) == len(body)


def test_requests_gunicorn_parses_still_reach_the_site(web):
    status, _, body = _raw(web, b"GET /api/v1/nowhere/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 404 and json.loads(body)["error"]["code"] == "not_found"
