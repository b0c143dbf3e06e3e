"""Provable fairness: the rival's commitment shown before the player seals verifies against the
plan revealed after, with DESIGN.md's formula written out independently here; the seed
commitment matches the published server seed; the replay verifies offline with
``python -m game.engine.replay``, and a tampered replay (plan, seed, result) fails it, naming
the night and the field."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys

import pytest
from django.conf import settings

from game.tasks import plan_rival_night
from tests.support.heists import commitment_of, crew_costs, legal_plan, play_out, post, seal, start

pytestmark = [pytest.mark.django_db]


def verify(tmp_path, record: dict, name: str = "replay.json") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return subprocess.run(
        [sys.executable, "-m", "game.engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=60,
    )


def test_rival_commitment_shown_before_the_seal_verifies_after_it(guest):
    view = start(guest, client_seed="fairness", encounter="crown-finale")
    rng = random.Random(7)
    costs = crew_costs()
    seed_commitment = view["seed_commitment"]
    shown = {}
    while view["status"] == "active":
        assert view["phase"] == "rival_planning"
        # What the worker does when the night starts (the real worker: test_worker.py).
        assert plan_rival_night(view["id"], view["night"]) is True
        before = guest.get(f"/api/v1/heists/{view['id']}/").json()
        assert before["phase"] == "planning"
        commitment = before["rival"]["commitment"]
        assert len(commitment) == 64
        shown[before["night"]] = commitment
        response = post(guest, f"/api/v1/heists/{view['id']}/seal/", legal_plan(before, rng, costs))
        assert response.status_code == 200
        result = response.json()["result"]
        rival = result["rival"]
        assert rival["commitment"] == commitment
        assert len(rival["nonce"]) == 64 and int(rival["nonce"], 16) >= 0
        assert commitment_of(rival["nonce"], rival["crew"], rival["boost"]) == commitment
        view = response.json()["heist"]
    assert len(shown) == 6
    record = guest.get(f"/api/v1/heists/{view['id']}/replay/").json()
    assert hashlib.sha256(record["server_seed"].encode()).hexdigest() == seed_commitment
    assert record["seed_commitment"] == seed_commitment
    assert record["client_seed"] == "fairness"
    assert [n["rival_commitment"] for n in record["nights"]] == [shown[n] for n in range(1, 7)]


@pytest.fixture
def record(guest) -> dict:
    view = play_out(guest, start(guest, client_seed="replay me"), seed=11)
    response = guest.get(f"/api/v1/heists/{view['id']}/replay/")
    assert response.status_code == 200
    return response.json()


def test_replay_record_verifies_offline(tmp_path, record):
    assert record["status"] == "finished"
    assert record["verify"] == "python -m game.engine.replay FILE.json"
    done = verify(tmp_path, record)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK")


def _first_night_with_crew(record: dict, side: str) -> dict:
    return next(n for n in record["nights"] if n["plans"][side]["crew"])


def _tamper_rival_plan(r: dict) -> int:
    night = _first_night_with_crew(r, "rival")
    crew = night["plans"]["rival"]["crew"][0]
    crew["vault"] = next(
        v for v in ("memory-archive", "crown-vault", "signal-tower") if v != crew["vault"]
    )
    return night["night"]


def _tamper_player_plan(r: dict) -> int:
    night = r["nights"][2]
    plan = night["plans"]["player"]
    if plan["crew"]:
        plan["crew"] = []
        plan["boost"] = False
    else:
        hand_card = night["result"]["player"]["crew"]  # empty: nothing was sent
        assert hand_card == []
        plan["boost"] = True  # boost without crew: illegal
    return night["night"]


def _tamper_result(r: dict) -> int:
    night = r["nights"][1]
    night["result"]["vaults"][0]["loot"] += 1
    return night["night"]


def _tamper_nonce(r: dict) -> int:
    night = r["nights"][4]
    night["rival_nonce"] = "0" * 64
    return night["night"]


@pytest.mark.parametrize(
    ("tamper", "where", "field"),
    [
        (_tamper_rival_plan, "night", "rival_commitment"),
        (_tamper_player_plan, "night", None),
        (_tamper_result, "night", "result.vaults[0].loot"),
        (_tamper_nonce, "night", "rival_commitment"),
        (lambda r: r.update(server_seed="f" * 64), "heist", "seed_commitment"),
        (lambda r: r.update(client_seed="another seed"), "night 1", None),
        (
            lambda r: r.update(
                outcome={"player": "rival", "rival": "player", None: "player"}[r["outcome"]]
            ),
            "heist",
            "outcome",
        ),
    ],
    ids=["rival-plan", "player-plan", "result", "nonce", "server-seed", "client-seed", "outcome"],
)
def test_tampered_replay_fails_the_verifier(tmp_path, record, tamper, where, field):
    tampered = copy.deepcopy(record)
    night = tamper(tampered)
    if isinstance(night, int):
        where = f"night {night}"
    done = verify(tmp_path, tampered)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "DIFFERENCE" in done.stdout
    assert f"{where}, field" in done.stdout, done.stdout
    if field:
        assert f"field {field}:" in done.stdout, done.stdout


def test_abandoned_heist_replay_verifies(tmp_path, guest):
    from datetime import timedelta

    from game.services.abandon import heists_abandon_stale

    view = start(guest)
    heist_id = view["id"]
    assert seal(guest, heist_id, {"night": 1, "crew": []}).status_code == 200
    assert seal(guest, heist_id, {"night": 2, "crew": []}).status_code == 200
    assert heists_abandon_stale(older_than=timedelta(0)) == 1
    record = guest.get(f"/api/v1/heists/{heist_id}/replay/").json()
    assert record["status"] == "abandoned" and "outcome" not in record
    assert [n["night"] for n in record["nights"]] == [1, 2]
    done = verify(tmp_path, record)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 nights verified" in done.stdout


def test_replay_command_prints_a_verifiable_record(tmp_path, record):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("heist_replay", record["id"], stdout=out)
    printed = json.loads(out.getvalue())
    assert printed["nights"] == record["nights"]
    done = verify(tmp_path, printed)
    assert done.returncode == 0, done.stdout + done.stderr


def _market_record(seed: str) -> dict:
    """A whole 2026.12 heist played by the engine, both decks drawn from every 2026.12 crew (Night
    Market included), as the replay record the API exports (the shop decides who may play
    them, not the rules)."""
    from game.engine import get_ruleset
    from tests.support.engine import play_recorded

    rs = get_ruleset("2026.12")
    _, record = play_recorded(seed, client_seed="market", ruleset=rs)
    return record


def test_night_market_heists_verify_offline_and_a_changed_bonus_fails(tmp_path):
    from game.engine import get_ruleset

    market = set(get_ruleset("2026.12").crew_in_set("night-market"))
    bonuses = 0
    for i in range(4):
        record = _market_record(f"market-fair-{i}")
        assert record["ruleset"] == "2026.12"
        assert market & set(record["decks"]["player"]) and market & set(record["decks"]["rival"])
        done = verify(tmp_path, record, f"market-{i}.json")
        assert done.returncode == 0, done.stdout + done.stderr
        # Change a Night Market crew's power where its condition held: the verifier names it.
        held = [
            (entry["night"], side, k)
            for entry in record["nights"]
            for side in ("player", "rival")
            for k, crew in enumerate(entry["result"][side]["crew"])
            if crew["crew"] in market and any(p["kind"] == "bonus" for p in crew["breakdown"])
        ]
        if not held:
            continue
        night, side, k = held[0]
        tampered = copy.deepcopy(record)
        tampered["nights"][night - 1]["result"][side]["crew"][k]["power"] -= 1
        bad = verify(tmp_path, tampered, f"market-{i}-bad.json")
        assert bad.returncode == 1, bad.stdout
        assert f"night {night}, field result.{side}.crew[{k}].power" in bad.stdout, bad.stdout
        bonuses += 1
    assert bonuses >= 2
