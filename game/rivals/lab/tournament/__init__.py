"""Round-robin tournament between the rival levels and two baseline bots.

    python -m game.rivals.lab.tournament --pairs 1000 --workers 2

Every seed is played in duplicate: the same heist seed (same shuffles, same loot) twice, with the
two bots swapping seats and decks, so deck and seat luck cancel within a seed pair. Score = wins +
half draws; 95% intervals come from the spread of seed-pair scores. A Bradley-Terry ladder is
fitted over all pairings with bootstrap intervals (seed pairs resampled). Writes a Markdown report
and a PNG plot of the ladder.

Both seats are played by policies, each given only ``observe(state, its side)``.
"""
# The package: play.py plays the games (bots, seats, duplicate seeds, worker processes),
# statistics.py turns scores into intervals and a ladder, report.py writes the Markdown report,
# its gates and plots, and __main__.py is the command. (The games' module is not called run.py:
# it would shadow the package's run().)

from game.rivals.lab.tournament.play import (
    BOTS,
    EXTRA_BOTS,
    LEVELS,
    PANEL_LEVELS,
    RULESET,
    GameRecord,
    GameStats,
    Results,
    bot_move,
    fixed_share_bot,
    play_game,
    run,
    seat_personas,
)
from game.rivals.lab.tournament.report import (
    KINGPIN_PANEL_MEAN,
    KINGPIN_VS_STYLE,
    gates,
    panel_gates,
    write_report,
)
from game.rivals.lab.tournament.statistics import bradley_terry, pair_summary, score_of

__all__ = [
    "BOTS",
    "EXTRA_BOTS",
    "KINGPIN_PANEL_MEAN",
    "KINGPIN_VS_STYLE",
    "LEVELS",
    "PANEL_LEVELS",
    "RULESET",
    "GameRecord",
    "GameStats",
    "Results",
    "bot_move",
    "bradley_terry",
    "fixed_share_bot",
    "gates",
    "pair_summary",
    "panel_gates",
    "play_game",
    "run",
    "score_of",
    "seat_personas",
    "write_report",
]
