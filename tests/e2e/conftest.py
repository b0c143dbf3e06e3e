"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live server.

Never a Playwright browser download: the browser is /usr/bin/chromium (`.ci/run` installs it).
Screenshots go to test-artifacts/screenshots/<run>/ and the folder is printed at the end.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.support.browser import PHONE

# Playwright's sync API runs an event loop in this thread; Django's ORM (fixtures, the live
# server's setup) refuses to run beside one unless told the code is really synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps calling home, which on a closed network only slows it down.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots" / time.strftime("e2e-%Y%m%d-%H%M%S")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)
            # Every browser test takes longer than 5 s (a live server, Chromium, axe).
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter):
    if SHOTS.exists():
        count = len(list(SHOTS.glob("*.png")))
        terminalreporter.write_line(f"e2e screenshots ({count}): {SHOTS}")


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        message = f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def _static_root():
    from django.conf import settings

    # WhiteNoise warns when STATIC_ROOT is missing; the live server serves static files itself.
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


@pytest.fixture
def site(_static_root, live_server, settings, transactional_db):
    """The live server with the catalogue loaded and the rival sealed at once (no worker)."""
    from game.services.catalogue import catalogue_load

    # No Celery worker in these tests: the seal service's fallback seals the rival in-process.
    settings.RIVAL_FALLBACK_SECONDS = 0.2
    catalogue_load()
    return live_server.url


@pytest.fixture
def slot(site, settings):
    """The slot in play now, with at least an hour left whatever the time of day (the browser
    keeps the real clock, so the server's is not moved here)."""
    from django.utils import timezone

    from game.models import FeaturedSlot
    from game.services.featured import EPOCH, featured_reconcile

    now = timezone.now()
    for minutes in (24 * 60, 24 * 60 - 1, 24 * 60 - 2):
        length = dt.timedelta(minutes=minutes)
        if length - (now - EPOCH) % length > dt.timedelta(hours=1):
            break
    settings.FEATURED_SLOT_MINUTES = minutes
    featured_reconcile()
    return FeaturedSlot.objects.get(starts_at__lte=now, ends_at__gt=now)


class Shots:
    """Full-page screenshots named <page>-<size>.png in this run's folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def take(self, page, name: str) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{name}-{size_name(page.viewport_size)}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def screen(self, page, name: str) -> Path:
        """What the screen shows, not the whole page: for a look at what fits on one screen."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{name}-{size_name(page.viewport_size)}-screen.png"
        page.screenshot(path=str(path))
        return path


def size_name(viewport) -> str:
    """phone (portrait), landscape (a phone held sideways) or desktop."""
    if viewport["width"] <= 400:
        return "phone"
    return "landscape" if viewport["height"] < 500 else "desktop"


@pytest.fixture(scope="session")
def shots():
    return Shots(SHOTS)


CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


@pytest.fixture
def new_page(browser):
    """new_page(viewport, **context_options) -> a page in a fresh context (a new guest).

    Reduced motion is on so screenshots never catch a card mid-flip. Console errors, page errors
    and CSP violations are collected and must stay empty (checked at teardown).
    """
    contexts = []
    problems: list[str] = []

    def make(viewport=PHONE, **options):
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(viewport=viewport, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.add_init_script(CSP_WATCH)
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: (
                problems.append(f"console {msg.type}: {msg.text}")
                if msg.type == "error" and "status of 4" not in msg.text
                else None
            ),
        )
        page.problems = problems
        return page

    yield make
    for context in contexts:
        for page in context.pages:
            # A closed or navigating page has nothing more to report.
            with contextlib.suppress(Exception):
                problems.extend(page.evaluate("window.__cspViolations || []"))
        context.close()
    assert not problems, problems
