"""The load client the benchmarks share: players that play heists over the JSON API.

A player is one guest (its own requests.Session): it reads /api/v1/me/ for the CSRF cookie,
passes the age check, and plays as the browser board does: start a heist, poll the heist view
with a backoff until the rival has sealed (phase "planning"), each read with the ETag of the last
view in hand in ``If-None-Match`` (a 304 keeps it; a start's or a seal's answer names its view's
in ``Heist-ETag``), seal a random legal plan, and so on to the
end. A 409 ``rival_not_sealed`` from the seal route means "poll the view and seal
again"; a 429 means "wait Retry-After and try again". Any other failure is counted as such.
Used by bench/api.py, bench/soak.py and the runner's tests; loopback traffic only.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from dataclasses import dataclass, field

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

DIFFICULTIES = ["rookie", "hustler", "safecracker", "kingpin"]
RIVALS = ["furnace", "quiet-hands", "the-reader", "split-circuit"]
ADULT_BIRTH_DATE = "1990-04-02"
REQUEST_TIMEOUT = 15
# The longest a player honours one Retry-After (the soak is bounded in time).
MAX_RETRY_AFTER = 30.0


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def random_plan(view: dict, costs: dict[str, int], rng: random.Random) -> dict:
    """A random legal seal body, worked out from the heist view as a player sees it: one or two
    crew of the hand that the Energy pays for (``costs``: crew slug -> cost), each to an open
    vault, Boosting about a third of the time below Heat 6. Also the locust players' plan
    (tests/load/locustfile.py)."""
    you = view["you"]
    vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
    hand = list(you["hand"])
    rng.shuffle(hand)
    crew, spent = [], 0
    for card in hand[: rng.randint(1, 2)]:
        cost = costs[card["crew"]]
        if spent + cost <= you["energy"] and vaults:
            crew.append({"card": card["card"], "vault": rng.choice(vaults)})
            spent += cost
    boost = bool(crew) and you["heat"] < 6 and rng.random() < 0.35
    return {"night": view["night"], "crew": crew, "boost": boost}


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    seal: list[float] = field(default_factory=list)
    start: list[float] = field(default_factory=list)
    view: list[float] = field(default_factory=list)
    rival_wait: list[float] = field(default_factory=list)
    trivial: list[float] = field(default_factory=list)
    burst: list[float] = field(default_factory=list)
    heists: int = 0
    failed_heists: int = 0
    requests: int = 0
    not_sealed: int = 0  # 409 rival_not_sealed answers (then the view is polled again)
    throttled: int = 0  # 429 answers (then Retry-After is waited)
    errors: list[str] = field(default_factory=list)
    finished_ids: list[str] = field(default_factory=list)

    def add(self, name: str, value: float) -> None:
        with self.lock:
            getattr(self, name).append(value)
            self.requests += 1

    def count(self, name: str) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + 1)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


class Player:
    def __init__(
        self,
        base: str,
        index: int,
        stats: Stats,
        *,
        difficulty: str = "mixed",
        think: float = 0.0,
        poll: float = 0.1,
        max_heists: int = 10**9,
        wait_limit: float = 60.0,
    ) -> None:
        self.base = base
        self.stats = stats
        self.rng = random.Random(index)
        self.index = index
        self.difficulty = difficulty
        self.think = think
        self.poll = poll
        self.max_heists = max_heists
        self.wait_limit = wait_limit  # the longest a player waits for the rival in one night
        self.session = requests.Session()
        # As a browser does: a read (GET) whose reused keep-alive connection the server closed at
        # that moment is sent once more; a write is never resent (it fails the heist instead).
        retry = Retry(total=1, connect=1, read=1, other=0, status=0, allowed_methods={"GET"})
        self.session.mount("http://", HTTPAdapter(max_retries=retry))
        self.costs: dict[str, int] = {}
        self.ready: list[dict | None] = []
        self.started = 0
        self.known: tuple[str, str, dict] | None = None  # the last view read: heist, ETag, view

    @classmethod
    def from_args(cls, base: str, index: int, stats: Stats, args: argparse.Namespace) -> Player:
        return cls(
            base,
            index,
            stats,
            difficulty=args.difficulty,
            think=args.think,
            poll=args.poll,
            max_heists=args.max_heists,
        )

    def _csrf(self) -> dict[str, str]:
        return {"X-CSRFToken": self.session.cookies.get("csrftoken", "")}

    def _send(
        self, method: str, path: str, body: dict | None = None, headers: dict | None = None
    ) -> requests.Response:
        while True:
            response = self.session.request(
                method,
                self.base + path,
                json=body,
                headers={**(self._csrf() if method != "GET" else {}), **(headers or {})},
                timeout=REQUEST_TIMEOUT,
            )
            if response.status_code != 429:
                return response
            self.stats.count("throttled")
            try:
                wait = float(response.headers.get("Retry-After", "1"))
            except ValueError:
                wait = 1.0
            time.sleep(min(max(wait, 0.1), MAX_RETRY_AFTER))

    def post(self, path: str, body: dict) -> requests.Response:
        return self._send("POST", path, body)

    def get(self, path: str) -> requests.Response:
        return self._send("GET", path)

    def join(self) -> None:
        """A new guest: the CSRF cookie (GET /me/), the age check, the catalogue."""
        self.get("/api/v1/me/").raise_for_status()
        response = self.post("/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE})
        if response.status_code != 200:
            raise RuntimeError(f"age check refused: {response.status_code} {response.text}")
        self.costs = {c["slug"]: c["cost"] for c in self.get("/api/v1/crew/").json()}

    def plan(self, view: dict) -> dict:
        return random_plan(view, self.costs, self.rng)

    def wait_planning(self, view: dict, deadline: float | None = None) -> dict | None:
        """Poll the heist view until the rival has sealed, as the board does; None on failure."""
        t0 = time.perf_counter()
        give_up = time.monotonic() + self.wait_limit
        if deadline is not None:
            give_up = min(give_up, deadline + 30)
        pause = 0.0  # look once right away (the view in hand may be from before thinking)
        while view["phase"] == "rival_planning":
            if time.monotonic() > give_up:
                self.stats.error(f"rival never sealed night {view['night']} of {view['id']}")
                return None
            # Then back off like the browser board does (static/js/board.js: 800 ms x 1.5),
            # from a shorter first wait.
            time.sleep(pause)
            pause = min(max(pause * 1.5, self.poll), 1.0)
            t = time.perf_counter()
            read = self.read_view(view["id"])
            self.stats.add("view", time.perf_counter() - t)
            if read is None:
                return None
            view = read
        self.stats.add("rival_wait", time.perf_counter() - t0)
        with self.stats.lock:
            self.stats.requests -= 1  # rival_wait is a measure, not a request
        return view

    def read_view(self, heist_id: str) -> dict | None:
        """GET the heist view as the board does: with the ETag of the last read in
        ``If-None-Match``; a 304 (unchanged) keeps the view in hand. None on failure."""
        path = f"/api/v1/heists/{heist_id}/"
        known = self.known if self.known and self.known[0] == heist_id else None
        response = self._send("GET", path, headers={"If-None-Match": known[1]} if known else None)
        if response.status_code == 304 and known:
            return known[2]
        if response.status_code != 200:
            self.stats.error(f"GET heist {response.status_code}: {response.text[:200]}")
            return None
        view = response.json()
        etag = response.headers.get("ETag")
        self.known = (heist_id, etag, view) if etag else None
        return view

    def seal(self, view: dict, deadline: float | None = None) -> dict | None:
        """Seal a plan for the night in view; the heist view after it, or None on failure."""
        give_up = time.monotonic() + self.wait_limit
        while True:
            view = self.wait_planning(view, deadline)
            if view is None:
                return None
            t = time.perf_counter()
            response = self.post(f"/api/v1/heists/{view['id']}/seal/", self.plan(view))
            elapsed = time.perf_counter() - t
            if response.status_code == 200:
                self.stats.add("seal", elapsed)
                return self.hold(response, response.json()["heist"])
            if response.status_code == 409 and _code(response) == "rival_not_sealed":
                # The rival has not sealed yet: look at the board again, then seal.
                self.stats.count("not_sealed")
                if time.monotonic() > give_up:
                    self.stats.error(f"seal kept answering rival_not_sealed for {view['id']}")
                    return None
                time.sleep(self.poll)
                view = {**view, "phase": "rival_planning"}
                continue
            self.stats.error(f"seal {response.status_code}: {response.text[:200]}")
            return None

    def start_heist(self) -> dict | None:
        body = {
            "rival": RIVALS[(self.index + self.started) % len(RIVALS)],
            "difficulty": (
                DIFFICULTIES[(self.index + self.started) % 4]
                if self.difficulty == "mixed"
                else self.difficulty
            ),
        }
        self.started += 1
        t = time.perf_counter()
        response = self.post("/api/v1/heists/", body)
        self.stats.add("start", time.perf_counter() - t)
        if response.status_code != 201:
            self.stats.error(f"start {response.status_code}: {response.text[:200]}")
            return None
        return self.hold(response, response.json())

    def hold(self, response: requests.Response, view: dict) -> dict:
        """Keep the view a start or a seal answered with the tag its answer names for it
        (``Heist-ETag``), as the board does: the next read is a 304 while the rival plans."""
        tag = response.headers.get("Heist-ETag")
        self.known = (view["id"], tag, view) if tag else None
        return view

    def play_heist(self, deadline: float | None = None) -> bool:
        """Play one heist from start to end (the next one starts only after it)."""
        try:
            view = self.start_heist()
            while view is not None and view["status"] == "active":
                if self.think:
                    # The player studies the board while the rival plans.
                    time.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                view = self.seal(view, deadline)
        except requests.RequestException as exc:
            self.stats.error(f"request failed: {exc}")
            view = None
        with self.stats.lock:
            if view is None:
                self.stats.failed_heists += 1
            else:
                self.stats.heists += 1
                self.stats.finished_ids.append(view["id"])
        return view is not None

    def play(self, deadline: float) -> None:
        """Play heists until the deadline; stop at the first failure (bench/api.py)."""
        heists = 0
        while time.monotonic() < deadline and heists < self.max_heists:
            if not self.play_heist(deadline):
                return
            heists += 1

    def prepare_burst(self, count: int) -> None:
        """Start ``count`` heists and wait until the rival has sealed night 1 of each."""
        self.ready = []
        for i in range(count):
            body = {"rival": RIVALS[(self.index + i) % len(RIVALS)], "difficulty": "rookie"}
            response = self.post("/api/v1/heists/", body)
            if response.status_code != 201:
                self.stats.error(f"start {response.status_code}: {response.text[:200]}")
                return
            self.ready.append(response.json())
        self.ready = [self.wait_planning(v, time.monotonic() + 30) for v in self.ready]

    def seal_burst(self, deadline: float) -> None:
        """Seal night 1 of every prepared heist, back to back: the seal route's throughput."""
        for view in self.ready:
            if view is None or time.monotonic() > deadline:
                continue
            t = time.perf_counter()
            response = self.post(f"/api/v1/heists/{view['id']}/seal/", self.plan(view))
            self.stats.add("burst", time.perf_counter() - t)
            if response.status_code != 200:
                self.stats.error(f"seal {response.status_code}: {response.text[:200]}")

    def hammer_trivial(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            t = time.perf_counter()
            response = self.get("/api/v1/crew/")
            self.stats.add("trivial", time.perf_counter() - t)
            if response.status_code != 200:
                self.stats.error(f"crew {response.status_code}")
                return


def _code(response: requests.Response) -> str | None:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
