"""Builders for engine tests: hand-made positions and seeded random play."""

from __future__ import annotations

from collections.abc import Sequence

from game.engine import (
    PLAYER,
    RIVAL,
    HeistState,
    NightResult,
    Plan,
    Ruleset,
    Stream,
    get_ruleset,
    heist_key,
    legal_plans,
    resolve,
)
from game.engine.night import plan_canonical
from game.engine.replay import record_entry, record_header
from game.engine.rng import commit_plan
from game.engine.setup import new_heist
from game.engine.state import SideState

RS = get_ruleset()
MA, CV, ST = "memory-archive", "crown-vault", "signal-tower"
DEFAULT_LOOT = {MA: 1, CV: 2, ST: 3}


def fill_deck(front: Sequence[str], ruleset: Ruleset = RS) -> tuple[str, ...]:
    """``front`` followed by filler crew so the deck is legal (ids of ``front`` are 0..n-1)."""
    deck = list(front)
    counts = {s: deck.count(s) for s in ruleset.crew}
    for slug in ruleset.crew:
        while len(deck) < ruleset.deck_size and counts[slug] < ruleset.max_copies:
            deck.append(slug)
            counts[slug] += 1
    assert len(deck) == ruleset.deck_size
    return tuple(deck)


def side_state(
    hand: Sequence[str], heat: int = 0, score: int = 0, ruleset: Ruleset = RS
) -> SideState:
    decklist = fill_deck(hand, ruleset)
    n = len(hand)
    return SideState(decklist, tuple(range(n, len(decklist))), tuple(range(n)), (), heat, score, 1)


def position(
    *,
    player_hand: Sequence[str] = ("mirror-courier",),
    rival_hand: Sequence[str] = ("mirror-courier",),
    player_heat: int = 0,
    rival_heat: int = 0,
    loot: dict[str, int] | None = None,
    closed: Sequence[str] = (),
    last_winners: dict[str, str | None] | None = None,
    night: int = 1,
    ruleset: Ruleset = RS,
) -> HeistState:
    """A position with the given hands (card ids 0..n-1 in the order given), Heat and loot."""
    loot = dict(DEFAULT_LOOT if loot is None else loot)
    for v in closed:
        loot[v] = 0
    return HeistState(
        ruleset=ruleset,
        key=heist_key("test-position"),
        night=night,
        sides=(
            side_state(player_hand, player_heat, ruleset=ruleset),
            side_state(rival_hand, rival_heat, ruleset=ruleset),
        ),
        loot=loot,
        closed=frozenset(closed),
        last_winners=dict(last_winners or {}),
        encounter=None,
        history=(),
    )


def duel(
    player: Sequence[tuple[str, str]] = (),
    rival: Sequence[tuple[str, str]] = (),
    *,
    player_boost: bool = False,
    rival_boost: bool = False,
    **kwargs,
) -> tuple[HeistState, NightResult]:
    """Each side sends the listed (crew slug, vault) pairs; returns resolve's output."""
    state = position(
        player_hand=[s for s, _ in player] or ["mirror-courier"],
        rival_hand=[s for s, _ in rival] or ["mirror-courier"],
        **kwargs,
    )
    plans = {
        PLAYER: Plan(tuple((i, v) for i, (_, v) in enumerate(player)), player_boost),
        RIVAL: Plan(tuple((i, v) for i, (_, v) in enumerate(rival)), rival_boost),
    }
    return resolve(state, plans)


def powers(result: NightResult, side: str) -> list[int]:
    return [c.power for c in result.side(side).crew]


def random_deck(stream: Stream, ruleset: Ruleset = RS) -> list[str]:
    """A uniformly shuffled legal deck drawn from the engine's own stream (no global random)."""
    pool = [s for s in ruleset.crew for _ in range(ruleset.max_copies)]
    return list(stream.shuffle(pool)[: ruleset.deck_size])


def nonce_for(seed: str, night: int) -> str:
    return commit_plan(f"nonce/{seed}", str(night))  # any 64-hex string will do


def play_recorded(
    seed: str, client_seed: str = "", encounter=None, ruleset: Ruleset = RS
) -> tuple[HeistState, dict]:
    """Play a whole heist with seeded uniform choices and return (final state, replay record)."""
    chooser = Stream(heist_key("chooser", seed), "choices")
    decks = {PLAYER: random_deck(chooser, ruleset), RIVAL: random_deck(chooser, ruleset)}
    state = new_heist(
        ruleset=ruleset,
        player_deck=decks[PLAYER],
        rival_deck=decks[RIVAL],
        server_seed=seed,
        client_seed=client_seed,
        encounter=encounter,
    )
    record = record_header(
        ruleset=ruleset.version,
        server_seed=seed,
        client_seed=client_seed,
        decks=decks,
        encounter=state.encounter,
    )
    while not state.finished:
        plans = {}
        for side in (PLAYER, RIVAL):
            options = legal_plans(state, side)
            plans[side] = options[chooser.randbelow(len(options))]
        nonce = nonce_for(seed, state.night)
        commitment = commit_plan(nonce, plan_canonical(state.rival.decklist, plans[RIVAL]))
        night = state.night
        state, result = resolve(state, plans)
        record["nights"].append(record_entry(night, plans, nonce, commitment, result))
    return state, record
