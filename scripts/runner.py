"""Run the processes of a Procfile together; restart one that dies; stop them all cleanly.

    python scripts/runner.py [--procfile Procfile] [--grace 20]

Why not honcho (what `make run` used before): one process that died stopped all the others, so a
worker crash took the site down (issue 10), and it signalled each process group, so the Celery
pool's children were killed under their parent's feet and the worker could hang on a lock in its
shutdown (issue 19). Here:

- each process runs in a session of its own (a terminal's Ctrl-C reaches only this runner) and
  gets SIGTERM from the kernel if the runner dies, even by SIGKILL (Linux PR_SET_PDEATHSIG);
- a process that dies is restarted after 1, 2, 4 ... 30 s (back to 1 s once it has run for
  10 s: the backoff is for one that cannot start), logged; the others keep running;
- on SIGTERM, SIGINT or SIGHUP the runner sends SIGTERM to each process (not to its children:
  gunicorn and Celery stop their own), waits for them, and only after ``--grace`` seconds kills
  what is left, saying so. A second signal kills at once. The exit code is 0 when every process
  stopped by itself.
- every process gets one PROMETHEUS_MULTIPROC_DIR (``VEYLTAK_VAR_DIR/metrics`` unless it is set),
  emptied of the last run's files first: the runner starts every process that writes there, so
  the counts start again from zero together (veyltak_site/metrics_files.py says why the site
  itself never deletes a live count).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import glob
import os
import selectors
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
MAX_BACKOFF = 30.0
# A process that ran this long had started properly: its death starts the backoff again.
STABLE_SECONDS = 10.0


def log(name: str, text: str) -> None:
    sys.stdout.write(f"{time.strftime('%H:%M:%S')} {name:<7}| {text}\n")
    sys.stdout.flush()


def parse_procfile(text: str) -> dict[str, str]:
    processes: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, command = line.partition(":")
        if not sep or not name.strip().isidentifier() or not command.strip():
            raise SystemExit(f"Procfile line {number}: expected 'name: command', got {line!r}")
        processes[name.strip()] = command.strip()
    return processes


def backoff(failures: int) -> float:
    return min(MAX_BACKOFF, 2.0 ** max(0, failures - 1))


def _child_setup(runner_pid: int) -> None:
    """In the child, before exec: die with the runner, even if it is killed outright."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != runner_pid:  # the runner died before the line above took effect
        os._exit(1)


def procfile_env() -> dict[str, str]:
    """The Procfile names bare commands (gunicorn, celery): the ones installed beside the
    interpreter that runs this runner come first (`make run`: .venv/bin)."""
    bin_dir = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}


def describe(code: int) -> str:
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"code {code}"


class Process:
    def __init__(self, name: str, command: str) -> None:
        self.name, self.command = name, command
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.failures = 0
        self.restart_at: float | None = None
        self.restarts = 0
        self.buffer = b""

    def start(self, selector: selectors.BaseSelector) -> None:
        runner_pid = os.getpid()
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", f"exec {self.command}"],  # exec: the process is the command itself
            env=procfile_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: _child_setup(runner_pid),
        )
        self.started = time.monotonic()
        self.restart_at = None
        self.term_sent = False
        self.open = True
        os.set_blocking(self.proc.stdout.fileno(), False)
        selector.register(self.proc.stdout, selectors.EVENT_READ, self)
        log(self.name, f"started (pid {self.proc.pid}): {self.command}")

    def pump(self, selector: selectors.BaseSelector, final: bool = False) -> None:
        chunk = None
        with contextlib.suppress(BlockingIOError):
            while self.open and (chunk := self.proc.stdout.read(65536)):
                self.buffer += chunk
        if self.open and (chunk == b"" or final):  # end of output (or of the process)
            self.open = False
            selector.unregister(self.proc.stdout)
            self.proc.stdout.close()
        *lines, self.buffer = self.buffer.split(b"\n")
        if final and self.buffer:
            lines, self.buffer = [*lines, self.buffer], b""
        for line in lines:
            log(self.name, line.decode("utf-8", "replace").rstrip())

    def group_alive(self) -> bool:
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def kill_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)


class Runner:
    def __init__(self, processes: dict[str, str], grace: float) -> None:
        self.processes = [Process(n, c) for n, c in processes.items()]
        self.grace = grace
        self.selector = selectors.DefaultSelector()
        self.stopping: float | None = None
        self.forced = False
        self.killed: list[str] = []

    def on_signal(self, signum, frame) -> None:
        # Only flags here; the loop below acts on them within 0.2 s.
        if self.stopping is None:
            log("runner", f"{signal.Signals(signum).name}: stopping every process")
            self.stopping = time.monotonic()
        else:
            log("runner", f"{signal.Signals(signum).name} again: killing what is left")
            self.forced = True

    def reap(self, p: Process) -> None:
        code = p.proc.wait()
        p.pump(self.selector, final=True)
        leftovers = p.group_alive()
        if self.stopping is not None:
            how = "was killed" if p.name in self.killed else "stopped by itself"
            log(p.name, f"{how} ({describe(code)})")
            if leftovers:
                log(p.name, "left processes behind in its group: SIGTERM to them")
                p.kill_group(signal.SIGTERM)
            return
        if leftovers:
            p.kill_group(signal.SIGTERM)  # e.g. pool children of a worker killed outright
        p.failures = 1 if time.monotonic() - p.started >= STABLE_SECONDS else p.failures + 1
        delay = backoff(p.failures)
        p.restart_at = time.monotonic() + delay
        log(p.name, f"exited ({describe(code)}); restarting in {delay:g} s")

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self.on_signal)
        for p in self.processes:
            p.start(self.selector)
        while True:
            for key, _ in self.selector.select(timeout=0.2):
                key.data.pump(self.selector)
            now = time.monotonic()
            for p in self.processes:
                if p.proc.returncode is None and p.proc.poll() is not None:
                    self.reap(p)
                if self.stopping is not None and p.proc.returncode is None and not p.term_sent:
                    # To the process only, not its group: gunicorn and Celery stop their own
                    # children, and a pool child killed under its parent can hang the worker.
                    p.term_sent = True
                    with contextlib.suppress(ProcessLookupError):
                        p.proc.send_signal(signal.SIGTERM)
                if self.stopping is None and p.restart_at is not None and now >= p.restart_at:
                    p.restarts += 1
                    log(p.name, f"restart #{p.restarts}")
                    p.start(self.selector)
            if self.stopping is None:
                continue
            alive = [p for p in self.processes if p.proc.returncode is None or p.group_alive()]
            if not alive:
                break
            if self.forced or now - self.stopping > self.grace:
                for p in alive:
                    log(p.name, f"did not stop within {self.grace:g} s: SIGKILL to its group")
                    self.killed.append(p.name)
                    p.kill_group(signal.SIGKILL)
                self.forced, self.stopping = False, float("inf")
        log("runner", "every process stopped" + (f"; killed: {self.killed}" if self.killed else ""))
        return 1 if self.killed else 0


def metrics_dir() -> str:
    """Where the processes' metrics files go, made and emptied (only prometheus_client's files:
    the folder may be one the operator named)."""
    default = os.path.join(os.environ.get("VEYLTAK_VAR_DIR") or "var", "metrics")
    path = os.path.abspath(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or default)
    os.makedirs(path, exist_ok=True)
    for pattern in ("*.db", ".*.tmp"):
        for leftover in glob.glob(os.path.join(path, pattern)):
            os.remove(leftover)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--procfile", default="Procfile")
    parser.add_argument("--grace", type=float, default=20.0, help="seconds before SIGKILL")
    args = parser.parse_args()
    with open(args.procfile) as fh:
        processes = parse_procfile(fh.read())
    if not processes:
        raise SystemExit(f"{args.procfile}: no processes")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir()
    return Runner(processes, args.grace).run()


if __name__ == "__main__":
    sys.exit(main())
