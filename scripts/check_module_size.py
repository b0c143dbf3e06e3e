"""Fail when a Python module grows past LIMIT lines (`make lint`): a module that long holds
more than one job, and is split by job instead. Migrations are generated history, not code one
reads, so they are left out; so are the virtualenv and what the site writes at run time.

    python scripts/check_module_size.py [--limit N] [ROOT]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

LIMIT = 500
SKIP_DIRS = {
    ".git",
    ".venv",
    ".venv-dev",
    "venv",
    "var",
    "staticfiles",
    "node_modules",
    "__pycache__",
}


def modules(root: Path):
    for folder, dirs, files in os.walk(root):
        # Pruned in place, so os.walk never enters them (a virtualenv holds thousands of files).
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and d != "migrations")
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def line_count(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    parser.add_argument("--limit", type=int, default=LIMIT)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    over = [(line_count(p), p.relative_to(root)) for p in modules(root)]
    over = sorted(((n, p) for n, p in over if n > args.limit), reverse=True)
    for n, path in over:
        print(f"{path}: {n} lines (the limit is {args.limit}; split it by job)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
