"""Random positions for rival tests: heists played a random number of nights by random plans."""

from __future__ import annotations

import random

from game.engine import PLAYER, RIVAL, HeistState, legal_plans, new_heist, resolve
from game.rivals.personas import list_personas


def random_position(i: int) -> HeistState:
    rnd = random.Random(i)
    ps = list_personas()
    state = new_heist(
        ruleset="2026.11",
        player_deck=ps[rnd.randrange(len(ps))].deck,
        rival_deck=ps[rnd.randrange(len(ps))].deck,
        server_seed=f"rival-test-{i}",
    )
    for _ in range(rnd.randrange(state.ruleset.nights)):
        plans = {s: rnd.choice(legal_plans(state, s)) for s in (PLAYER, RIVAL)}
        state, _ = resolve(state, plans)
    return state
