"""The rate limits' window (issue 27, S8): no stretch of a limit's length ever admits more than
the limit, at a window's edge as in the middle, on Redis and on the embedded file cache, with
requests sent all at once by many threads and processes.

Fixed clock windows let a limit's worth through at the end of one window and another right
after it (63 sign-ups in one clock hour at 50/h), and the file cache's counters were a read and
a write apart, so requests at the same moment overwrote each other's counts."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
from django.core.cache import caches
from django.test import RequestFactory

from veyltak_site import throttling
from veyltak_site.env import parse_rate

pytestmark = pytest.mark.django_db


def _request(address: str = "198.51.100.7"):
    request = RequestFactory().post("/api/v1/heists/", REMOTE_ADDR=address)
    request.session = None  # address only: nothing here needs a session
    return request


@pytest.fixture(params=["redis", "file"])
def backend(request, settings, tmp_path):
    """The cache the site runs on: Redis (this run's own database) or the embedded file cache."""
    if request.param == "file":
        settings.CACHES = {
            "default": {
                "BACKEND": "veyltak_site.cache.FileBasedCache",  # as `make run` has it
                "LOCATION": str(tmp_path / "cache"),
            }
        }
    elif "Redis" not in settings.CACHES["default"]["BACKEND"]:
        pytest.skip("Redis is not in use")
    caches["default"].clear()
    yield request.param
    caches["default"].clear()


def _limit(settings, rate: str) -> None:
    settings.RATE_LIMITS = {"heist_start": {"address": parse_rate(rate)}}


def _most_in_any_window(times: list[float], seconds: float) -> int:
    times = sorted(times)
    most, start = 0, 0
    for end, at in enumerate(times):
        while times[start] <= at - seconds:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_the_end_of_one_window_and_the_start_of_the_next_admit_one_limit(backend, settings):
    _limit(settings, "5/60s")
    request = _request()
    admitted = []
    # Five at 0:59 of a clock minute, then a request every second from 1:00 to 2:59.
    for at in [1_000_019.0 + i / 10 for i in range(5)] + [1_000_020.0 + i for i in range(120)]:
        if throttling.hit("heist_start", request, now=at) is None:
            admitted.append(at)
    assert len(admitted) >= 5  # the limit is met, not refused outright
    assert _most_in_any_window(admitted, 60) <= 5, admitted


def test_a_refusal_says_when_the_door_opens_and_it_does_then(backend, settings):
    _limit(settings, "3/60s")
    request = _request()
    now = 2_000_000.0
    for i in range(3):
        assert throttling.hit("heist_start", request, now=now + i) is None
    wait = throttling.hit("heist_start", request, now=now + 10)
    assert wait is not None and 1 <= wait <= 66
    assert throttling.hit("heist_start", request, now=now + 10 + wait) is None


def _burst(address: str, threads: int, barrier, out) -> None:
    def one():
        barrier.wait(timeout=30)
        out.put(throttling.hit("heist_start", _request(address)) is None)

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)


@pytest.mark.parametrize("rounds", range(3))
def test_requests_at_the_same_moment_from_many_processes_admit_the_limit_exactly(
    backend, settings, rounds
):
    # Four processes of eight threads each (a `make run` web process and its neighbours) send
    # one request each, all at once, at one address limited to 10 an hour.
    _limit(settings, "10/h")
    address = f"192.0.2.{40 + rounds}"
    context = multiprocessing.get_context("fork")
    processes, threads = 4, 8
    barrier = context.Barrier(processes * threads)
    out = context.Queue()
    children = [
        context.Process(target=_burst, args=(address, threads, barrier, out))
        for _ in range(processes)
    ]
    for child in children:
        child.start()
    answers = [out.get(timeout=60) for _ in range(processes * threads)]
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert answers.count(True) == 10, (backend, answers.count(True))
    # And after the burst, the address stays shut.
    assert throttling.hit("heist_start", _request(address)) is not None
