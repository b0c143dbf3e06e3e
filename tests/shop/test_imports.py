"""DESIGN.md section 2's arrows for the shop: it imports accounts and the engine, never the rest
of the game; and accounts never imports the shop (it reaches the wallet through
accounts.extensions, which the shop fills)."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings


def imported_modules(app: str) -> dict[str, set[str]]:
    """{file: every module it imports, at the top or inside a function}."""
    found: dict[str, set[str]] = {}
    for path in sorted(Path(settings.BASE_DIR, app).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[str(path.relative_to(settings.BASE_DIR))] = names
    return found


def _reaches(module: str, app: str) -> bool:
    return module == app or module.startswith(app + ".")


def test_the_shop_imports_no_game_but_the_engine():
    wrong = {
        path: sorted(m for m in names if _reaches(m, "game") and not _reaches(m, "game.engine"))
        for path, names in imported_modules("shop").items()
    }
    assert {p: m for p, m in wrong.items() if m} == {}


def test_accounts_never_imports_the_shop():
    wrong = {
        path: sorted(m for m in names if _reaches(m, "shop"))
        for path, names in imported_modules("accounts").items()
    }
    assert {p: m for p, m in wrong.items() if m} == {}
