"""Every crew type of every ruleset the site knows has its own emblem: a symbol
``crew-<slug>`` in static/images/board.svg, the art the board, the shop, the deck builder and
the rules page all draw (templates/game/_crew_face.html). A ruleset that adds a crew without
drawing it fails here, by name."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from game.engine import available_versions, get_ruleset

SPRITE = Path(__file__).resolve().parents[2] / "static" / "images" / "board.svg"
SVG = "{http://www.w3.org/2000/svg}"


def _symbols() -> dict[str, ElementTree.Element]:
    root = ElementTree.parse(SPRITE).getroot()
    return {s.get("id"): s for s in root.iter(f"{SVG}symbol")}


def _drawing(symbol: ElementTree.Element) -> str:
    """What a symbol draws, as one comparable string (its shapes and their attributes)."""
    return "|".join(
        f"{child.tag}:{sorted(child.attrib.items())}" for child in symbol.iter() if child is not symbol
    )


@pytest.mark.parametrize("version", available_versions())
def test_every_crew_of_every_ruleset_has_its_own_emblem(version):
    symbols = _symbols()
    crew = get_ruleset(version).crew
    missing = [slug for slug in crew if f"crew-{slug}" not in symbols]
    assert not missing, f"ruleset {version}: no emblem in board.svg for {missing}"
    for slug in crew:
        symbol = symbols[f"crew-{slug}"]
        # The base emblems' style: a 24-unit line drawing with at least one shape.
        assert symbol.get("viewBox") == "0 0 24 24", slug
        assert _drawing(symbol), f"{slug}: an empty emblem"
    # Its own: no two crew types share a drawing, and none is the default's.
    drawings = {slug: _drawing(symbols[f"crew-{slug}"]) for slug in crew}
    default = _drawing(symbols["crew-default"])
    assert default not in drawings.values()
    assert len(set(drawings.values())) == len(drawings), drawings


def test_the_emblems_draw_with_lines_only_as_the_board_styles_them():
    # The board, the shop and the pages colour an emblem with CSS (stroke, no fill): a symbol
    # that set its own colours would not follow a board theme.
    text = SPRITE.read_text()
    for match in re.finditer(r'<symbol id="crew-[^"]+".*?</symbol>', text, flags=re.S):
        assert "fill=" not in match.group(0) and "stroke=" not in match.group(0), match.group(0)
