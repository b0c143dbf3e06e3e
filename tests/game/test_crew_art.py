"""Every crew type of every ruleset the site knows has its own emblem: a symbol
``crew-<slug>`` in static/images/board.svg, the art the board, the shop, the deck builder and
the rules page all draw (templates/game/_crew_face.html). A ruleset that adds a crew without
drawing it fails here, by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from game.engine import available_versions, get_ruleset

SPRITE = Path(__file__).resolve().parents[2] / "static" / "images" / "board.svg"
SYMBOL = re.compile(r'<symbol id="([^"]+)" viewBox="([^"]+)">(.*?)</symbol>', re.S)


def _symbols() -> dict[str, tuple[str, str]]:
    """Each symbol of the sprite: its viewBox and what it draws (its shapes, spaces folded)."""
    return {
        ident: (view_box, " ".join(body.split()))
        for ident, view_box, body in SYMBOL.findall(SPRITE.read_text("utf-8"))
    }


@pytest.mark.parametrize("version", available_versions())
def test_every_crew_of_every_ruleset_has_its_own_emblem(version):
    symbols = _symbols()
    crew = get_ruleset(version).crew
    missing = [slug for slug in crew if f"crew-{slug}" not in symbols]
    assert not missing, f"ruleset {version}: no emblem in board.svg for {missing}"
    for slug in crew:
        view_box, drawing = symbols[f"crew-{slug}"]
        # The base emblems' style: a 24-unit line drawing with at least one shape.
        assert view_box == "0 0 24 24", slug
        assert re.search(r"<(path|circle|rect|ellipse|line|polyline|polygon)\b", drawing), slug
    # Its own: no two crew types share a drawing, and none is the default's.
    drawings = {slug: symbols[f"crew-{slug}"][1] for slug in crew}
    assert symbols["crew-default"][1] not in drawings.values()
    assert len(set(drawings.values())) == len(drawings), drawings


def test_the_emblems_draw_with_lines_only_as_the_board_styles_them():
    # The board, the shop and the pages colour an emblem with CSS (stroke, no fill): a symbol
    # that set its own colours would not follow a board theme.
    text = SPRITE.read_text()
    for match in re.finditer(r'<symbol id="crew-[^"]+".*?</symbol>', text, flags=re.S):
        assert "fill=" not in match.group(0) and "stroke=" not in match.group(0), match.group(0)
