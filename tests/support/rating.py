"""The rating's test helpers: a player who sees the rival's sealed plan (read from the database,
as no real player can) and answers it with the plan that takes the most, so it beats even
Kingpin; and the rating's history as the database holds it."""

from __future__ import annotations

import itertools

from django.test import Client

from game.engine import PLAYER, RIVAL, Plan, legal_plans, resolve
from game.models import PlayerRating, RatingChange
from game.selectors.heists import heist_load_any
from tests.support.heists import post


def _margin_after(state, mine: Plan, theirs: Plan) -> tuple[int, int, int]:
    after, _ = resolve(state, {PLAYER: mine, RIVAL: theirs})
    # The most loot ahead; then the least Heat (Energy for the nights to come); then the
    # fewest crew spent.
    return (
        after.score[PLAYER] - after.score[RIVAL],
        -after.player.heat,
        -len(mine.crew),
    )


def seeing_reply(heist_id: str, night: int) -> dict:
    """The best answer to the rival's sealed plan for ``night`` (read from its row)."""
    snapshot = heist_load_any(heist_id=heist_id)
    row = next(n for n in snapshot.nights if n.night == night)
    assert row.rival_plan is not None, "the rival has not sealed yet"
    theirs = Plan.from_dict(row.rival_plan)
    state = snapshot.state
    best = max(legal_plans(state, PLAYER), key=lambda p: _margin_after(state, p, theirs))
    return {"night": night, **best.to_dict()}


def play_seeing(client: Client, view: dict) -> dict:
    """Play the heist out through the JSON API, each night answering the rival's sealed plan;
    returns the last view."""
    heist_id = view["id"]
    while view["status"] == "active":
        # Reading the heist seals the rival's night (the view's fallback, at once in tests).
        view = client.get(f"/api/v1/heists/{heist_id}/").json()
        response = post(
            client, f"/api/v1/heists/{heist_id}/seal/", seeing_reply(heist_id, view["night"])
        )
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    return view


def assert_history_chained(user_id: int) -> list[RatingChange]:
    """The player's changes are numbered 1..n, each starting where the one before ended, and
    the rating row is the last one's after; returns them, oldest first."""
    changes = list(RatingChange.objects.filter(user_id=user_id).order_by("number"))
    assert [c.number for c in changes] == list(range(1, len(changes) + 1))
    for before, after in itertools.pairwise(changes):
        assert (after.before_value, after.before_deviation, after.before_volatility) == (
            before.after_value,
            before.after_deviation,
            before.after_volatility,
        )
    if changes:
        row = PlayerRating.objects.get(user_id=user_id)
        last = changes[-1]
        assert (row.value, row.deviation, row.volatility, row.heists) == (
            last.after_value,
            last.after_deviation,
            last.after_volatility,
            len(changes),
        )
    return changes
