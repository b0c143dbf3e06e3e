"""What the heist board's page hands static/js/board.js beyond the ruleset: the symbols its art
sprite holds. (The ruleset's numbers, names and words are ``pages.board_rules``.)"""

from __future__ import annotations

import os
import re
from functools import cache

from django.contrib.staticfiles import finders

SPRITE = "images/board.svg"
_SYMBOL = re.compile(r'<symbol\s+id="([a-z0-9-]+)"')


@cache
def sprite_symbols() -> tuple[str, ...]:
    """Every symbol id of the board's sprite ("crew-spark", "vault-crown-vault", ...), read from
    the file itself, so new art needs no list kept in step with it anywhere."""
    path = finders.find(SPRITE)
    if not path:
        return ()
    with open(path, encoding="utf-8") as sprite:
        return tuple(_SYMBOL.findall(sprite.read()))


MODULES = "js/board"


@cache
def board_modules() -> tuple[str, ...]:
    """The board's ES modules (static/js/board/*.js), for the page to preload them all at once
    rather than one import after another."""
    folder = finders.find(MODULES)
    if not folder:
        return ()
    return tuple(sorted(f"{MODULES}/{name}" for name in os.listdir(folder) if name.endswith(".js")))
