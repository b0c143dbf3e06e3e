"""Real players of VEYLTAK for locust: what bench/capacity.py steps up to find the capacity.

Each simulated player is one browser:

- joins as a guest who passes the age check (POST /api/v1/age-check/), or, for a share of them
  (``VEYLTAK_LOAD_SIGNIN_SHARE``, 0.3) when accounts are given (``VEYLTAK_LOAD_ACCOUNTS``, a JSON
  file of ``[email, password]`` pairs), signs in through the sign-in page as a browser does;
- reads the rivals (GET /api/v1/rivals/) and picks one, its level drawn 40% Rookie, 30% Hustler,
  20% Safecracker, 10% Kingpin, and starts a heist;
- each night reads the board while the rival plans, polling the heist view as the board does
  (static/js/board.js: after 0.8 s, then x1.5 up to 4 s, each read with the ETag of the view
  in hand in ``If-None-Match``, a 304 keeping it; a start's and a seal's answer name their
  view's in ``Heist-ETag``), thinks 3 s (``VEYLTAK_LOAD_THINK``),
  seals a random legal plan, and reads the reveal in the seal's answer; a 409
  ``rival_not_sealed`` is answered as the board does (read the view after 0.4 s, x1.5 up to 3 s,
  then seal again) and counted apart, not as a failure;
- between heists sometimes opens the shop (``VEYLTAK_LOAD_SHOP_PATH``: GET /api/v1/shop/ where
  the shop's catalogue is served; else the wallet, or a guest the crew catalogue) or the
  featured leaderboard.

Every player sends ``X-Forwarded-For`` with an address of its own (10.x.y.z): run the site with
``NUM_PROXIES=1`` and each player is counted as the separate person it stands for by the
per-address limits, as behind a real proxy. Nothing is lifted for the load.

``VEYLTAK_LOAD_STEPS`` (``users:seconds,...``) makes locust step through those numbers of
players, each held for its seconds (``VEYLTAK_LOAD_SPAWN_RATE`` players a second, 2). With
``VEYLTAK_LOAD_RECORD`` naming a file, every request (wall time, name, milliseconds, error) and
the start of each step are written there as JSON lines when locust stops: bench/capacity.py
reads them. Run by hand:

    .venv-dev/bin/locust -f tests/load/locustfile.py --headless -u 20 -r 2 -t 2m \\
        --host http://127.0.0.1:8000
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import time
from pathlib import Path

from locust import FastHttpUser, LoadTestShape, events, task

# bench/players.py: the random legal plan the other load clients send too.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from players import random_plan

LEVELS = (("rookie", 40), ("hustler", 30), ("safecracker", 20), ("kingpin", 10))
ADULT_BIRTH_DATE = "1990-04-02"
THINK = float(os.environ.get("VEYLTAK_LOAD_THINK", "3"))
SIGNIN_SHARE = float(os.environ.get("VEYLTAK_LOAD_SIGNIN_SHARE", "0.3"))
# The shop's catalogue once it is served; until then what exists: the wallet for a signed-in
# player, the crew catalogue (what the shop sells) for a guest, who has no wallet.
SHOP_PATH = os.environ.get("VEYLTAK_LOAD_SHOP_PATH", "")
BROWSE_SHARE = float(os.environ.get("VEYLTAK_LOAD_BROWSE_SHARE", "0.3"))
RECORD = os.environ.get("VEYLTAK_LOAD_RECORD", "")
# The board's polling of the view while the rival plans, and its waits after a 409.
POLL_FIRST, POLL_GROWTH, POLL_MAX = 0.8, 1.5, 4.0
RETRY_FIRST, RETRY_MAX, RETRY_READS = 0.4, 3.0, 30

_accounts: list[list[str]] = []
if os.environ.get("VEYLTAK_LOAD_ACCOUNTS"):
    _accounts = json.loads(Path(os.environ["VEYLTAK_LOAD_ACCOUNTS"]).read_text())
_next_account = itertools.count()
_next_player = itertools.count(1)
_records: list[list] = []
_steps: list[list] = []


@events.request.add_listener
def _record(request_type, name, response_time, response_length, exception=None, **_kw):
    if RECORD:
        _records.append([time.time(), name, response_time, repr(exception) if exception else ""])


@events.quitting.add_listener
def _write(environment, **_kw):
    if not RECORD:
        return
    with open(RECORD, "w") as fh:
        for step in _steps:
            fh.write(json.dumps({"step": step[0], "at": step[1]}) + "\n")
        for at, name, elapsed, error in _records:
            fh.write(json.dumps({"at": at, "name": name, "ms": elapsed, "error": error}) + "\n")


class PlayerError(Exception):
    pass


class Player(FastHttpUser):
    """One browser: a guest or a signed-in player, playing heists one after another."""

    # The player's own pauses (thinking, the board's polling) are in the task itself.
    wait_time = staticmethod(lambda: 0)

    def on_start(self) -> None:
        number = next(_next_player)
        self.rng = random.Random(number)
        # An address of its own, as a proxy in front of the site would report it.
        self.address = f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"
        self.costs: dict[str, int] = {}
        self.rivals: list[str] = []
        self.signed_in = False
        self.known: tuple[str, str, dict] | None = None  # the last view read: heist, ETag, view
        self.answer_tag: str | None = None
        if _accounts and self.rng.random() < SIGNIN_SHARE:
            self.sign_in(_accounts[next(_next_account) % len(_accounts)])
        else:
            self.age_check()
        self.costs = {c["slug"]: c["cost"] for c in self.get_json("/api/v1/crew/", "crew")}
        self.rivals = [r["slug"] for r in self.get_json("/api/v1/rivals/", "rivals")]

    # --- requests ---------------------------------------------------------------------------

    def headers(self, unsafe: bool = False) -> dict[str, str]:
        headers = {"X-Forwarded-For": self.address}
        if unsafe:
            headers["X-CSRFToken"] = self.cookie("csrftoken")
        return headers

    def cookie(self, name: str) -> str:
        for cookie in self.client.cookiejar:
            if cookie.name == name:
                return cookie.value
        return ""

    def get_json(self, path: str, name: str):
        with self.client.get(
            path, headers=self.headers(), name=name, catch_response=True
        ) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {_text(response)}")
                raise PlayerError(name)
            return response.json()

    def post_json(self, path: str, body: dict, name: str, ok: tuple[int, ...], expected=()):
        """POST as the browser's fetch does; an answer in ``expected`` (status, code) is not a
        failure (the caller handles it) and comes back with its code."""
        with self.client.post(
            path, json=body, headers=self.headers(unsafe=True), name=name, catch_response=True
        ) as response:
            if response.status_code in ok:
                # The tag of the view a start's or a seal's answer holds (see ``hold``).
                self.answer_tag = response.headers.get("Heist-ETag")
                return response.status_code, response.json(), None
            code = _code(response)
            if (response.status_code, code) in expected:
                response.success()
                return response.status_code, None, code
            response.failure(f"{response.status_code} {code}: {_text(response)}")
            raise PlayerError(name)

    # --- joining ----------------------------------------------------------------------------

    def age_check(self) -> None:
        self.get_json("/api/v1/me/", "me")  # the CSRF cookie, as the page load gives it
        self.post_json(
            "/api/v1/age-check/", {"birth_date": ADULT_BIRTH_DATE}, "age-check", ok=(200,)
        )

    def sign_in(self, account: list[str]) -> None:
        """The sign-in page as a browser submits it (allauth's form, CSRF from the cookie)."""
        with self.client.get(
            "/accounts/login/", headers=self.headers(), name="sign-in page", catch_response=True
        ) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}")
                raise PlayerError("sign-in page")
        with self.client.post(
            "/accounts/login/",
            data={
                "login": account[0],
                "password": account[1],
                "csrfmiddlewaretoken": self.cookie("csrftoken"),
            },
            headers={**self.headers(), "Referer": self.host + "/accounts/login/"},
            name="sign-in",
            allow_redirects=False,
            catch_response=True,
        ) as response:
            if response.status_code != 302 or not self.cookie("sessionid"):
                response.failure(f"{response.status_code}: {_text(response)}")
                raise PlayerError("sign-in")
        self.signed_in = True

    # --- playing ----------------------------------------------------------------------------

    def pick(self) -> dict:
        levels, weights = zip(*LEVELS, strict=True)
        return {
            "rival": self.rng.choice(self.rivals),
            "difficulty": self.rng.choices(levels, weights)[0],
        }

    def plan(self, view: dict) -> dict:
        """A random legal plan, worked out from the board as a player sees it."""
        return random_plan(view, self.costs, self.rng)

    def view(self, heist_id: str) -> dict:
        """Read the heist view as the board does: with the ETag of its last read in
        ``If-None-Match``, so a view unchanged while the rival plans is a 304 without a body
        and the view in hand stays."""
        headers = self.headers()
        known = self.known if self.known and self.known[0] == heist_id else None
        if known:
            headers["If-None-Match"] = known[1]
        with self.client.get(
            f"/api/v1/heists/{heist_id}/", headers=headers, name="heist view", catch_response=True
        ) as response:
            if response.status_code == 304 and known:
                return known[2]
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {_text(response)}")
                raise PlayerError("heist view")
            view = response.json()
            etag = response.headers.get("ETag")
            self.known = (heist_id, etag, view) if etag else None
            return view

    def hold(self, view: dict) -> dict:
        """Keep a view a start or a seal answered with the tag its answer named for it
        (``Heist-ETag``), as the board does: the next read is a 304 while the rival plans."""
        self.known = (view["id"], self.answer_tag, view) if self.answer_tag else None
        return view

    def think_and_watch(self, view: dict) -> dict:
        """Think THINK seconds (0.5x to 1.5x) while the board polls the view as long as the
        rival is planning; the view as last read."""
        thinking_ends = time.monotonic() + THINK * self.rng.uniform(0.5, 1.5)
        delay = POLL_FIRST
        while True:
            now = time.monotonic()
            if view["phase"] != "rival_planning" or now + delay >= thinking_ends:
                time.sleep(max(0.0, thinking_ends - now))
                return view
            time.sleep(delay)
            view = self.view(view["id"])
            delay = min(delay * POLL_GROWTH, POLL_MAX)

    def wait_rival(self, view: dict) -> dict:
        """After a 409 rival_not_sealed: read the view until the rival has sealed."""
        delay = RETRY_FIRST
        for _ in range(RETRY_READS):
            time.sleep(delay)
            view = self.view(view["id"])
            if view["phase"] == "planning":
                return view
            delay = min(delay * POLL_GROWTH, RETRY_MAX)
        raise PlayerError("the rival never sealed")

    def seal(self, view: dict) -> dict:
        body = self.plan(view)
        for _ in range(4):
            status, answer, _ = self.post_json(
                f"/api/v1/heists/{view['id']}/seal/",
                body,
                "seal",
                ok=(200,),
                expected=((409, "rival_not_sealed"),),
            )
            if status == 200:
                return self.hold(answer["heist"])  # the reveal is in it, as the board shows it
            events.request.fire(
                request_type="note",
                name="rival_not_sealed",
                response_time=0,
                response_length=0,
                exception=None,
                context={},
            )
            view = self.wait_rival(view)
        raise PlayerError("seal kept answering rival_not_sealed")

    @task
    def play_heist(self) -> None:
        try:
            _status, view, _ = self.post_json("/api/v1/heists/", self.pick(), "start", ok=(201,))
            view = self.hold(view)
            while view["status"] == "active":
                view = self.think_and_watch(view)
                if view["phase"] == "rival_planning":
                    # The board still shows the rival planning: read once more, then seal.
                    view = self.view(view["id"])
                view = self.seal(view)
            if self.rng.random() < BROWSE_SHARE:
                self.browse()
        except PlayerError:
            time.sleep(1)  # the failure is counted; the player tries a new heist

    def browse(self) -> None:
        """Between heists: the shop or the featured leaderboard, then a short look."""
        if self.rng.random() < 0.5:
            fallback = "/api/v1/wallet/" if self.signed_in else "/api/v1/crew/"
            self.get_json(SHOP_PATH or fallback, "shop")
        else:
            featured = self.get_json("/api/v1/featured/", "featured")
            slot = featured.get("current")
            if slot:
                self.get_json(f"/api/v1/featured/{slot['slug']}/leaderboard/", "leaderboard")
        time.sleep(THINK * self.rng.uniform(0.5, 1.5))


def _text(response) -> str:
    """The start of the answer's body, or what went wrong when there was no answer."""
    return (response.text or repr(response.error))[:200]


def _code(response) -> str | None:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


if os.environ.get("VEYLTAK_LOAD_STEPS"):

    class Steps(LoadTestShape):
        """Hold each number of players for its seconds, in order; then stop."""

        steps = [
            (int(users), float(seconds))
            for users, seconds in (
                part.split(":") for part in os.environ["VEYLTAK_LOAD_STEPS"].split(",")
            )
        ]
        spawn_rate = float(os.environ.get("VEYLTAK_LOAD_SPAWN_RATE", "2"))

        def tick(self):
            elapsed = self.get_run_time()
            for users, seconds in self.steps:
                if elapsed < seconds:
                    if not _steps or _steps[-1][0] != users:
                        _steps.append([users, time.time()])
                    return users, self.spawn_rate
                elapsed -= seconds
            return None
