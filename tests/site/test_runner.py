"""The local stack under scripts/runner.py, as `make run` starts it: a worker killed outright
is restarted while the site keeps serving heists; SIGTERM stops every process by itself; a
runner killed outright leaves nothing behind."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from bench.players import Player, Stats
from tests.support.stack import Stack, prepare, processes_of, rival_plans_per_night

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def var(tmp_path_factory):
    path = tmp_path_factory.mktemp("stack")
    prepare(path)
    return path


@pytest.fixture
def stack(var):
    started: list[Stack] = []

    def start(**kwargs) -> Stack:
        s = Stack(var, **kwargs)
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill_everything()
    assert processes_of(var) == []


class TimedPlayer(Player):
    """A player that notes when each of its seals was answered."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sealed_at: list[float] = []

    def seal(self, view, deadline=None):
        after = super().seal(view, deadline)
        if after is not None:
            self.sealed_at.append(time.monotonic())
        return after


def test_worker_killed_outright_is_restarted_and_every_heist_finishes(stack, var):
    # A short heartbeat, so that /healthz notices the worker's absence within the test; and a
    # short fallback, so that the web seals the rival while the worker is away: the runner has a
    # solo worker back within about 3 s, the default fallback's time.
    s = stack(
        WORKER_HEARTBEAT_SECONDS="0.3", WORKER_SILENT_SECONDS="1.5", RIVAL_FALLBACK_SECONDS="1"
    )
    s.wait_healthy()
    stats = Stats()
    players = [TimedPlayer(s.base, i, stats, difficulty="mixed") for i in range(4)]
    for p in players:
        p.join()
    stop = threading.Event()

    def play(player: Player) -> None:
        while not stop.is_set():
            player.play_heist()

    threads = [threading.Thread(target=play, args=(p,)) for p in players]
    for t in threads:
        t.start()
    try:
        deadline = time.monotonic() + 120
        while stats.heists < 2:  # some heists finished with the first worker
            assert time.monotonic() < deadline and not stats.errors, (stats.errors, s.log())
            time.sleep(0.2)
        before = stats.heists
        old_worker = s.pid_of("worker")
        os.kill(old_worker, signal.SIGKILL)
        killed_at = time.monotonic()
        degraded = None
        while degraded is None and time.monotonic() < killed_at + 20:
            body = s.health()
            degraded = body if body["status"] == "degraded" else None
            time.sleep(0.2)
        assert degraded is not None, s.log()
        assert degraded["checks"]["worker"] == "degraded" and degraded["silent_workers"]
        s.wait_log(r"worker\s*\| exited \(signal SIGKILL\); restarting in")
        s.wait_log(r"worker\s*\| restart #1")
        s.wait_log(r"celery@\S+ ready\.", count=2)
        back_at = time.monotonic()
        assert s.pid_of("worker") != old_worker
        while stats.heists < before + 4:  # and play on with the new worker
            assert time.monotonic() < deadline + 120, (stats.errors, s.log())
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)

    assert stats.failed_heists == 0, stats.errors
    assert stats.errors == []
    assert stats.heists > before > 0
    # The site answered seals while no worker was there (the web's fallback sealed the rival).
    seals_while_away = sum(killed_at < at < back_at for p in players for at in p.sealed_at)
    assert seals_while_away > 0, s.log()
    # Only the worker was restarted; web and beat ran on.
    assert re.findall(r"(\w+)\s*\| restart #", s.log()) == ["worker"]
    plans = rival_plans_per_night(var, stats.finished_ids)
    assert len(plans) == stats.heists
    assert all(nights == [1] * 6 for nights in plans.values()), plans
    # Back to healthy with the new worker.
    assert s.wait_healthy()["checks"]["worker"] == "ok"
    assert s.stop() == 0, s.log()


@pytest.mark.parametrize("attempt", range(5))
def test_sigterm_stops_every_process_by_itself(stack, var, attempt):
    # The Warm-shutdown hang was intermittent: five times, each with rival turns in flight.
    s = stack()
    s.wait_healthy()
    stats = Stats()
    player = Player(s.base, attempt, stats, difficulty="kingpin")
    player.join()
    for _ in range(3):
        view = player.start_heist()
        assert view is not None, stats.errors  # its night 1 task is now on the worker
    pids = processes_of(var)
    # runner, gunicorn + its workers, each Celery worker + its pool, beat
    assert len(pids) >= 8
    started = time.monotonic()
    code = s.stop(signal.SIGTERM)
    took = time.monotonic() - started
    log = s.log()
    assert code == 0, log  # the runner killed nothing
    for name in ("web", "worker", "debrief", "beat"):
        assert f"{name:<7}| stopped by itself (code 0)" in log, log
    assert "SIGKILL" not in log and "left processes behind" not in log, log
    assert took < 15, log
    assert processes_of(var) == []


def test_runner_killed_outright_leaves_nothing_running(stack, var):
    s = stack()
    s.wait_healthy()
    assert len(processes_of(var)) >= 6
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait(timeout=10)
    deadline = time.monotonic() + 30
    while processes_of(var) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_of(var) == [], s.log()
