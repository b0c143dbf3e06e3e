"""The engine stays pure: no Django/DRF/Celery, no clock, no global random, no stray I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import game.engine

ENGINE = Path(game.engine.__file__).parent
MODULES = sorted(ENGINE.rglob("*.py"))

FORBIDDEN = {"random", "time", "datetime", "django", "rest_framework", "celery"}
# Standard-library modules the engine may use; anything else must be added here on purpose.
ALLOWED = {
    "__future__",
    "argparse",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "hmac",
    "importlib",
    "itertools",
    "json",
    "math",
    "re",
    "struct",
    "sys",
    "types",
    "typing",
}


def imports(source: str) -> list[tuple[str, int]]:
    """(module, relative level) for every import statement, at any depth (functions too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def violations(source: str) -> list[str]:
    bad = []
    for module, level in imports(source):
        if level:  # relative import inside the engine
            continue
        top = module.split(".")[0]
        if top in FORBIDDEN or not (top in ALLOWED or module.startswith("game.engine")):
            bad.append(module)
    return bad


def test_checker_catches_forbidden_imports():
    src = (
        "import os\nfrom random import choice\n"
        "def f():\n    import time\n    from django.db import models\n"
    )
    assert violations(src) == ["os", "random", "time", "django.db"]
    assert violations("from datetime import date\nimport celery.app, rest_framework") == [
        "datetime", "celery.app", "rest_framework",
    ]  # fmt: skip
    assert violations("from . import rules\nimport hashlib\nfrom game.engine import crew") == []


def test_modules_found():
    names = {p.name for p in MODULES}
    assert {
        "rules.py",
        "crew.py",
        "rng.py",
        "state.py",
        "night.py",
        "view.py",
        "replay.py",
    } <= names


def test_no_forbidden_imports():
    for path in MODULES:
        bad = violations(path.read_text(encoding="utf-8"))
        assert not bad, f"{path.name} imports {bad} (forbidden, or not on the allow-list)"


def test_no_dynamic_imports_or_io():
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"__import__", "exec", "eval"}, path.name
                if node.func.id == "open":
                    # Only the replay CLI opens a file (the record it was asked to check).
                    assert path.name == "replay.py", f"{path.name} opens a file"
            if isinstance(node, ast.Attribute) and node.attr == "import_module":
                raise AssertionError(f"{path.name} imports dynamically")


def loaded_after(statement: str) -> set[str]:
    import subprocess
    import sys

    code = f"import sys; {statement}; print(','.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ENGINE.parent.parent,
    )
    return {m.split(".")[0] for m in out.stdout.strip().split(",")}


def test_importing_the_engine_pulls_in_no_forbidden_module():
    # The standard library itself loads `time` at start-up and `random` via tempfile (used by
    # importlib.resources); those are not the engine's doing, so compare with that baseline.
    baseline = loaded_after("import " + ", ".join(sorted(ALLOWED - {"__future__"})))
    baseline |= loaded_after("import importlib.resources")
    engine = loaded_after("import game.engine, game.engine.replay")
    assert not (engine - baseline) & FORBIDDEN, (engine - baseline) & FORBIDDEN
    assert not engine & {"django", "rest_framework", "celery"}
