"""Steps shared by the browser tests (tests/e2e): the viewports, the age screen, the page audit
(axe, no sideways scroll, no inline script or style, a screenshot), starting a heist from the
picker, reading and playing the board."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

PHONE = {"width": 360, "height": 640}
LANDSCAPE = {"width": 640, "height": 360}  # a phone turned sideways
DESKTOP = {"width": 1280, "height": 800}
ADULT_BIRTH_DATE = "1990-04-02"
SEAL = re.compile(r"^Seal")
PASSWORD = "a long enough password 42"
_axe = Axe()


def audit(page, shots, name: str) -> None:
    """The page as it stands: axe-core finds nothing serious or critical, no sideways scroll, no
    inline script and no inline style (strict CSP); then a screenshot named ``name``."""
    results = _axe.run(page)
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in {"serious", "critical"}
    ]
    assert not bad, f"{name}: {bad}"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert page.locator("script:not([src])").count() == 0, f"{name}: inline script"
    # (axe-core itself leaves an empty style="" on form controls it measured.)
    styled = page.evaluate(
        "[...document.querySelectorAll('[style]')].filter(e => e.getAttribute('style'))"
        ".map(e => e.outerHTML.slice(0, 120))"
    )
    assert not styled, f"{name}: inline style attribute {styled}"
    shots.take(page, name)


def pass_age_check(page, base: str, next_path: str = "/play/") -> None:
    """A new guest opens a gated page and passes the neutral age screen."""
    page.goto(base + next_path)
    assert "/age-check/" in page.url
    page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(f"**{next_path}")


def menu_link(page, name: str):
    """A link of the header's menu, the menu opened first where it is folded (a phone)."""
    menu = page.locator("#site-menu")
    if menu.get_attribute("open") is None and page.locator("#site-menu > summary").is_visible():
        page.locator("#site-menu > summary").click()
    return page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)


def open_choices(page) -> None:
    """Unfold the Play page's choices (folded under Quick heist) if they are folded."""
    choices = page.locator("details.more-choices")
    if choices.count() and choices.get_attribute("open") is None:
        page.locator("details.more-choices > summary").click()


def start_heist(page, base: str, *, rival: str, difficulty: str) -> str:
    """Age check, pick a rival and a difficulty, Start; returns the board's URL."""
    pass_age_check(page, base, "/play/")
    open_choices(page)
    page.get_by_role("radio", name=rival, exact=True).check()
    page.get_by_role("radio", name=difficulty, exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    return page.url


def energy_left(page) -> int:
    text = page.locator("#b-energy-left").inner_text()
    return int(re.search(r"Energy left (-?\d+)", text).group(1))


def heist_id(page) -> str:
    return page.locator("#board").get_attribute("data-heist")


def finish_heist_by_api(page, base: str, hid: str) -> None:
    """Seal every remaining night with no crew through the JSON API, as the page's session."""
    import time

    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = page.request.get(f"{base}/api/v1/heists/{hid}/").json()
        if view["status"] != "active":
            return
        if view["phase"] != "planning":  # as the board does: wait for the rival's commitment
            time.sleep(0.1)
            continue
        answer = page.request.post(
            f"{base}/api/v1/heists/{hid}/seal/",
            data={"night": view["night"], "crew": [], "boost": False},
            headers={"X-CSRFToken": token, "Referer": base + "/"},
        )
        assert answer.ok, answer.text()
    raise AssertionError("the heist did not finish")


def sign_in_new_player(page, base: str, *, email: str, password: str):
    """Create a player who passed the gate at sign-up and confirmed the email, sign in through
    the page; return the user."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.services import profile_attest

    user = get_user_model().objects.create_user(username=email, email=email, password=password)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    profile_attest(user=user)
    page.goto(base + "/accounts/login/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(base + "/")
    return user


def sign_up(page, site: str) -> str:
    """Sign up through the pages and confirm the address from the mail; returns the email. The
    browser is signed in on the page the confirmation leads to."""
    import uuid

    from django.core import mail

    email = f"player-{uuid.uuid4().hex[:8]}@example.com"
    page.goto(site + "/accounts/signup/")
    page.locator("input[name=email]").fill(email)
    if page.locator("input[name=birth_date]").count():
        page.locator("input[name=birth_date]").fill(ADULT_BIRTH_DATE)
    page.locator("input[name=password1]").fill(PASSWORD)
    page.locator("input[name=password2]").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url(re.compile(r"/accounts/confirm-email/$"))
    sent = next(m for m in reversed(mail.outbox) if email in m.to)
    path = re.search(r"/accounts/confirm-email/[^/\s]+/", sent.body).group(0)
    page.goto(site + path)
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"^(?!.*confirm-email)"))
    return email
