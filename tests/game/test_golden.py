"""The golden test: a fixed set of seeded heists played through the API gives byte-identical JSON.

The answers in tests/game/golden/ were recorded on the code before the game app was reshaped
(issue 11); every refactoring since must leave what a client receives unchanged, byte for byte:
heist views, night results, replays, history rows in the export, errors with their messages, the
catalogue and the OpenAPI schema.

Randomness that is not the heist's own seed is made deterministic at the one place each comes
from: ``secrets.token_hex`` (server seeds and rival nonces), ``secrets.choice`` in
accounts.names (a new account's public handle), the heist id's default (uuid4), the database's
id sequences (reset to each table's largest id), and the clock
(``django.utils.timezone.now`` and every model field whose default is it), which stands still
during a request and moves one second between requests.

Re-record (only for an intended change of what clients see, said in the commit):
``GOLDEN_RECORD=1 make test PYTEST_ARGS="tests/game/test_golden.py"``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import secrets
import sys
import uuid
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.services import profile_attest

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"
RECORD = os.environ.get("GOLDEN_RECORD") == "1"
ADULT = {"birth_date": "1990-04-02"}
EPOCH = dt.datetime(2026, 11, 2, 9, 30, tzinfo=dt.UTC)
HEIST = "/api/v1/heists/"


class Clock:
    def __init__(self) -> None:
        self.now = EPOCH

    def tick(self, seconds: float = 1) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def deterministic(monkeypatch, settings):
    settings.RIVAL_FALLBACK_SECONDS = 0
    # Row ids the answers show (the Signs ledger's entries) come from the database's sequences,
    # which earlier tests move on: start each at the table's largest id, whatever ran before.
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), apps.get_models()):
            cursor.execute(sql)
    clock = Clock()
    real_now = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: clock.now)
    ids = iter(range(1, 10_000))
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if field.default is real_now:
                monkeypatch.setattr(field, "_get_default", lambda: clock.now)
            elif field.default is uuid.uuid4:
                monkeypatch.setattr(
                    field,
                    "_get_default",
                    lambda: uuid.UUID(f"00000000-0000-4000-8000-{next(ids):012d}"),
                )
    counter = iter(range(1, 100_000))
    real_token_hex = secrets.token_hex

    def token_hex(nbytes: int = 32) -> str:
        # Only the game's own draws (server seeds, nonces): a library's (the Redis client
        # names its connections with one) keeps the real function, so the count never shifts.
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("game."):
            return real_token_hex(nbytes)
        return hashlib.sha256(f"golden/{next(counter)}".encode()).hexdigest()[: nbytes * 2]

    monkeypatch.setattr(secrets, "token_hex", token_hex)
    picks = iter(range(100_000))
    real_choice = secrets.choice

    def choice(seq):
        # A new account's public handle (accounts.names) is drawn with secrets.choice; Django's
        # own uses (CSRF tokens, session keys) keep the real function.
        if sys._getframe(1).f_globals.get("__name__", "") != "accounts.names":
            return real_choice(seq)
        return seq[next(picks) * 7 % len(seq)]

    monkeypatch.setattr(secrets, "choice", choice)
    return clock


class Session:
    """Sends the scenario's requests and keeps (what was asked, status, exact body bytes)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.entries: list[tuple[dict, bytes]] = []

    def call(self, label: str, client: Client, method: str, path: str, body=None):
        self.clock.tick()
        if method == "GET":
            response = client.get(path)
        else:
            data = json.dumps(body) if body is not None else ""
            response = client.generic(method, path, data, content_type="application/json")
        name = f"{len(self.entries):03d}-{label}"
        meta = {"name": name, "method": method, "path": path, "status": response.status_code}
        self.entries.append((meta, response.content))
        return response

    def get(self, label, client, path):
        return self.call(label, client, "GET", path)

    def post(self, label, client, path, body):
        return self.call(label, client, "POST", path, body)


def _costs() -> dict[str, int]:
    from game.engine import get_ruleset

    return {slug: crew.cost for slug, crew in get_ruleset().crew.items()}


COOLING = {"coolant-carrier", "emergency-vent"}


def _plan(view: dict, night_index: int, style: str) -> dict:
    """A legal plan chosen from the view alone, by a fixed rule per style."""
    costs = _costs()
    you = view["you"]
    open_vaults = [v["slug"] for v in view["vaults"] if not v["closed"]]
    hand = sorted(you["hand"], key=lambda c: (costs[c["crew"]], c["crew"], c["card"]))
    crew, spent = [], 0
    if style == "heat":  # one warm crew, Boost while it may: drives Heat up to the lock
        for card in hand:
            if card["crew"] not in COOLING and costs[card["crew"]] <= you["energy"]:
                crew = [
                    {"card": card["card"], "vault": open_vaults[night_index % len(open_vaults)]}
                ]
                break
        return {"night": view["night"], "crew": crew, "boost": bool(crew) and you["heat"] < 6}
    limit = 2 if style == "busy" else 1
    for i, card in enumerate(reversed(hand)):
        cost = costs[card["crew"]]
        if len(crew) < limit and spent + cost <= you["energy"]:
            vault = open_vaults[(night_index + i) % len(open_vaults)]
            crew.append({"card": card["card"], "vault": vault})
            spent += cost
    boost = bool(crew) and you["heat"] < 4 and night_index % 2 == 0
    return {"night": view["night"], "crew": crew, "boost": boost}


def _play(s: Session, tag: str, client: Client, view: dict, *, style: str, nights: int = 6):
    """GET the view (the board's poll, which seals an overdue rival night), then seal; until the
    heist ends or ``nights`` nights were sealed. Returns the last view."""
    hid = view["id"]
    for n in range(nights):
        if view["status"] != "active":
            break
        view = s.get(f"{tag}-view-n{view['night']}", client, f"{HEIST}{hid}/").json()
        plan = _plan(view, n, style)
        answer = s.post(f"{tag}-seal-n{view['night']}", client, f"{HEIST}{hid}/seal/", plan)
        assert answer.status_code == 200, answer.content
        view = answer.json()["heist"]
    return view


def _guest(s: Session, tag: str) -> Client:
    client = Client()
    s.get(f"{tag}-me-before", client, "/api/v1/me/")
    s.post(f"{tag}-age-check", client, "/api/v1/age-check/", ADULT)
    return client


def _player(s: Session, email: str) -> tuple[object, Client]:
    s.clock.tick()
    user = get_user_model().objects.create_user(
        username=email, email=email, password="a long enough password 42"
    )
    profile_attest(user=user)
    client = Client()
    s.clock.tick()
    client.force_login(user)
    return user, client


def scenario(s: Session) -> None:
    from game.tasks import abandon_stale_heists

    call_command("load_catalogue", stdout=io.StringIO())
    anon = Client()
    for what in ("crew", "rivals", "encounters", "decks"):
        s.get(f"catalogue-{what}", anon, f"/api/v1/{what}/")
    s.get("schema", anon, "/api/v1/schema/?format=json")
    s.post("unchecked-start", anon, HEIST, {"rival": "furnace", "difficulty": "rookie"})

    # Guest A: Furnace, Rookie, the starter deck; the whole heist, then its replay.
    a = _guest(s, "a")
    s.get("a-me", a, "/api/v1/me/")
    view = s.post("a-start", a, HEIST, {"rival": "furnace", "difficulty": "rookie"}).json()
    s.get("unchecked-view", anon, f"{HEIST}{view['id']}/")
    s.get("a-replay-early", a, f"{HEIST}{view['id']}/replay/")
    s.post("a-wrong-night", a, f"{HEIST}{view['id']}/seal/", {"night": 3, "crew": []})
    done = _play(s, "a", a, view, style="busy")
    s.get("a-final", a, f"{HEIST}{done['id']}/")
    s.get("a-replay", a, f"{HEIST}{done['id']}/replay/")
    s.post("a-sealed-after-end", a, f"{HEIST}{done['id']}/seal/", {"night": 6, "crew": []})

    # Guest B: The Reader, Kingpin, Tower Blackout, the Live Wire deck, a client seed; plan errors.
    b = _guest(s, "b")
    decks = {d["slug"]: d["deck"] for d in anon.get("/api/v1/decks/").json()}
    view = s.post(
        "b-start",
        b,
        HEIST,
        {
            "rival": "the-reader",
            "difficulty": "kingpin",
            "encounter": "tower-blackout",
            "deck": decks["live-wire"],
            "client_seed": "golden seed: B ✓",
        },
    ).json()
    hid = view["id"]
    seal = f"{HEIST}{hid}/seal/"
    view = s.get("b-view-n1-first", b, f"{HEIST}{hid}/").json()
    hand = [c["card"] for c in view["you"]["hand"]]
    costs = _costs()
    for label, crew, boost in (
        ("unknown-vault", [{"card": hand[0], "vault": "attic"}], False),
        ("vault-closed", [{"card": hand[0], "vault": "signal-tower"}], False),
        ("card-not-in-hand", [{"card": 99, "vault": "crown-vault"}], False),
        (
            "duplicate-card",
            [
                {"card": hand[0], "vault": "crown-vault"},
                {"card": hand[0], "vault": "memory-archive"},
            ],
            False,
        ),
        ("too-many-crew", [{"card": c, "vault": "crown-vault"} for c in hand], False),
        ("boost-without-crew", [], True),
    ):
        s.post(f"b-{label}", b, seal, {"night": 1, "crew": crew, "boost": boost})
    pricey = sorted(view["you"]["hand"], key=lambda c: -costs[c["crew"]])[:2]
    if sum(costs[c["crew"]] for c in pricey) > view["you"]["energy"]:
        crew = [{"card": c["card"], "vault": "crown-vault"} for c in pricey]
        s.post("b-over-energy", b, seal, {"night": 1, "crew": crew})
    s.post("b-bad-boost", b, seal, {"night": 1, "crew": [], "boost": "maybe"})
    s.post("b-bad-shape", b, seal, {"night": 1, "crew": [{"card": "x"}]})
    s.get("b-not-a-heist-id", b, f"{HEIST}nope/")
    s.get("b-no-such-heist", b, f"{HEIST}{uuid.UUID(int=7)}/")
    s.get("b-someone-elses", b, f"{HEIST}{done['id']}/")
    s.post("b-someone-elses-seal", b, f"{HEIST}{done['id']}/seal/", {"night": 1, "crew": []})
    done_b = _play(s, "b", b, view, style="calm")
    s.get("b-replay", b, f"{HEIST}{done_b['id']}/replay/")

    # Start refusals.
    starts = {
        "unknown-rival": {"rival": "nobody", "difficulty": "rookie"},
        "unknown-difficulty": {"rival": "furnace", "difficulty": "legend"},
        "unknown-encounter": {"rival": "furnace", "difficulty": "rookie", "encounter": "moon"},
        "deck-short": {"rival": "furnace", "difficulty": "rookie", "deck": ["spark"] * 11},
        "deck-copies": {"rival": "furnace", "difficulty": "rookie", "deck": ["spark"] * 12},
        "deck-unknown": {
            "rival": "furnace",
            "difficulty": "rookie",
            "deck": ["spark", *["x"] * 11],
        },
        "missing-rival": {"difficulty": "rookie"},
    }
    for label, body in starts.items():
        s.post(f"start-{label}", b, HEIST, body)

    # Guest C: Boost three nights running to reach Heat 6, where Boost is locked.
    c = _guest(s, "c")
    view = s.post("c-start", c, HEIST, {"rival": "split-circuit", "difficulty": "hustler"}).json()
    view = _play(s, "c", c, view, style="heat", nights=3)
    assert view["you"]["heat"] == 6, view["you"]
    hid = view["id"]
    view = s.get("c-view-locked", c, f"{HEIST}{hid}/").json()
    hand = sorted(view["you"]["hand"], key=lambda card: costs[card["crew"]])
    s.post(
        "c-boost-locked",
        c,
        f"{HEIST}{hid}/seal/",
        {"night": 4, "crew": [{"card": hand[0]["card"], "vault": "crown-vault"}], "boost": True},
    )
    if costs[hand[-1]["crew"]] > view["you"]["energy"]:
        s.post(
            "c-over-energy",
            c,
            f"{HEIST}{hid}/seal/",
            {"night": 4, "crew": [{"card": hand[-1]["card"], "vault": "crown-vault"}]},
        )
    _play(s, "c", c, view, style="busy")

    # A signed-in player: two finished heists, one abandoned, one still in play.
    _user, p = _player(s, "golden@example.com")
    s.get("p-me", p, "/api/v1/me/")
    view = s.post(
        "p-start-1",
        p,
        HEIST,
        {
            "rival": "quiet-hands",
            "difficulty": "safecracker",
            "encounter": "overtime",
            "client_seed": "player-1",
        },
    ).json()
    _play(s, "p1", p, view, style="busy")
    view = s.post(
        "p-start-2",
        p,
        HEIST,
        {"rival": "furnace", "difficulty": "kingpin", "encounter": "ledger-night"},
    ).json()
    _play(s, "p2", p, view, style="calm")
    # Hot Start, then the player walks away: the periodic task closes the heist without an award.
    view = s.post(
        "p-start-4",
        p,
        HEIST,
        {"rival": "split-circuit", "difficulty": "safecracker", "encounter": "hot-start"},
    ).json()
    _play(s, "p4", p, view, style="calm", nights=1)
    s.clock.tick(60 * 60 * 24 * 2)
    abandon_stale_heists()
    s.get("p4-abandoned", p, f"{HEIST}{view['id']}/")
    s.get("p4-abandoned-replay", p, f"{HEIST}{view['id']}/replay/")
    s.post("p4-seal-abandoned", p, f"{HEIST}{view['id']}/seal/", {"night": 2, "crew": []})
    view = s.post(
        "p-start-3",
        p,
        HEIST,
        {
            "rival": "the-reader",
            "difficulty": "rookie",
            "encounter": "crown-finale",
            "deck": decks["shadow-play"],
        },
    ).json()
    left = _play(s, "p3", p, view, style="busy", nights=2)
    s.get("p-replay-active", p, f"{HEIST}{left['id']}/replay/")
    s.get("p-export", p, "/accounts/export/")
    s.get("p-decks-mine-guest", a, "/api/v1/decks/mine/")
    s.post("p-deck-bad-name", p, "/api/v1/decks/mine/", {"name": " ", "cards": decks["starter"]})
    s.post("p-deck-bad-cards", p, "/api/v1/decks/mine/", {"name": "X", "cards": ["spark"]})


def _read_index() -> list[dict]:
    return json.loads((GOLDEN / "index.json").read_text("utf-8"))


def test_golden_answers_are_byte_identical(deterministic):
    s = Session(deterministic)
    scenario(s)
    if RECORD:
        GOLDEN.mkdir(exist_ok=True)
        for old in GOLDEN.glob("*.json"):
            old.unlink()
        for meta, body in s.entries:
            (GOLDEN / f"{meta['name']}.json").write_bytes(body)
        index = [meta for meta, _ in s.entries]
        (GOLDEN / "index.json").write_text(json.dumps(index, indent=1) + "\n", "utf-8")
        pytest.skip(f"recorded {len(index)} answers in {GOLDEN}")
    dump = os.environ.get("GOLDEN_DUMP")  # a folder: write what was served, to diff by hand
    if dump:
        Path(dump).mkdir(parents=True, exist_ok=True)
        for meta, body in s.entries:
            (Path(dump) / f"{meta['name']}.json").write_bytes(body)
    expected = _read_index()
    asked = [meta for meta, _ in s.entries]
    assert asked == expected
    changed = [
        f"{meta['name']}: {meta['method']} {meta['path']}"
        for meta, body in s.entries
        if body != (GOLDEN / f"{meta['name']}.json").read_bytes()
    ]
    assert not changed, f"{len(changed)} answers changed: {changed}"


def test_the_golden_set_covers_what_it_claims():
    """Several rivals and difficulties, every encounter, guests and a player, finished and
    abandoned heists with their replays, and every plan error code: a re-recording that lost a
    part of the set fails here."""
    index = _read_index()
    bodies = {m["name"]: json.loads((GOLDEN / f"{m['name']}.json").read_bytes()) for m in index}
    views = [b for b in bodies.values() if isinstance(b, dict) and "seed_commitment" in b]
    views += [b["heist"] for b in bodies.values() if isinstance(b, dict) and "heist" in b]
    assert {v["rival"]["slug"] for v in views} == {
        "furnace",
        "the-reader",
        "split-circuit",
        "quiet-hands",
    }
    assert {v["rival"]["difficulty"] for v in views} == {
        "rookie",
        "hustler",
        "safecracker",
        "kingpin",
    }
    encounters = {v["encounter"]["slug"] for v in views if v["encounter"]}
    assert encounters == {"overtime", "ledger-night", "crown-finale", "tower-blackout", "hot-start"}
    assert {v["status"] for v in views} == {"active", "finished", "abandoned"}
    codes = {b["error"]["code"] for b in bodies.values() if isinstance(b, dict) and "error" in b}
    from game.engine.errors import PLAN_ERROR_CODES

    assert set(PLAN_ERROR_CODES) <= codes
    assert {
        "wrong_night",
        "heist_finished",
        "not_found",
        "heist_not_finished",
        "age_check_required",
        "invalid_input",
    } <= codes
    replays = [b for b in bodies.values() if isinstance(b, dict) and "verify" in b]
    assert {r["status"] for r in replays} == {"finished", "abandoned"}
    assert any(r["client_seed"] for r in replays)
    export = bodies[next(m["name"] for m in index if m["path"] == "/accounts/export/")]
    assert len(export["heists"]) == 4
