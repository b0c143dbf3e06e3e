"""The board's static parts: its ES modules (each of one job, none over about 400 lines, every
one preloaded by the page) and its art sprite (a symbol for every crew and vault of every
ruleset, listed to the board by the server from the sprite itself)."""

from __future__ import annotations

import re
from pathlib import Path

from game.engine.rules import available_versions, get_ruleset
from game.presenters.board import board_modules, sprite_symbols

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
MAX_LINES = 400


def test_every_board_module_is_small_and_preloaded():
    modules = sorted(JS.glob("board/*.js"))
    assert len(modules) >= 6, modules
    for path in [JS / "board.js", *modules]:
        lines = path.read_text().count("\n")
        assert lines <= MAX_LINES, f"{path.name}: {lines} lines"
    assert board_modules() == tuple(f"js/board/{p.name}" for p in modules)


def test_the_modules_import_only_each_other_by_relative_paths():
    # No build step: every import is a file the browser fetches from this site.
    for path in [JS / "board.js", *JS.glob("board/*.js")]:
        for target in re.findall(r'\bfrom\s+"([^"]+)"', path.read_text()):
            assert target.startswith("./"), (path.name, target)
            assert (path.parent / target).resolve().is_file(), (path.name, target)


def test_no_crew_or_vault_is_named_in_the_board_js():
    # Names and art lists come from the server (the board data the page names), never from JS.
    source = "\n".join(p.read_text() for p in [JS / "board.js", *JS.glob("board/*.js")])
    for version in available_versions():
        ruleset = get_ruleset(version)
        named = [(c.slug, c.name) for c in ruleset.crew.values()]
        named += [(v.slug, v.name) for v in ruleset.vaults]
        for slug, name in named:
            for word in (slug, name):
                assert not re.search(rf"\b{re.escape(word)}\b", source), word


def test_the_sprite_has_every_crew_and_vault_of_every_ruleset():
    symbols = set(sprite_symbols())
    assert {"crew-default", "vault-default"} <= symbols
    for version in available_versions():
        ruleset = get_ruleset(version)
        missing = [c for c in ruleset.crew if f"crew-{c}" not in symbols]
        missing += [v.slug for v in ruleset.vaults if f"vault-{v.slug}" not in symbols]
        assert not missing, (version, missing)


def test_every_word_the_board_asks_for_is_in_the_table():
    from game.presenters.board import GLOSSARY, WORDS

    source = "\n".join(p.read_text() for p in [JS / "board.js", *JS.glob("board/*.js")])
    asked = set(re.findall(r'\bt\("([a-z_]+)"', source))
    # The guide's steps and the reveal's lines name their words in tables of keys.
    asked |= set(re.findall(r'\b(?:text|next): "([a-z_]+)"', source))
    assert asked and not asked - set(WORDS), sorted(asked - set(WORDS))
    terms = set(re.findall(r'\bterm\("([a-z_]+)"', source))
    assert terms and not terms - set(GLOSSARY), sorted(terms - set(GLOSSARY))
