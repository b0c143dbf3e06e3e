"""Offline verification of a finished heist (RULES.md ruling: provably fair).

Anyone holding a replay record can rebuild the heist with this engine and check that every
shuffle, draw, loot value, power, winner and score matches, that the published server seed
matches the digest shown at the start, and that each rival plan matches the commitment the
rival published before the player sealed.

Record format (JSON; produced by the heist API, ``GET /api/v1/heists/{id}/replay/``)::

    {
      "ruleset": "2026.11",                       # ruleset version the heist was played under
      "server_seed": "<64 hex>",                  # published at the end
      "client_seed": "<string, may be empty>",
      "seed_commitment": "<hex sha256(server_seed)>",   # shown when the heist started
      "decks": {"player": [12 crew slugs], "rival": [12 crew slugs]},   # decklist order = card ids
      "encounter": null | Encounter.to_dict(),
      "nights": [
        {
          "night": 1,
          "plans": {
            "player": {"crew": [{"card": 4, "vault": "crown-vault"}], "boost": false},
            "rival":  {"crew": [...], "boost": true}
          },
          "rival_nonce": "<64 hex>",
          "rival_commitment": "<hex sha256(nonce + canonical plan)>",
          "result": NightResult.to_dict()
        },
        ...
      ],
      "outcome": "player" | "rival" | null,       # optional; checked when present
      "start": position                           # optional: a heist started at a later night
    }

A heist started from a stored position (``position.py``: a practice retry of a night) carries
it as ``start``; its ``nights`` then begin at that night. The verifier checks that the seeds and
the plans of the position's own history (every earlier night's reveal shows both plans) lead to
exactly that position, then plays on from it as from night 1. A difference in the position is
reported at night 0 with a field path under ``start``.

A difference is reported as ``Difference(night, field, expected, got)``: ``expected`` is what the
engine recomputes, ``got`` is what the record says. ``night`` 0 marks heist-level fields
(``seed_commitment``, ``outcome``); result fields are paths such as ``result.vaults[1].winner``.
Only the first difference is reported; everything after it depends on it.

CLI: ``python -m game.engine.replay FILE.json`` prints ``OK ...`` and exits 0, prints the first
difference and exits 1, or exits 2 when the file is not a readable record.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .crew import PLAYER, RIVAL, SIDES
from .errors import EngineError, ReplayError
from .night import Plan, outcome, plan_canonical, resolve, validate_plan
from .position import heist_from_position, history_plans, position_of
from .results import NightResult
from .rng import commit_plan, seed_commitment
from .rules import get_ruleset
from .setup import new_heist
from .state import Encounter, HeistState

_MISSING = "<missing>"


@dataclass(frozen=True, slots=True)
class Difference:
    night: int
    field: str
    expected: Any
    got: Any

    def __str__(self) -> str:
        where = "heist" if self.night == 0 else f"night {self.night}"
        return f"{where}, field {self.field}: expected {self.expected!r}, got {self.got!r}"


@dataclass(frozen=True, slots=True)
class ReplayReport:
    ok: bool
    nights_checked: int
    difference: Difference | None
    outcome: str | None  # engine's outcome when the replay reached the end, else None

    def __str__(self) -> str:
        if self.ok:
            return f"OK: {self.nights_checked} nights verified"
        return f"DIFFERENCE at {self.difference}"


def _first_difference(expected: Any, got: Any, path: str) -> tuple[str, Any, Any] | None:
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            return path, expected, got
        for key in expected:
            if key not in got:
                return f"{path}.{key}", expected[key], _MISSING
            diff = _first_difference(expected[key], got[key], f"{path}.{key}")
            if diff:
                return diff
        for key in got:
            if key not in expected:
                return f"{path}.{key}", _MISSING, got[key]
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return path, expected, got
        for i, (e, g) in enumerate(zip(expected, got, strict=False)):
            diff = _first_difference(e, g, f"{path}[{i}]")
            if diff:
                return diff
        if len(expected) != len(got):
            return f"{path}.length", len(expected), len(got)
        return None
    # Strict: JSON true is not 1, and 2 is not "2".
    if type(expected) is not type(got) or expected != got:
        return path, expected, got
    return None


def _need(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in record:
        raise ReplayError("replay_malformed", f"{where}: missing {key!r}")
    value = record[key]
    if not isinstance(value, kind):
        raise ReplayError("replay_malformed", f"{where}: {key!r} has the wrong type")
    return value


def replay(record: Mapping[str, Any]) -> ReplayReport:
    """Rebuild the heist in ``record`` and compare it, night by night, with what was recorded."""
    if not isinstance(record, Mapping):
        raise ReplayError("replay_malformed", "a replay record is a JSON object")
    version = _need(record, "ruleset", str, "record")
    try:
        ruleset = get_ruleset(version)
    except EngineError as exc:
        raise ReplayError("replay_unknown_ruleset", exc.message) from None
    server_seed = _need(record, "server_seed", str, "record")
    client_seed = record.get("client_seed", "") or ""
    if not isinstance(client_seed, str):
        raise ReplayError("replay_malformed", "record: 'client_seed' must be a string")
    decks = _need(record, "decks", Mapping, "record")
    encounter_data = record.get("encounter")
    nights = _need(record, "nights", list, "record")

    def fail(night: int, field: str, expected: Any, got: Any, checked: int) -> ReplayReport:
        return ReplayReport(False, checked, Difference(night, field, expected, got), None)

    recorded_commitment = _need(record, "seed_commitment", str, "record")
    if seed_commitment(server_seed) != recorded_commitment:
        return fail(0, "seed_commitment", seed_commitment(server_seed), recorded_commitment, 0)

    try:
        encounter = Encounter.from_dict(encounter_data) if encounter_data is not None else None
        state: HeistState = new_heist(
            ruleset=ruleset,
            player_deck=_need(decks, PLAYER, list, "decks"),
            rival_deck=_need(decks, RIVAL, list, "decks"),
            server_seed=server_seed,
            client_seed=client_seed,
            encounter=encounter,
        )
    except ReplayError:
        raise
    except EngineError as exc:
        raise ReplayError("replay_malformed", f"cannot start the heist: {exc.message}") from None

    start = record.get("start")
    if start is not None:
        try:
            stored = heist_from_position(
                ruleset=ruleset,
                player_deck=decks[PLAYER],
                rival_deck=decks[RIVAL],
                server_seed=server_seed,
                client_seed=client_seed,
                encounter=encounter,
                position=start,
            )
        except EngineError as exc:
            raise ReplayError(
                "replay_malformed", f"cannot start the heist: {exc.message}"
            ) from None
        # The position must be the one the seeds and its own earlier nights lead to.
        for plans in history_plans(stored.history):
            try:
                state, _ = resolve(state, plans)
            except EngineError as exc:
                return fail(0, f"start.history[{state.night - 1}]", "a legal plan", exc.code, 0)
        diff = _first_difference(position_of(state), start, "start")
        if diff:
            return fail(0, diff[0], diff[1], diff[2], 0)
        state = stored

    checked = 0
    for i, entry in enumerate(nights):
        where = f"nights[{i}]"
        if not isinstance(entry, Mapping):
            raise ReplayError("replay_malformed", f"{where} must be an object")
        night = state.night
        recorded_night = entry.get("night")
        if state.finished or recorded_night != night:
            expected_night = None if state.finished else night
            return fail(night, "night", expected_night, recorded_night, checked)
        raw_plans = _need(entry, "plans", Mapping, where)
        plans: dict[str, Plan] = {}
        for side in SIDES:
            try:
                plans[side] = Plan.from_dict(_need(raw_plans, side, Mapping, f"{where}.plans"))
            except ReplayError:
                raise
            except EngineError as exc:
                raise ReplayError(
                    "replay_malformed", f"{where}.plans.{side}: {exc.message}"
                ) from None

        nonce = _need(entry, "rival_nonce", str, where)
        commitment = _need(entry, "rival_commitment", str, where)
        expected_commitment = commit_plan(nonce, plan_canonical(state.rival.decklist, plans[RIVAL]))
        if expected_commitment != commitment:
            return fail(night, "rival_commitment", expected_commitment, commitment, checked)

        for side in SIDES:
            try:
                validate_plan(state, side, plans[side])
            except EngineError as exc:
                return fail(night, f"plans.{side}", "a legal plan", exc.code, checked)

        state, result = resolve(state, plans)
        diff = _first_difference(result.to_dict(), entry.get("result", _MISSING), "result")
        if diff:
            return fail(night, diff[0], diff[1], diff[2], checked)
        checked += 1

    final = outcome(state) if state.finished else None
    if "outcome" in record:
        expected_outcome: Any = final if state.finished else "<unfinished>"
        if expected_outcome != record["outcome"]:
            return fail(0, "outcome", expected_outcome, record["outcome"], checked)
    return ReplayReport(True, checked, None, final)


def record_entry(
    night: int,
    plans: Mapping[str, Plan],
    rival_nonce: str,
    rival_commitment: str,
    result: NightResult,
) -> dict[str, Any]:
    """One ``nights[]`` entry in the record format above."""
    return {
        "night": night,
        "plans": {side: plans[side].to_dict() for side in SIDES},
        "rival_nonce": rival_nonce,
        "rival_commitment": rival_commitment,
        "result": result.to_dict(),
    }


def record_header(
    *,
    ruleset: str,
    server_seed: str,
    client_seed: str,
    decks: Mapping[str, Sequence[str]],
    encounter: Encounter | None,
    start: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The heist-level part of a record (``nights`` starts empty); ``start`` for a heist started
    from a stored position."""
    header = {
        "ruleset": ruleset,
        "server_seed": server_seed,
        "client_seed": client_seed,
        "seed_commitment": seed_commitment(server_seed),
        "decks": {side: list(decks[side]) for side in SIDES},
        "encounter": encounter.to_dict() if encounter else None,
        "nights": [],
    }
    if start is not None:
        header["start"] = dict(start)
    return header


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m game.engine.replay FILE.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as fh:
            record = json.load(fh)
        report = replay(record)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args[0]}: {exc}", file=sys.stderr)
        return 2
    except EngineError as exc:
        print(f"invalid record ({exc.code}): {exc.message}", file=sys.stderr)
        return 2
    print(report)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
