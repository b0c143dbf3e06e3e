"""`make lint`: no module under tests/ imports another one, except the shared helpers in
tests/support/.

A test module that imports another test module (or a conftest.py) runs that module's tests'
imports and fixtures by the side door, and ties two files that only look independent: what
several test files share lives in tests/support/, which imports no test module either.

    python scripts/check_test_imports.py [ROOT]     # exits 1 naming each import, else 0
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SHARED = "tests.support"


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _targets(node: ast.AST, module: str, is_package: bool, root: Path) -> list[str]:
    """The modules an import statement loads for its names (``from tests.site import chaos``
    loads tests.site.chaos; ``from tests.site.stack import Stack``, tests.site.stack)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:  # relative: from the module's own package up
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    targets = []
    for alias in node.names:
        name = f"{base}.{alias.name}"
        targets.append(name if _is_module(name, root) else base)
    return targets


def _is_test_code(name: str) -> bool:
    return name == "tests" or name.startswith("tests.")


def _is_shared(name: str) -> bool:
    return name == SHARED or name.startswith(SHARED + ".")


def offences(root: Path) -> list[str]:
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        module = _module_of(path, root)
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            targets = _targets(node, module, path.name == "__init__.py", root)
            for target in sorted(set(targets)):
                if _is_test_code(target) and not _is_shared(target):
                    found.append(
                        f"{path.relative_to(root)}:{node.lineno}: imports {target}; test "
                        f"modules import shared helpers from {SHARED} only"
                    )
    return found


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    found = offences(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} import(s) of test modules by test modules", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
