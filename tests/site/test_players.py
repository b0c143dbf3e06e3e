"""The benchmarks' load client (bench/players.py) against a scripted server: a seal answered
409 rival_not_sealed polls the view and seals again, a 429 waits Retry-After, anything else is
a failed heist; the view is polled with the ETag of the last read, as the board does."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.players import Player, Stats

VIEW = {
    "id": "h1",
    "status": "active",
    "night": 1,
    "phase": "planning",
    "vaults": [{"slug": "a", "closed": False}],
    "you": {"heat": 0, "energy": 3, "hand": [{"card": "c1", "crew": "lookout"}]},
}


class Scripted(BaseHTTPRequestHandler):
    seal_answers: list[tuple[int, dict, dict]] = []
    view_answers: list[tuple[int, dict | None, dict]] = []  # else VIEW, 200
    views_served = 0
    asked_with: list[str | None] = []

    def _answer(self, status: int, body: dict, headers: dict | None = None) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        type(self).views_served += 1
        type(self).asked_with.append(self.headers.get("If-None-Match"))
        if type(self).view_answers:
            status, body, headers = type(self).view_answers.pop(0)
            if body is None:  # 304: no body
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                return
            self._answer(status, body, headers)
            return
        self._answer(200, VIEW)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        status, body, headers = type(self).seal_answers.pop(0)
        self._answer(status, body, headers)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _player(base: str) -> Player:
    player = Player(base, 0, Stats(), poll=0.01)
    player.costs = {"lookout": 1}
    return player


def _error(code: str) -> dict:
    return {"error": {"code": code, "message": code}}


def test_seal_retries_after_rival_not_sealed_and_after_429(server):
    finished = {**VIEW, "status": "finished", "phase": "finished"}
    Scripted.views_served = 0
    Scripted.seal_answers = [
        (409, _error("rival_not_sealed"), {}),
        (429, _error("rate_limited"), {"Retry-After": "0.2"}),
        (200, {"result": {}, "heist": finished}, {}),
    ]
    player = _player(server)
    after = player.seal(dict(VIEW))
    assert after == finished
    assert player.stats.not_sealed == 1 and player.stats.throttled == 1
    assert Scripted.views_served >= 1  # it looked at the board again before sealing again
    assert player.stats.errors == [] and len(player.stats.seal) == 1


@pytest.mark.parametrize(
    ("status", "code"), [(409, "wrong_night"), (400, "over_energy"), (500, "server_error")]
)
def test_any_other_answer_fails_the_heist(server, status, code):
    Scripted.seal_answers = [(status, _error(code), {})]
    player = _player(server)
    assert player.seal(dict(VIEW)) is None
    assert len(player.stats.errors) == 1 and str(status) in player.stats.errors[0]


def test_the_view_is_polled_with_its_etag_and_a_304_keeps_it(server):
    planning = {**VIEW, "phase": "rival_planning"}
    Scripted.asked_with = []
    Scripted.view_answers = [
        (200, planning, {"ETag": '"a"'}),
        (304, None, {"ETag": '"a"'}),
        (304, None, {"ETag": '"a"'}),
        (200, VIEW, {"ETag": '"b"'}),
    ]
    player = _player(server)
    after = player.wait_planning({**planning, "phase": "rival_planning"})
    assert after == VIEW
    assert Scripted.asked_with == [None, '"a"', '"a"', '"a"']
    assert player.known == ("h1", '"b"', VIEW)
    assert player.stats.errors == []


def test_a_seals_answer_names_its_views_tag_and_the_next_read_sends_it(server):
    next_night = {**VIEW, "night": 2, "phase": "rival_planning"}
    Scripted.asked_with = []
    Scripted.seal_answers = [(200, {"result": {}, "heist": next_night}, {"Heist-ETag": '"n2"'})]
    Scripted.view_answers = [(304, None, {"ETag": '"n2"'}), (200, VIEW, {"ETag": '"n2s"'})]
    player = _player(server)
    held = player.seal(dict(VIEW))
    assert held == next_night and player.known == ("h1", '"n2"', next_night)
    assert player.wait_planning(held) == VIEW
    assert Scripted.asked_with == ['"n2"', '"n2"']
    assert player.stats.errors == []
