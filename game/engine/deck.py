"""Shuffling and drawing (RULES.md steps 1 and 8)."""

from __future__ import annotations

from .rng import Stream
from .state import SideState


def shuffle_label(side: str, k: int) -> str:
    return f"shuffle/{side}/{k}"


def opening_deck(key: bytes, side: str, size: int) -> tuple[int, ...]:
    """The opening draw order of card ids 0..size-1 (shuffle k = 0)."""
    return Stream(key, shuffle_label(side, 0)).shuffle(range(size))


Piles = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]


def draw_piles(
    deck: tuple[int, ...],
    hand: tuple[int, ...],
    discard: tuple[int, ...],
    shuffles: int,
    key: bytes,
    side: str,
    hand_size: int,
) -> Piles:
    """Draw back up to ``hand_size``; returns (deck, hand, discard, shuffles).

    RULES.md step 8: drawing from an empty deck first shuffles the discard pile into a new deck.
    The reshuffle happens only when a draw is actually needed from an empty deck, so a side that
    never runs dry never consumes a shuffle stream.
    """
    need = hand_size - len(hand)
    if need <= 0:
        return deck, hand, discard, shuffles
    if len(deck) >= need:
        return deck[need:], hand + deck[:need], discard, shuffles  # no reshuffle needed
    drawn = list(hand)
    while len(drawn) < hand_size:
        if not deck:
            if not discard:
                break  # every card is in hand or in flight: nothing left to draw
            deck = Stream(key, shuffle_label(side, shuffles)).shuffle(discard)
            discard = ()
            shuffles += 1
        drawn.append(deck[0])
        deck = deck[1:]
    return deck, tuple(drawn), discard, shuffles


def draw_up(ss: SideState, key: bytes, side: str, hand_size: int) -> SideState:
    """:func:`draw_piles` on a :class:`SideState`."""
    deck, hand, discard, shuffles = draw_piles(
        ss.deck, ss.hand, ss.discard, ss.shuffles, key, side, hand_size
    )
    return SideState(ss.decklist, deck, hand, discard, ss.heat, ss.score, shuffles)
