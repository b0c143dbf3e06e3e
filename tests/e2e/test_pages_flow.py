"""The pages around the board in Chromium (issue 18): a new guest from the home page to the
first sealed night, counting taps, and Quick heist in the first screen, on a phone and a
desktop; "Continue your heist", the result's win, draw and loss and the replay stepped night by
night on a phone, a phone held sideways and a desktop (and without JavaScript). axe finds
nothing serious or critical on each page; screenshots of each state go to the e2e artifacts
folder.

The taps count is printed (run with ``-s`` or read the terminal summary):
``taps from the home page to the first sealed night (<size>): N``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    ADULT_BIRTH_DATE,
    DESKTOP,
    LANDSCAPE,
    PHONE,
    SEAL,
    audit,
    finish_heist_by_api,
    heist_id,
)
from tests.support.heists import age_checked_client, fix_the_game_seeds, heists_by_outcome

TAPS_MAX = 6  # issue 18: home page to the first sealed night, besides typing the date of birth
SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
THREE = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)


def _size(viewport) -> str:
    return "phone" if viewport["width"] <= 400 else "desktop"


def _in_first_screen(page, locator) -> bool:
    """Visible without scrolling: the page is at its top and the element ends inside the
    viewport."""
    box = locator.bounding_box()
    return (
        page.evaluate("window.scrollY") == 0
        and box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= page.viewport_size["height"]
    )


class Taps:
    """Counts what a player taps (or clicks, on a desktop) on the way."""

    def __init__(self, page, touch: bool) -> None:
        self.page, self.touch, self.count, self.log = page, touch, 0, []

    def __call__(self, locator, what: str) -> None:
        self.count += 1
        self.log.append(what)
        if self.touch:
            locator.tap()
        else:
            locator.click()


def _covered(page, locator) -> bool:
    """Whether something (the board's guide, say) lies over the middle of ``locator``."""
    return not locator.evaluate(
        """(el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return el === hit || el.contains(hit);
        }"""
    )


@SIZES
def test_new_guest_from_home_to_first_sealed_night_counting_taps(
    site, new_page, shots, viewport, capsys
):
    phone = viewport == PHONE
    page = new_page(viewport, has_touch=phone, is_mobile=phone)
    tap = Taps(page, phone)
    page.goto(site + "/")
    audit(page, shots, "flow-home")
    tap(page.get_by_role("link", name="Play now"), "Play now")
    page.wait_for_url(re.compile(r"/age-check/"))
    page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)  # typing: not counted
    tap(page.get_by_role("button", name="Continue"), "Continue (age check)")
    page.wait_for_url(re.compile(r"/play/$"))

    # Phone screens scrolled to start a heist: none, Quick heist is in the first screen.
    quick = page.get_by_role("button", name="Quick heist")
    expect(quick).to_be_visible()
    assert _in_first_screen(page, quick), quick.bounding_box()
    expect(page.locator("details.more-choices")).not_to_have_attribute("open", "")
    audit(page, shots, "flow-play")
    tap(quick, "Quick heist")
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    card = page.locator(".card:not(.unaffordable)").first
    expect(card).to_be_visible()
    shots.take(page, "flow-board")

    # The board's guide, if it is offered, is a newcomer's to follow or wave away: a tap on
    # it is counted like any other.
    guide = page.locator("#b-tour")
    if guide.count() and guide.is_visible() and _covered(page, card):
        tap(page.locator("#b-tour-skip"), "guide: not now")
    tap(card, "a crew card")
    vault = page.locator(".vault:not(.closed)").first
    if guide.count() and guide.is_visible() and _covered(page, vault):
        tap(page.locator("#b-tour-skip"), "guide: not now")
    tap(vault, "a vault")
    seal = page.get_by_role("button", name=SEAL)
    if guide.count() and guide.is_visible() and _covered(page, seal):
        tap(page.locator("#b-tour-skip"), "guide: not now")
    with page.expect_response(lambda r: r.url.endswith("/seal/") and r.status == 200):
        tap(seal, "Seal")
    expect(page.locator("#b-verify")).to_have_attribute("data-verified", "true")
    shots.take(page, "flow-first-sealed-night")

    with capsys.disabled():
        print(
            f"\ntaps from the home page to the first sealed night ({_size(viewport)}): "
            f"{tap.count} ({', '.join(tap.log)})"
        )
        print(f"screens scrolled on the Play page to start a heist ({_size(viewport)}): 0")
    assert tap.count <= TAPS_MAX, tap.log


@THREE
def test_continue_your_heist_appears_and_opens_the_board(site, new_page, shots, viewport):
    page = new_page(viewport)
    page.goto(site + "/play/")
    page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(r"/play/$"))
    expect(page.get_by_role("link", name="Continue your heist")).to_have_count(0)
    page.get_by_role("button", name="Quick heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    board = page.url
    for path, name in (("/", "continue-home"), ("/play/", "continue-play")):
        page.goto(site + path)
        link = page.get_by_role("link", name="Continue your heist")
        expect(link).to_be_visible()
        assert _in_first_screen(page, link)
        audit(page, shots, name)
        link.click()
        page.wait_for_url(board)
        expect(page.locator(".card").first).to_be_visible()
    # Over: the way back goes.
    finish_heist_by_api(page, site, heist_id(page))
    page.goto(site + "/")
    expect(page.get_by_role("link", name="Continue your heist")).to_have_count(0)


def _finished_heist(page, site) -> str:
    page.goto(site + "/play/")
    page.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(r"/play/$"))
    page.get_by_role("button", name="Quick heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    hid = heist_id(page)
    finish_heist_by_api(page, site, hid)
    return hid


@THREE
def test_result_page_win_draw_and_loss(site, new_page, shots, viewport, settings, monkeypatch):
    """Three real heists, played to their end through the API by one guest (the first win,
    draw and loss of a fixed series), each result page seen in that guest's browser."""
    settings.RIVAL_FALLBACK_SECONDS = 0
    fix_the_game_seeds(monkeypatch, "result-page")
    guest = age_checked_client()
    played = heists_by_outcome(guest, rival="furnace", difficulty="rookie")
    page = new_page(viewport)
    page.context.add_cookies(
        [{"name": name, "value": c.value, "url": site} for name, c in guest.cookies.items()]
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    looks = {}
    for outcome, title in (("win", "You win"), ("draw", "A draw"), ("loss", "The rival wins")):
        view = played[outcome]
        hid = view["id"]
        page.goto(f"{site}/heists/{hid}/result/")
        expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(title))
        banner = page.locator(".result-banner")
        expect(banner).to_have_class(re.compile(rf"result-{outcome}"))
        score = f"You {view['you']['score']} · {view['rival']['name']} {view['rival']['score']}"
        expect(banner.locator(".final-score")).to_have_text(f"Final score: {score}")
        looks[outcome] = banner.evaluate(
            "(el) => [getComputedStyle(el).borderColor, getComputedStyle(el).borderStyle,"
            " getComputedStyle(el.querySelector('.result-mark')).backgroundColor].join()"
        )
        rematch = page.get_by_role("button", name="Rematch", exact=True)
        expect(rematch).to_be_visible()
        assert _in_first_screen(page, rematch), f"{outcome}: Rematch below the first screen"
        next_level = page.get_by_role("button", name="Try the next level")
        expect(next_level).to_have_count(1 if outcome == "win" else 0)
        if outcome == "win":
            assert _in_first_screen(page, next_level)
        expect(page.locator(".highlights")).to_contain_text("Best night")
        expect(page.locator(".highlights")).to_contain_text("Vaults taken")
        audit(page, shots, f"result-{outcome}")
    assert len(set(looks.values())) == 3, looks

    # The shareable summary: the replay's link, and a copy button that copies it.
    link = page.locator("#share-link").input_value()
    assert f"/heists/{hid}/replay/?share=" in link
    page.get_by_role("button", name="Copy the summary").click()
    expect(page.locator("#share-status")).to_contain_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(link) and "I lost to" in copied

    # Rematch is one tap: the same rival and deck, a new heist's board.
    page.get_by_role("button", name="Rematch", exact=True).click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    assert heist_id(page) != hid


@THREE
def test_replay_steps_night_by_night_and_folds_the_details(site, new_page, shots, viewport):
    page = new_page(viewport)
    hid = _finished_heist(page, site)
    page.goto(f"{site}/heists/{hid}/result/")
    page.get_by_role("link", name="Watch the replay").click()
    page.wait_for_url(re.compile(r"/replay/"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("night 1 of 6")
    expect(page.locator(".replay-hand")).to_have_count(2)
    expect(page.locator(".you-side .mini-card").first).to_be_visible()
    expect(page.locator(".rival-side .mini-card").first).to_be_visible()
    # Plain words in view; the seeds and the command line folded away.
    details = page.locator("details.tech-details")
    expect(details).not_to_have_attribute("open", "")
    expect(page.get_by_text("python -m game.engine.replay FILE.json")).to_be_hidden()
    audit(page, shots, "replay-night-1")
    details.locator("summary").click()
    expect(page.get_by_text("python -m game.engine.replay FILE.json")).to_be_visible()
    audit(page, shots, "replay-details-open")
    for night in range(2, 7):
        page.get_by_role("link", name=f"Night {night} →").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(f"night {night} of 6")
    audit(page, shots, "replay-night-6")
    page.get_by_role("link", name="← Night 5").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("night 5 of 6")

    # The shared link: another browser steps through it too.
    page.goto(f"{site}/heists/{hid}/result/")
    shared = page.locator("#share-link").input_value()
    friend = new_page(viewport)
    friend.goto(shared)
    friend.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    friend.get_by_role("button", name="Continue").click()
    expect(friend.get_by_role("heading", level=1)).to_contain_text("night 1 of 6")
    friend.get_by_role("link", name="Night 2 →").click()
    expect(friend.get_by_role("heading", level=1)).to_contain_text("night 2 of 6")
    audit(friend, shots, "replay-shared")


def test_replay_steps_without_javascript(site, new_page):
    page = new_page(PHONE)
    hid = _finished_heist(page, site)
    state = page.context.storage_state()
    plain = new_page(PHONE, java_script_enabled=False, storage_state=state)
    plain.goto(f"{site}/heists/{hid}/replay/")
    for night in range(2, 4):
        plain.get_by_role("link", name=f"Night {night} →").click()
        expect(plain.get_by_role("heading", level=1)).to_contain_text(f"night {night} of 6")
    plain.get_by_role("link", name="← Night 2").click()
    expect(plain.get_by_role("heading", level=1)).to_contain_text("night 2 of 6")
    # Without JavaScript the link is there to copy, and no dead copy button shows.
    plain.goto(f"{site}/heists/{hid}/result/")
    expect(plain.locator("#share-link")).to_be_visible()
    expect(plain.get_by_role("button", name="Copy the summary")).to_be_hidden()
