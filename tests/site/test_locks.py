"""The two locks (Makefile): requirements.lock is all `make run` installs into .venv, and
requirements-dev.lock is what .venv-dev holds for the tests, the linters, the benchmarks and
the rival's offline tools. Both pin every package with its hashes."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
# What serves the site must never carry these, whatever the dev extra's list says.
NEVER_AT_RUN = {
    "pytest",
    "pytest-django",
    "hypothesis",
    "playwright",
    "axe-playwright-python",
    "locust",
    "schemathesis",
    "scipy",
    "matplotlib",
    "tqdm",
    "ruff",
    "pip-tools",
    "import-linter",
    "time-machine",
}


def _name(requirement: str) -> str:
    return re.split(r"[\[=<>~! ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text("utf-8").splitlines():
        if match := PIN.match(line):
            found[_name(match[1])] = match[2]
    return found


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def test_no_dev_only_package_is_in_the_runtime_lock():
    runtime = pins(LOCK)
    dev_extra = {_name(r) for r in project()["optional-dependencies"]["dev"]}
    assert dev_extra >= NEVER_AT_RUN
    assert sorted((dev_extra | NEVER_AT_RUN) & set(runtime)) == []


def test_the_runtime_lock_pins_every_runtime_dependency():
    runtime = pins(LOCK)
    for requirement in project()["dependencies"]:
        name, version = _name(requirement), requirement.rsplit("==", 1)[1]
        assert runtime.get(name) == version, requirement


def test_the_dev_lock_holds_the_runtime_pins_and_the_dev_extra():
    """One version of each package in both venvs (`make lock` compiles the dev lock under the
    runtime lock's pins)."""
    runtime, dev = pins(LOCK), pins(DEV_LOCK)
    assert {name: dev.get(name) for name in runtime} == runtime
    for requirement in project()["optional-dependencies"]["dev"]:
        name, version = _name(requirement), requirement.rsplit("==", 1)[1]
        assert dev.get(name) == version, requirement


@pytest.mark.parametrize("lock", [LOCK, DEV_LOCK], ids=lambda p: p.name)
def test_every_pin_has_its_hashes(lock):
    text = lock.read_text("utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
    pinned = [b for b in blocks if PIN.match(b)]
    assert len(pinned) == len(pins(lock)) > 10
    assert [b.split(" ", 1)[0] for b in pinned if "--hash=sha256:" not in b] == []


def test_the_runtime_lock_holds_what_the_redis_broker_imports():
    """`make run` with CELERY_BROKER_URL=redis://... (production): kombu's Redis transport
    imports what its `redis` extra names (packaging, for one); a runtime lock without it served
    a site whose health check, worker and beat failed on the first use of the broker, while the
    tests, in the dev venv, passed. celery[redis] in pyproject.toml pulls it in."""
    from importlib.metadata import requires

    runtime = pins(LOCK)
    needed = [
        _name(r) for r in requires("kombu") or [] if re.search(r"""extra\s*==\s*["']redis""", r)
    ]
    assert needed, "kombu names no redis extra any more: read its metadata again"
    assert [name for name in needed if name not in runtime] == []
