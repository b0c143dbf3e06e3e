"""Pages, one module per page group. Server-rendered; the heist board itself is
static/js/board.js talking to the JSON API.

Pages read through selectors, build their context with game.presenters and hold no rules: deck
legality is the engine's validate_deck, the same check the API runs, and every sentence comes
from game.presenters.words (around the engine's own words, game.engine.text).

- ``home``: the home page.
- ``rules``: how to play on one screen (/how-to-play/) and the full rules (/rules/).
- ``play``: the rival picker (/play/).
- ``decks``: the deck builder (/deck/) and the guest's session deck.
- ``heists``: a heist's board, result and replay.
- ``debrief``: the debrief those pages show, and Try this night again.
- ``featured``: featured slots, their leaderboards and Play.
- ``challenges``: challenge a friend: a challenge's page, playing it, making one, side by side.

game/urls.py names the views through this package (``views.home``).
"""

from game.views.challenges import (
    challenge,
    challenge_compare,
    challenge_make,
    challenge_play,
)
from game.views.debrief import heist_retry_page
from game.views.decks import SESSION_DECK, deck
from game.views.featured import featured, featured_play
from game.views.heists import board_data, heist, heist_replay, heist_result
from game.views.home import home
from game.views.play import play
from game.views.rules import how_to_play, rules

__all__ = [
    "SESSION_DECK",
    "board_data",
    "challenge",
    "challenge_compare",
    "challenge_make",
    "challenge_play",
    "deck",
    "featured",
    "featured_play",
    "heist",
    "heist_replay",
    "heist_result",
    "heist_retry_page",
    "home",
    "how_to_play",
    "play",
    "rules",
]
