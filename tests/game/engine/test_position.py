"""A heist started from a stored position: the same heist from that night on, verified offline."""

from __future__ import annotations

import copy
import json
import random

import pytest

from game.engine import (
    PLAYER,
    RIVAL,
    EngineError,
    Plan,
    heist_from_position,
    legal_plans,
    observe,
    position_of,
    resolve,
    rival_stream,
)
from game.engine.night import plan_canonical
from game.engine.position import history_plans, reach_position
from game.engine.replay import main, record_entry, record_header, replay
from game.engine.rng import commit_plan
from game.engine.setup import night_loot
from tests.support.engine import RS, nonce_for, play_recorded


def plans_of(record):
    return [{s: Plan.from_dict(n["plans"][s]) for s in (PLAYER, RIVAL)} for n in record["nights"]]


def setup_of(record):
    return {
        "ruleset": record["ruleset"],
        "player_deck": record["decks"][PLAYER],
        "rival_deck": record["decks"][RIVAL],
        "server_seed": record["server_seed"],
        "client_seed": record["client_seed"],
        "encounter": record["encounter"],
    }


def retry_record(record, night, rnd):
    """A heist started at ``night`` of ``record``'s heist and played on with random plans, in
    the replay format (the position as ``start``)."""
    state = reach_position(**setup_of(record), night=night, plans=plans_of(record))
    start = position_of(state)
    header = record_header(
        ruleset=record["ruleset"],
        server_seed=record["server_seed"],
        client_seed=record["client_seed"],
        decks=record["decks"],
        encounter=state.encounter,
        start=json.loads(json.dumps(start)),
    )
    state = heist_from_position(**setup_of(record), position=start)
    while not state.finished:
        plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
        nonce = nonce_for("retry", state.night)
        commitment = commit_plan(nonce, plan_canonical(state.rival.decklist, plans[RIVAL]))
        n = state.night
        state, result = resolve(state, plans)
        header["nights"].append(record_entry(n, plans, nonce, commitment, result))
    return state, header


def test_a_stored_position_is_the_heist_at_that_night_and_plays_on_identically():
    final, record = play_recorded("position-known", client_seed="c")
    plans = plans_of(record)
    for night in range(1, RS.nights + 1):
        original = reach_position(**setup_of(record), night=night, plans=plans)
        stored = json.loads(json.dumps(position_of(original)))
        started = heist_from_position(**setup_of(record), position=stored)
        assert started == original
        # Both sides see the same night; the rival gets the same random stream.
        for side in (PLAYER, RIVAL):
            assert observe(started, side) == observe(original, side)
        assert rival_stream(started.key, night).randbelow(10**9) == rival_stream(
            original.key, night
        ).randbelow(10**9)
        # The same plans from there give the same nights and the same end.
        state = started
        for p in plans[night - 1 :]:
            state, result = resolve(state, p)
            assert result.to_dict() == record["nights"][result.night - 1]["result"]
        assert state == final


def test_known_answer_position_at_night_three():
    _, record = play_recorded("position-night-3")
    state = reach_position(**setup_of(record), night=3, plans=plans_of(record))
    pos = position_of(state)
    assert pos["night"] == 3
    assert [h["night"] for h in pos["history"]] == [1, 2]
    assert pos["sides"][PLAYER]["score"] == record["nights"][1]["result"]["score"][PLAYER]
    assert pos["sides"][RIVAL]["heat"] == record["nights"][1]["result"][RIVAL]["heat_end"]
    started = heist_from_position(**setup_of(record), position=pos)
    # This night's loot is the loot stream at night 3, as in the heist.
    assert dict(started.loot) == night_loot(RS, started.key, 3, None)[0]
    assert dict(started.loot) == record["nights"][2]["result"]["loot"]
    assert dict(started.last_winners) == {
        v["slug"]: v["winner"] for v in record["nights"][1]["result"]["vaults"]
    }


def test_history_plans_are_the_sealed_plans():
    _, record = play_recorded("position-plans")
    state = reach_position(**setup_of(record), night=RS.nights, plans=plans_of(record))
    assert history_plans(state.history) == plans_of(record)[: RS.nights - 1]


def test_two_hundred_retries_verify_offline():
    rnd = random.Random(25)
    for i in range(200):
        _, record = play_recorded(f"retry-{i}", client_seed=str(i % 3))
        night = 1 + i % RS.nights
        _, retry = retry_record(record, night, rnd)
        assert retry["nights"][0]["night"] == night
        report = replay(json.loads(json.dumps(retry)))
        assert report.ok, (i, report)
        assert report.nights_checked == RS.nights - night + 1


def test_the_cli_verifies_a_retry(tmp_path, capsys):
    _, record = play_recorded("retry-cli")
    _, retry = retry_record(record, 4, random.Random(1))
    path = tmp_path / "retry.json"
    path.write_text(json.dumps(retry))
    assert main([str(path)]) == 0
    assert "OK: 3 nights verified" in capsys.readouterr().out


@pytest.fixture(scope="module")
def retry():
    _, record = play_recorded("retry-tamper", client_seed="t")
    _, rec = retry_record(record, 4, random.Random(2))
    assert replay(rec).ok
    return rec


def first_difference(record):
    report = replay(record)
    assert not report.ok
    return report.difference


def test_a_position_the_seeds_do_not_lead_to_is_named(retry):
    rec = copy.deepcopy(retry)
    hand = rec["start"]["sides"][PLAYER]["hand"]
    deck = rec["start"]["sides"][PLAYER]["deck"]
    hand[0], deck[0] = deck[0], hand[0]  # still a valid position, not the heist's
    d = first_difference(rec)
    assert d.night == 0 and d.field.startswith("start.sides.player.")


def test_a_changed_earlier_night_is_named(retry):
    rec = copy.deepcopy(retry)
    rec["start"]["history"][-1]["score"][RIVAL] += 5
    rec["start"]["sides"][RIVAL]["score"] += 5  # consistent with the changed reveal
    d = first_difference(rec)
    assert d.night == 0 and d.field == "start.history[2].score.rival"


def test_a_changed_later_night_is_named(retry):
    rec = copy.deepcopy(retry)
    rec["nights"][1]["result"]["score"][PLAYER] += 1
    d = first_difference(rec)
    assert d.night == 5 and d.field == "result.score.player"


@pytest.mark.parametrize(
    "change",
    [
        lambda p: p["sides"][PLAYER]["hand"].pop(),
        lambda p: p["sides"][RIVAL]["discard"].append(0),
        lambda p: p["sides"][PLAYER].__setitem__("heat", 7),
        lambda p: p["sides"][RIVAL].__setitem__("score", p["sides"][RIVAL]["score"] + 1),
        lambda p: p["sides"][PLAYER].__setitem__("shuffles", 0),
        lambda p: p["history"].pop(),
        lambda p: p.__setitem__("night", 0),
        lambda p: p["sides"][PLAYER].pop("deck"),
        lambda p: p["history"][0].pop("vaults"),
    ],
)
def test_an_inconsistent_position_is_refused(change):
    _, record = play_recorded("position-bad")
    pos = position_of(reach_position(**setup_of(record), night=3, plans=plans_of(record)))
    change(pos)
    with pytest.raises(EngineError) as exc:
        heist_from_position(**setup_of(record), position=pos)
    assert exc.value.code == "position_invalid"


def test_a_finished_heist_has_no_position():
    final, _ = play_recorded("position-finished")
    with pytest.raises(EngineError):
        position_of(final)
