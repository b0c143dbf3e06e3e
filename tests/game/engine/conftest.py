"""Engine tests need no Django.

tests/game/conftest.py has an autouse fixture that asks pytest-django for ``settings``; shadowing
it here (same name) keeps these tests free of any Django fixture, so they exercise the pure
engine only.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_worker_wait() -> None:
    return None
