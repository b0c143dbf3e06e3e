"""The rating's anchors from the tournament report: ``python -m game.rivals.lab.anchors``.

Reads the published report (docs/rivals.md: its command and date, the Bradley-Terry ladder and
the player-style panel) and writes game/data/rating.json, the anchor rating of every level
(DESIGN.md section 11). The formula, published on the rules page and in docs/rating.md:

    rating = 1500 + 173.7178 * (s - s0)

``s`` is the level's Bradley-Terry log-strength from the ladder. Bradley-Terry gives a side of
strength s_a a chance 1 / (1 + e^-(s_a - s_b)) against one of strength s_b (draws counted
half), which is Glicko-2's expected score on its internal scale with no deviation, where one
unit is 173.7178 (400 / ln 10) rating points: a log-strength is a Glicko-2 ``mu`` once a zero
is chosen. ``s0``, the zero, is where the panel of scripted player styles sits on average: each
style's log-strength is the one that makes its expected scores against the four levels (held
at their ladder strengths) add up to what it scored in the tournament, and ``s0`` is their
mean. So 1500, where a new player starts, is the tournament's stand-in for an ordinary player.
An anchor's deviation is its 95% bootstrap interval's half-width / 1.96, on the same scale.

``--check`` writes nothing and exits 1 when the file differs from what the report gives (a
test runs the same comparison). The file's own ``version`` and ``glicko2`` settings are kept;
``--version`` gives the anchors a new version (do, when the numbers change: every rated heist
records the version its anchor came from).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from game.rating.glicko2 import CENTRE, SCALE

ROOT = Path(__file__).resolve().parents[3]
REPORT = ROOT / "docs" / "rivals.md"
DATA = ROOT / "game" / "data" / "rating.json"
LEVELS = ("rookie", "hustler", "safecracker", "kingpin")
Z95 = 1.96

_COMMAND = re.compile(r"^Command: `([^`]+)`", re.M)
_DATE = re.compile(
    r"^Date: ([0-9-]+ [0-9:]+ UTC); seeds ([0-9.]+) .*?; ruleset ([\w.]+); (\d+) games", re.M
)
_LADDER_ROW = re.compile(
    r"^\| ([a-z-]+) \| ([+-][0-9.]+) \| ([+-][0-9.]+) \.\. ([+-][0-9.]+) \|", re.M
)
_NUMBER = re.compile(r"[0-9.]+")


class ReportError(ValueError):
    """The report lacks a part the anchors are measured from."""


def _section(text: str, title: str) -> str:
    start = text.find(f"## {title}")
    if start < 0:
        raise ReportError(f"the report has no section {title!r}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def read_report(text: str) -> dict[str, Any]:
    """The parts of the report the anchors need: its run, the ladder (name -> strength, low,
    high) and the panel's mean scores (level -> style -> score of the level)."""
    command, date = _COMMAND.search(text), _DATE.search(text)
    if command is None or date is None:
        raise ReportError("the report names no command or date")
    ladder = {
        m[1]: (float(m[2]), float(m[3]), float(m[4]))
        for m in _LADDER_ROW.finditer(_section(text, "Bradley-Terry ladder"))
    }
    if missing := [level for level in LEVELS if level not in ladder]:
        raise ReportError(f"the ladder has no {missing}")
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in _section(text, "Against the player-style panel").splitlines()
        if line.startswith("| ")
    ]
    header = next((r for r in rows if r[0] == "level"), None)
    if header is None:
        raise ReportError("the panel has no score table")
    styles = [s for s in header[1:] if s != "mean"]
    panel = {}
    for row in rows:
        if row[0] in LEVELS:
            panel[row[0]] = {
                s: float(_NUMBER.match(c)[0]) for s, c in zip(styles, row[1:], strict=False)
            }
    if set(panel) != set(LEVELS):
        raise ReportError(f"the panel scores {sorted(panel)}, not every level")
    return {
        "command": command[1],
        "date": date[1],
        "seeds": date[2],
        "ruleset": date[3],
        "games": int(date[4]),
        "ladder": ladder,
        "panel": panel,
    }


def fit_strength(scores: dict[str, float], strengths: dict[str, float]) -> float:
    """The log-strength whose expected scores against the opponents (``strengths``) add up to
    ``scores`` (the maximum-likelihood strength when every pairing played as many games), by
    bisection: the expected total rises with the strength."""
    target = sum(scores.values())
    low, high = -20.0, 20.0
    for _ in range(200):
        mid = (low + high) / 2
        total = sum(1 / (1 + math.exp(-(mid - strengths[o]))) for o in scores)
        low, high = (mid, high) if total < target else (low, mid)
    return (low + high) / 2


def rating_of(strength: float, zero: float) -> int:
    return round(CENTRE + SCALE * (strength - zero))


def anchors_from_report(
    report: dict[str, Any], *, version: str, glicko2: dict[str, Any]
) -> dict[str, Any]:
    """The contents of game/data/rating.json for this report."""
    levels = {level: report["ladder"][level][0] for level in LEVELS}
    styles = list(report["panel"][LEVELS[0]])
    panel = {
        style: fit_strength(
            # The level's score against the style is 1 - the style's against the level.
            {level: 1 - report["panel"][level][style] for level in LEVELS},
            levels,
        )
        for style in styles
    }
    zero = round(sum(panel.values()) / len(panel), 4)
    return {
        "version": version,
        "source": {
            "report": "docs/rivals.md",
            "command": report["command"],
            "date": report["date"],
            "ruleset": report["ruleset"],
            "seeds": report["seeds"],
            "games": report["games"],
        },
        "formula": "rating = 1500 + 173.7178 * (s - s0); deviation = 173.7178 * half the 95% "
        "interval / 1.96",
        "glicko2": glicko2,
        "zero": zero,
        "ladder": {
            name: {
                "strength": s,
                "interval": [low, high],
                "rating": rating_of(s, zero),
                "deviation": max(1, round(SCALE * (high - low) / 2 / Z95)),
            }
            for name, (s, low, high) in report["ladder"].items()
        },
        "panel": {
            style: {"strength": round(s, 3), "rating": rating_of(s, zero)}
            for style, s in panel.items()
        },
    }


def dumps(data: dict[str, Any]) -> str:
    """Indented, with each ladder and panel entry on a line of its own (a diff of a new run
    reads one line per bot)."""
    lines = []
    for key, value in data.items():
        if key in ("ladder", "panel"):
            rows = [f"    {json.dumps(name)}: {json.dumps(row)}" for name, row in value.items()]
            lines.append(f"  {json.dumps(key)}: {{\n" + ",\n".join(rows) + "\n  }")
        else:
            inner = json.dumps(value, indent=2).replace("\n", "\n  ")
            lines.append(f"  {json.dumps(key)}: {inner}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m game.rivals.lab.anchors", description=__doc__)
    ap.add_argument("--report", type=Path, default=REPORT)
    ap.add_argument("--out", type=Path, default=DATA)
    ap.add_argument("--version", help="a new version for the anchors (default: the file's)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = ap.parse_args(argv)
    current = json.loads(args.out.read_text("utf-8"))
    made = dumps(
        anchors_from_report(
            read_report(args.report.read_text("utf-8")),
            version=args.version or current["version"],
            glicko2=current["glicko2"],
        )
    )
    if args.check:
        same = made == args.out.read_text("utf-8")
        print("up to date" if same else f"{args.out} differs from what {args.report} gives")
        return 0 if same else 1
    args.out.write_text(made, "utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
