"""scripts/runner.py on small stand-in processes: restart with backoff, stop, leftovers, and
the SIGKILL it must report when a process does not stop by itself."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

SCRIPT = Path(settings.BASE_DIR) / "scripts" / "runner.py"
PY = sys.executable


def _module():
    spec = importlib.util.spec_from_file_location("runner", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_procfile_parsing():
    runner = _module()
    text = "# comment\n\nweb: gunicorn app --bind :${PORT}\nworker:celery -A x worker\n"
    assert runner.parse_procfile(text) == {
        "web": "gunicorn app --bind :${PORT}",
        "worker": "celery -A x worker",
    }
    with pytest.raises(SystemExit, match="line 1"):
        runner.parse_procfile("no colon here")


def test_backoff_doubles_up_to_thirty_seconds():
    runner = _module()
    assert [runner.backoff(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]


class Toy:
    def __init__(self, tmp_path: Path, procfile: str, grace: float = 5) -> None:
        (tmp_path / "Procfile").write_text(procfile)
        self.log_path = tmp_path / "runner.log"
        # Every process of this toy carries the mark, so clean-up finds them all.
        self.mark = f"RUNNER_TOY={uuid.uuid4().hex}"
        with open(self.log_path, "wb") as fh:
            self.proc = subprocess.Popen(
                [PY, str(SCRIPT), "--procfile", "Procfile", "--grace", str(grace)],
                cwd=tmp_path,
                env={**os.environ, "RUNNER_TOY": self.mark.split("=")[1]},
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def processes(self) -> list[int]:
        found = []
        for entry in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError):
                if self.mark.encode() in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
        return found

    def kill_everything(self) -> None:
        """Clean-up after a failed test: nothing of the toy may outlive it."""
        for pid in [self.proc.pid, *self.processes()]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text()

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.log())) < count:
            assert time.monotonic() < deadline, self.log()
            time.sleep(0.05)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


@pytest.fixture
def toys():
    made: list[Toy] = []
    yield lambda *args, **kwargs: made.append(Toy(*args, **kwargs)) or made[-1]
    for toy in made:
        toy.kill_everything()


def _sleeper(text: str = "up") -> str:
    return f"{PY} -c \"import time; print('{text}', flush=True); time.sleep(60)\""


def test_a_process_that_dies_is_restarted_with_backoff_and_the_others_run_on(tmp_path, toys):
    crash = f"{PY} -c \"import sys; print('bye', flush=True); sys.exit(2)\""
    toy = toys(tmp_path, f"steady: {_sleeper()}\ncrashy: {crash}\n")
    try:
        toy.wait_for(r"crashy\s+\| exited \(code 2\); restarting in 1 s")
        toy.wait_for(r"crashy\s+\| restart #1")
        toy.wait_for(r"crashy\s+\| exited \(code 2\); restarting in 2 s")
        toy.wait_for(r"crashy\s+\| bye", count=2)
        assert len(re.findall(r"steady\s+\| started", toy.log())) == 1  # never touched
        assert toy.proc.poll() is None
    finally:
        assert toy.stop() == 0, toy.log()
    assert re.search(r"steady\s+\| stopped by itself \(signal SIGTERM\)", toy.log())
    assert toy.processes() == []


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace_and_reported(tmp_path, toys):
    stubborn = (
        f'{PY} -c "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); '
        "print('up', flush=True); time.sleep(60)\""
    )
    toy = toys(tmp_path, f"polite: {_sleeper()}\nstubborn: {stubborn}\n", grace=1)
    toy.wait_for(r"stubborn\s*\| up")
    toy.wait_for(r"polite\s+\| up")
    assert toy.stop() == 1  # not every process stopped by itself
    log = toy.log()
    assert re.search(r"stubborn\s*\| did not stop within 1 s: SIGKILL to its group", log)
    assert re.search(r"polite\s+\| stopped by itself", log)
    assert "killed: ['stubborn']" in log
    assert toy.processes() == []


def test_children_a_process_leaves_behind_are_stopped_too(tmp_path, toys):
    # The parent dies of SIGTERM at once; its child (same process group) would be an orphan.
    parent = (
        f"{PY} -c \"import subprocess, time; p = subprocess.Popen(['sleep', '60']); "
        "print('child', p.pid, flush=True); time.sleep(60)\""
    )
    toy = toys(tmp_path, f"parent: {parent}\n")
    toy.wait_for(r"parent\s+\| child \d+")
    child = int(re.search(r"child (\d+)", toy.log()).group(1))
    assert toy.stop() == 0, toy.log()
    assert re.search(r"parent\s+\| left processes behind in its group: SIGTERM", toy.log())
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text()
    assert toy.processes() == []
