"""The command: ``python -m game.rivals.lab.tournament --help``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from game.rivals.lab import panel, tournament
from game.rivals.lab.tournament.play import BOTS, EXTRA_BOTS, PANEL_LEVELS, fixed_share_bot, run
from game.rivals.lab.tournament.report import gates, write_report
from game.rivals.personas import get_difficulty


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m game.rivals.lab.tournament", description=tournament.__doc__
    )
    ap.add_argument("--pairs", type=int, default=1000, help="seed pairs per pairing (2 games)")
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--bots", default=",".join(BOTS))
    ap.add_argument("--only", default="", help="comma list of a:b pairings to play")
    ap.add_argument(
        "--panel-pairs", type=int, default=0, help="seed pairs per (level, style) panel cell"
    )
    ap.add_argument("--panel-levels", default=",".join(PANEL_LEVELS))
    ap.add_argument("--styles", default=",".join(panel.STYLES))
    ap.add_argument("--out", default="docs")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    bots = tuple(args.bots.split(","))
    for bot in (*bots, *args.panel_levels.split(",")):
        known = bot in ("random", "greedy") or bot in EXTRA_BOTS
        if not known and fixed_share_bot(bot) is None:
            get_difficulty(bot)  # raises for an unknown level
    pairings = [tuple(p.split(":")) for p in args.only.split(",")] if args.only else None
    seeds = range(args.seed_start, args.seed_start + args.pairs)
    panel_levels = tuple(args.panel_levels.split(",")) if args.panel_pairs else ()
    styles = tuple(args.styles.split(",")) if args.panel_pairs else ()
    for st in styles:
        if not panel.is_style(st):
            ap.error(f"unknown style {st!r}; styles: {', '.join(panel.STYLES)}")
    res = run(
        bots,
        seeds,
        args.workers,
        pairings,
        progress=not args.no_progress,
        panel_levels=panel_levels,
        panel_styles=styles,
        panel_seeds=range(args.seed_start, args.seed_start + args.panel_pairs),
    )
    cmd = "python -m game.rivals.lab.tournament " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    path = write_report(res, Path(args.out), cmd.strip())
    for name, ok, fig in gates(res):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {fig}")
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
