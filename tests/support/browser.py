"""Steps shared by the browser tests (tests/e2e): the viewports, the age screen, the page audit
(axe, no sideways scroll, no inline script or style, a screenshot), starting a heist from the
picker, reading and playing the board."""

from __future__ import annotations

import contextlib
import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import TimeoutError as PlaywrightTimeout
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


def start_heist_by_api(page, base: str, **body) -> str:
    """Age check (a new guest) unless signed in, start a heist through the API with ``body``
    (rival, difficulty, deck, encounter...), open its board; returns the heist's id."""
    if "/age-check/" in page.url or page.url in ("", "about:blank"):
        pass_age_check(page, base, "/play/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    answer = page.request.post(
        f"{base}/api/v1/heists/",
        data={"rival": "furnace", "difficulty": "rookie", **body},
        headers={"X-CSRFToken": token, "Referer": base + "/"},
    )
    assert answer.ok, answer.text()
    hid = answer.json()["id"]
    page.goto(f"{base}/heists/{hid}/")
    expect(page.locator(".card").first).to_be_visible()
    return hid


def seal_nights_by_api(page, base: str, hid: str, count: int) -> None:
    """Seal ``count`` nights with no crew through the API, as another device would."""
    import time

    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    sealed = 0
    deadline = time.monotonic() + 60
    while sealed < count and time.monotonic() < deadline:
        view = page.request.get(f"{base}/api/v1/heists/{hid}/").json()
        if view["phase"] != "planning":
            time.sleep(0.1)
            continue
        answer = page.request.post(
            f"{base}/api/v1/heists/{hid}/seal/",
            data={"night": view["night"], "crew": [], "boost": False},
            headers={"X-CSRFToken": token, "Referer": base + "/"},
        )
        assert answer.ok, answer.text()
        sealed += 1
    assert sealed == count, f"sealed {sealed} of {count}"


def wear(user, *slugs: str) -> None:
    """Give ``user`` the shop items ``slugs`` (bought with granted Signs) and wear the cosmetics."""
    import uuid

    from shop import services as shop_services
    from shop.models import ShopItem

    shop_services.shop_catalogue_load()
    for slug in slugs:
        item = ShopItem.objects.get(slug=slug)
        shop_services.signs_credit(
            user=user, amount=item.price, reason="grant", key=f"e2e:{uuid.uuid4()}"
        )
        shop_services.item_purchase(
            user=user,
            key=uuid.uuid4().hex,
            request_hash=slug,
            item=slug,
            price=item.price,
            render=lambda data: b"{}",
        )
        if item.kind != "crew":
            shop_services.item_equip(user=user, kind=item.kind, item=slug)


def decline_tour(page) -> None:
    tour = page.locator("#b-tour")
    if tour.is_visible():
        tour.get_by_role("button", name="No thanks").click()
        expect(tour).to_be_hidden()


def finish_reveal(page):
    """Wait for the end of the reveal (the way on replaces Skip) and return the way on."""
    nxt = page.locator("#b-next")
    expect(nxt).to_have_text(
        re.compile(r"^(Next: night \d|See the result|Back to night \d)"), timeout=20_000
    )
    return nxt


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"] + 0.5
        and box["x"] + box["width"] <= size["width"] + 0.5
    )


def overlaps(a, b) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


FIXED_OR_STICKY = """
[...document.querySelectorAll('body *')]
  .filter(e => ['fixed', 'sticky'].includes(getComputedStyle(e).position))
  .filter(e => e.getClientRects().length)
  .map(e => e.id || e.className || e.tagName)
"""


# --- the board ------------------------------------------------------------------------------

CHEAP_DECK = [
    slug
    for slug in (
        "mirror-courier",
        "paper-decoy",
        "borrowed-face",
        "coolant-carrier",
        "spark",
        "emergency-vent",
    )
    for _ in range(2)
]


def touch(viewport) -> bool:
    """A phone (either way up) has a touch screen; the desktop has a mouse."""
    return viewport is not DESKTOP


def new_guest_board(page, base: str, *, rival: str = "Quiet Hands", level: str = "Rookie") -> None:
    """From the home page, as a new guest: Play, the age screen, the defaults, Start."""
    page.goto(base + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Play", exact=True).click()
    page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/play/")
    open_choices(page)  # the choices are folded under Quick heist
    page.get_by_role("radio", name=rival, exact=True).check()
    page.get_by_role("radio", name=level, exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()


def first_affordable_card(page):
    return page.locator(".card:not(.unaffordable):not(.sent)").first


def send_one(page, vault: int = 0) -> None:
    sent = page.locator(".card.sent").count()
    first_affordable_card(page).click()
    page.locator(".vault:not(.closed)").nth(vault).click()
    expect(page.locator(".card.sent")).to_have_count(sent + 1)


def send_two(page) -> None:
    send_one(page, 0)
    send_one(page, 1)


def seal(page) -> None:
    page.get_by_role("button", name=SEAL).click()


def play_by_api(page, base: str, hid: str, *, seed: int) -> dict:
    """Seal random legal plans night by night through the JSON API, as the page's session would
    (waiting for the rival's commitment first, as the board does); returns the last view."""
    import random
    import time

    from tests.support.heists import crew_costs, legal_plan

    rng = random.Random(seed)
    costs = crew_costs()
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = page.request.get(f"{base}/api/v1/heists/{hid}/").json()
        if view["status"] != "active":
            return view
        if view["phase"] != "planning":
            time.sleep(0.1)
            continue
        answer = page.request.post(
            f"{base}/api/v1/heists/{hid}/seal/",
            data=legal_plan(view, rng, costs),
            headers={"X-CSRFToken": token, "Referer": base + "/"},
        )
        assert answer.ok, answer.text()
    raise AssertionError("the heist did not finish")


def play_on_the_board(page) -> None:
    """Play every night left on the board as a player taps it: one crew into the first open
    vault, Seal, watch the reveal, on to the next night (its tip, on a first heist's nights 2
    and 3, read and closed); then the result page."""
    decline_tour(page)
    tip = page.locator("#b-tip")
    while True:
        # The pointer where the last tap left it (Next, after the page scrolled back up) can
        # rest on a card's edge: at 360 px the detail it shows is a line shorter than the
        # note it replaces, the hand moves under it, and the two take turns for ever. A
        # finger lifts; the mouse is taken away.
        page.mouse.move(0, 0)
        send_one(page)
        seal(page)
        nxt = finish_reveal(page)
        night = int(page.locator("#b-night").inner_text()) + 1
        if night > int(page.locator("#b-nights-total").inner_text()):
            expect(nxt).to_have_text(re.compile("^See the result"))
            nxt.click()
            page.wait_for_url(re.compile(r"/result/$"))
            return
        nxt.click()
        expect(page.locator("#b-night")).to_have_text(str(night))
        if night in (2, 3):
            with contextlib.suppress(PlaywrightTimeout):
                tip.wait_for(state="visible", timeout=3000)
        if tip.is_visible():
            tip.get_by_role("button", name="Got it").click()
            expect(tip).to_be_hidden()
