"""The tournament harness on a few seed pairs (the full run is a command: see docs/rivals.md)."""

import pytest

from game.rivals.lab import tournament


@pytest.mark.slow
def test_tournament_harness_on_four_seed_pairs(tmp_path):
    res = tournament.run(tournament.BOTS, range(4), workers=1, progress=False)
    pairings = res.pair_scores()
    assert len(pairings) == 15
    assert len(res.records) == 15 * 4 * 2
    for scores in pairings.values():
        assert len(scores) == 4
        m, lo, hi = tournament.pair_summary(scores)
        assert 0 <= lo <= m <= hi <= 1
    ladder = res.ladder(reps=20)
    assert set(ladder) == set(tournament.BOTS)
    for m, lo, hi in ladder.values():
        assert lo <= m + 1e-9 and m <= hi + 1e-9
    path = tournament.write_report(res, tmp_path, "pytest")
    text = path.read_text()
    assert "## Gates" in text and "Bradley-Terry" in text and "| The Furnace |" in text
    assert (tmp_path / "rivals-ladder.png").stat().st_size > 1000


def test_duplicate_games_share_the_heist_and_swap_seats():
    a = tournament.play_game("random", "greedy", 3, swapped=False)
    b = tournament.play_game("random", "greedy", 3, swapped=True)
    assert a.seed == b.seed and a.swapped != b.swapped
    assert set(a.stats) != set(b.stats)  # each bot held the other deck


def test_bradley_terry_orders_a_clear_ladder():
    names = ("a", "b", "c")
    wins = {("a", "b"): 30.0, ("b", "c"): 30.0, ("a", "c"): 20.0}
    games = {("a", "b"): 100, ("b", "c"): 100, ("a", "c"): 100}
    s = tournament.bradley_terry(names, wins, games)
    assert s["a"] < s["b"] < s["c"]
