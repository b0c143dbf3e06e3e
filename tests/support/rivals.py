"""Random positions for rival tests (heists played a random number of nights by random plans), and
states the rival cannot tell apart from them."""

from __future__ import annotations

import dataclasses
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


def resample_hidden(state, rnd):
    """A different state the rival cannot tell apart: the player's hand and draw order, the
    rival's own draw order and the heist key (so every later shuffle and all future loot)."""
    p, r = state.sides
    cards = list(p.hand + p.deck)
    rnd.shuffle(cards)
    k = len(p.hand)
    new_p = dataclasses.replace(p, hand=tuple(cards[:k]), deck=tuple(cards[k:]))
    deck_r = list(r.deck)
    rnd.shuffle(deck_r)
    new_r = dataclasses.replace(r, deck=tuple(deck_r))
    key = bytes(rnd.randrange(256) for _ in range(32))
    return dataclasses.replace(state, key=key, sides=(new_p, new_r))
