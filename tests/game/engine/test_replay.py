"""Determinism and verification: replays of recorded heists, and tampering detected by name."""

from __future__ import annotations

import copy
import json

import pytest

from game.engine import PLAYER, RIVAL, Encounter, Plan, ReplayError, legal_plans
from game.engine.replay import main, replay
from game.engine.rng import commit_plan, seed_commitment
from game.engine.setup import new_heist
from game.engine.state import VaultMod
from tests.support.engine import CV, RS, play_recorded


def test_one_thousand_seeded_heists_replay_identically():
    outcomes = set()
    for i in range(1000):
        final, record = play_recorded(f"{i:064x}", client_seed=str(i % 7))
        # The record survives a JSON round trip, as it will from the API.
        report = replay(json.loads(json.dumps(record)))
        assert report.ok, (i, report)
        assert report.nights_checked == RS.nights
        assert report.outcome == (
            PLAYER if final.player.score > final.rival.score
            else RIVAL if final.rival.score > final.player.score else None
        )  # fmt: skip
        outcomes.add(report.outcome)
    assert outcomes == {PLAYER, RIVAL, None}


def test_same_seed_and_plans_give_the_same_heist():
    _, a = play_recorded("seed-a")
    _, b = play_recorded("seed-a")
    assert a == b
    _, c = play_recorded("seed-a", client_seed="player")
    assert replay(c).ok and c["seed_commitment"] == a["seed_commitment"]
    # The player's seed changes the shuffles and loot even with the same server seed.
    assert [n["result"]["loot"] for n in c["nights"]] != [n["result"]["loot"] for n in a["nights"]]


@pytest.fixture(scope="module")
def recorded():
    enc = Encounter("e", "E", "", {RIVAL: 2}, (VaultMod(CV, (4,), "double"),))
    _, record = play_recorded("tamper-me", client_seed="c", encounter=enc)
    assert replay(record).ok
    return record


def diff(record):
    report = replay(record)
    assert not report.ok
    d = report.difference
    return d.night, d.field, d.expected, d.got


def test_changed_player_plan_is_named(recorded):
    record = copy.deepcopy(recorded)
    entry = record["nights"][2]
    # Replay up to night 3 to find another legal plan with a different outcome.
    state = new_heist(
        ruleset=RS,
        player_deck=record["decks"][PLAYER],
        rival_deck=record["decks"][RIVAL],
        server_seed=record["server_seed"],
        client_seed=record["client_seed"],
        encounter=Encounter.from_dict(record["encounter"]),
    )
    from game.engine import resolve

    for e in record["nights"][:2]:
        state, _ = resolve(state, {s: Plan.from_dict(e["plans"][s]) for s in (PLAYER, RIVAL)})
    original = Plan.from_dict(entry["plans"][PLAYER])
    changed = next(p for p in legal_plans(state, PLAYER) if p.crew != original.crew and p.crew)
    entry["plans"][PLAYER] = changed.to_dict()
    night, field, _, _ = diff(record)
    assert night == 3 and field.startswith("result.player.")


def test_illegal_plan_is_named(recorded):
    record = copy.deepcopy(recorded)
    record["nights"][1]["plans"][PLAYER] = {"crew": [{"card": 99, "vault": CV}], "boost": False}
    assert diff(record) == (2, "plans.player", "a legal plan", "card_not_in_hand")


def test_changed_rival_plan_breaks_its_commitment(recorded):
    record = copy.deepcopy(recorded)
    plan = record["nights"][3]["plans"][RIVAL]
    plan["boost"] = not plan["boost"]
    night, field, expected, got = diff(record)
    assert (night, field) == (4, "rival_commitment")
    assert got == recorded["nights"][3]["rival_commitment"] and expected != got


def test_tampered_commitment_is_named(recorded):
    record = copy.deepcopy(recorded)
    record["nights"][0]["rival_commitment"] = "0" * 64
    assert diff(record)[:2] == (1, "rival_commitment")
    record = copy.deepcopy(recorded)
    record["nights"][5]["rival_nonce"] = "1" * 64
    assert diff(record)[:2] == (6, "rival_commitment")


def test_changed_server_seed_is_named(recorded):
    record = copy.deepcopy(recorded)
    record["server_seed"] = "another seed"
    assert diff(record)[:2] == (0, "seed_commitment")
    # Even with a matching commitment, the heist itself no longer matches.
    record["seed_commitment"] = seed_commitment("another seed")
    night, field, _, _ = diff(record)
    # Other shuffles: the recorded plans name cards no longer in hand, or the results differ.
    assert night == 1 and (field.startswith("result.") or field.startswith("plans."))


def test_changed_client_seed_is_named(recorded):
    record = copy.deepcopy(recorded)
    record["client_seed"] = "d"
    night, field, _, _ = diff(record)
    assert night == 1 and (field.startswith("result.") or field.startswith("plans."))


@pytest.mark.parametrize(
    ("path", "value", "night", "field"),
    [
        (("nights", 1, "result", "vaults", 1, "winner"), "nobody", 2, "result.vaults[1].winner"),
        (("nights", 4, "result", "player", "heat_end"), 9, 5, "result.player.heat_end"),
        (("nights", 0, "result", "loot", "crown-vault"), 99, 1, "result.loot.crown-vault"),
        (("nights", 5, "result", "score", "rival"), -1, 6, "result.score.rival"),
        (("nights", 2, "result", "rival", "boost"), "yes", 3, "result.rival.boost"),
    ],
)
def test_changed_result_is_named(recorded, path, value, night, field):
    record = copy.deepcopy(recorded)
    node = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    got = diff(record)
    assert got[:2] == (night, field)
    assert got[3] == value


def test_missing_and_extra_fields_are_named(recorded):
    record = copy.deepcopy(recorded)
    del record["nights"][0]["result"]["vaults"][0]["loot"]
    assert diff(record)[:2] == (1, "result.vaults[0].loot")
    record = copy.deepcopy(recorded)
    record["nights"][0]["result"]["bonus"] = 1
    assert diff(record)[:2] == (1, "result.bonus")
    record = copy.deepcopy(recorded)
    record["nights"][0]["result"]["vaults"].pop()
    assert diff(record)[:2] == (1, "result.vaults.length")


def test_night_order_and_outcome(recorded):
    record = copy.deepcopy(recorded)
    record["nights"][1]["night"] = 3
    assert diff(record)[:2] == (2, "night")
    record = copy.deepcopy(recorded)
    record["nights"].append(copy.deepcopy(record["nights"][-1]))
    assert diff(record)[:2] == (7, "night")
    record = copy.deepcopy(recorded)
    truth = replay(record).outcome
    record["outcome"] = truth
    assert replay(record).ok
    record["outcome"] = "player" if truth != "player" else "rival"
    assert diff(record)[:2] == (0, "outcome")


def test_partial_record_replays_what_it_has(recorded):
    record = copy.deepcopy(recorded)
    record["nights"] = record["nights"][:3]
    report = replay(record)
    assert report.ok and report.nights_checked == 3 and report.outcome is None


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("server_seed"),
        lambda r: r.update(ruleset="1999.01"),
        lambda r: r.update(decks={"player": [], "rival": []}),
        lambda r: r["nights"][0].pop("rival_nonce"),
        lambda r: r["nights"][0]["plans"].update(player={"crew": "all"}),
        lambda r: r.update(nights="none"),
    ],
)
def test_malformed_records_raise(recorded, mutate):
    record = copy.deepcopy(recorded)
    mutate(record)
    with pytest.raises(ReplayError):
        replay(record)


def test_commitment_binds_crew_types_not_card_ids(recorded):
    record = copy.deepcopy(recorded)
    entry = record["nights"][0]
    canonical_before = entry["rival_commitment"]
    assert canonical_before == commit_plan(
        entry["rival_nonce"],
        json.dumps(
            {
                "boost": entry["plans"][RIVAL]["boost"],
                "crew": sorted(
                    [record["decks"][RIVAL][c["card"]], c["vault"]]
                    for c in entry["plans"][RIVAL]["crew"]
                ),
            },
            sort_keys=True,
            separators=(",", ":"),
        ),
    )


def test_cli(tmp_path, recorded, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(recorded))
    assert main([str(good)]) == 0
    assert capsys.readouterr().out.startswith("OK")
    bad = copy.deepcopy(recorded)
    bad["nights"][2]["result"]["vaults"][0]["winner"] = "rival-ish"
    bad_file = tmp_path / "bad.json"
    bad_file.write_text(json.dumps(bad))
    assert main([str(bad_file)]) == 1
    out = capsys.readouterr().out
    assert "night 3" in out and "result.vaults[0].winner" in out
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main([str(junk)]) == 2
    assert main([str(tmp_path / "missing.json")]) == 2
    assert main([]) == 2


def test_cli_as_module(tmp_path, recorded):
    import subprocess
    import sys
    from pathlib import Path

    import game.engine

    path = tmp_path / "r.json"
    path.write_text(json.dumps(recorded))
    root = Path(game.engine.__file__).parent.parent.parent
    run = subprocess.run(
        [sys.executable, "-m", "game.engine.replay", str(path)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout.startswith("OK"), run.stderr
