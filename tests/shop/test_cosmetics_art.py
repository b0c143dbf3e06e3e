"""The cosmetics' art (DESIGN.md section 7): each board theme sets only the board's custom
properties, all of them, with every pair the board draws at least as legible as the default's
floor; each card back's SVG is ours, well-formed, and calls nothing from elsewhere (strict CSP);
and every cosmetic the shop sells has its art, and no art is left without an item."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

ROOT = Path(__file__).resolve().parents[2]
CSS = (ROOT / "static" / "css" / "cosmetics.css").read_text()
ART = ROOT / "static" / "images" / "cosmetics"
CATALOGUE = ROOT / "shop" / "data" / "catalogue.json"

BOARD_PROPERTIES = {
    "--board-bg",
    "--board-surface",
    "--board-ink",
    "--board-accent",
    "--board-muted",
    "--card-face",
    "--card-ink",
}
# The site's own colours the board also draws on its surfaces (static/css/site.css :root).
SITE_INKS = {
    "you": "#5ad1c4",
    "rival": "#ff9385",
    "ok": "#7ee2a8",
    "bad": "#ffa096",
    "muted": "#b4bbd1",
}
# The default palette: the board's colours without a theme (static/css/board.css declares
# them on the board's root). A theme's pair of colours is at least as legible as the same
# pair there, or at WCAG AAA (7:1) for normal text.
DEFAULT = {
    "--board-bg": "#0e1018",
    "--board-surface": "#181c29",
    "--board-ink": "#f2f3f7",
    "--board-accent": "#f5b942",
    "--board-muted": "#b4bbd1",
    "--card-face": "#23283b",
    "--card-ink": "#f2f3f7",
}
AAA = 7.0

THEME_RULE = re.compile(r'\[data-board-theme="([a-z0-9-]+)"\]\s*\{([^}]*)\}')
BACK_RULE = re.compile(r'\.card-back\[data-card-back="([a-z0-9-]+)"\]\s*\{([^}]*)\}')


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _declarations(body: str) -> dict[str, str]:
    out = {}
    for part in body.split(";"):
        if part.strip():
            name, _, value = part.partition(":")
            out[name.strip()] = value.strip()
    return out


THEMES = {slug: _declarations(body) for slug, body in THEME_RULE.findall(CSS)}
BACKS = {slug: body for slug, body in BACK_RULE.findall(CSS)}


def test_contrast_is_measured_right():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_three_themes_and_four_backs():
    assert len(THEMES) == 3
    assert len(BACKS) == 4


@pytest.mark.parametrize("slug", sorted(THEMES))
def test_a_theme_sets_only_the_board_properties(slug):
    assert set(THEMES[slug]) == BOARD_PROPERTIES
    for value in THEMES[slug].values():
        assert re.fullmatch(r"#[0-9a-f]{6}", value), value


def _pairs(t: dict[str, str]) -> dict[str, tuple[str, str]]:
    pairs = {
        f"{fg} on {bg}": (t[fg], t[bg])
        for bg in ("--board-bg", "--board-surface")
        for fg in ("--board-ink", "--board-accent", "--board-muted")
    }
    pairs["--card-ink on --card-face"] = (t["--card-ink"], t["--card-face"])
    for name, ink in SITE_INKS.items():
        for bg in ("--board-bg", "--board-surface", "--card-face"):
            pairs[f"site {name} on {bg}"] = (ink, t[bg])
    return pairs


@pytest.mark.parametrize("slug", sorted(THEMES))
def test_a_theme_is_as_legible_as_the_default(slug):
    default = {k: contrast(*v) for k, v in _pairs(DEFAULT).items()}
    weak = {
        k: (round(contrast(*v), 2), round(default[k], 2))
        for k, v in _pairs(THEMES[slug]).items()
        if contrast(*v) < min(default[k], AAA)
    }
    assert not weak, weak


@pytest.mark.parametrize("slug", sorted(BACKS))
def test_a_card_back_is_our_own_svg(slug):
    urls = re.findall(r'url\("([^"]+)"\)', BACKS[slug])
    assert urls == [f"../images/cosmetics/{slug}.svg"]
    path = ART / f"{slug}.svg"
    source = path.read_text()
    root = ElementTree.fromstring(source)  # noqa: S314 (our own file, well-formed)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("{http://www.w3.org/2000/svg}title") is not None
    # Nothing that runs or loads: no script, no handler, no link outside the file.
    assert "<script" not in source and " on" not in source.replace(" opacity", "")
    assert not re.search(r"(href|src)\s*=\s*\"(?!#)", source)
    assert "http://" not in source.replace("http://www.w3.org/2000/svg", "")
    assert len(source) < 2048  # the board's first-load byte budget is shared


def test_every_art_file_is_used():
    used = {f"{slug}.svg" for slug in BACKS}
    assert {p.name for p in ART.glob("*.svg")} == used


def test_every_cosmetic_on_sale_has_its_art_and_nothing_else_does():
    items = json.loads(CATALOGUE.read_text())
    items = items["items"] if isinstance(items, dict) else items
    sold = {
        kind: {i["slug"] for i in items if i["kind"] == kind}
        for kind in ("card_back", "board_theme")
    }
    assert sold["card_back"] == set(BACKS)
    for item in items:
        if item["kind"] == "card_back":  # the shop shows the same file the board does
            assert (ART / f"{item['art']}.svg").is_file(), item
    assert sold["board_theme"] == set(THEMES)
