"""Shuffling and drawing (RULES.md steps 1 and 8)."""

from __future__ import annotations

from .rng import Stream
from .state import SideState


def shuffle_label(side: str, k: int) -> str:
    return f"shuffle/{side}/{k}"


def opening_deck(key: bytes, side: str, size: int) -> tuple[int, ...]:
    """The opening draw order of card ids 0..size-1 (shuffle k = 0)."""
    return Stream(key, shuffle_label(side, 0)).shuffle(range(size))


def draw_up(ss: SideState, key: bytes, side: str, hand_size: int) -> SideState:
    """Draw back up to ``hand_size``.

    RULES.md step 8: drawing from an empty deck first shuffles the discard pile into a new deck.
    The reshuffle happens only when a draw is actually needed from an empty deck, so a side that
    never runs dry never consumes a shuffle stream.
    """
    need = hand_size - len(ss.hand)
    if need <= 0:
        return ss
    deck, discard, shuffles = ss.deck, ss.discard, ss.shuffles
    if len(deck) >= need:
        # Fast path: no reshuffle needed.
        return SideState(
            ss.decklist, deck[need:], ss.hand + deck[:need], discard, ss.heat, ss.score, shuffles
        )
    hand = list(ss.hand)
    while len(hand) < hand_size:
        if not deck:
            if not discard:
                break  # every card is in hand or in flight: nothing left to draw
            deck = Stream(key, shuffle_label(side, shuffles)).shuffle(discard)
            discard = ()
            shuffles += 1
        hand.append(deck[0])
        deck = deck[1:]
    return SideState(ss.decklist, deck, tuple(hand), discard, ss.heat, ss.score, shuffles)
