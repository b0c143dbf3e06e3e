"""The heist board in a real Chromium at phone and desktop size: the guided first heist from the
home page to the result, a reveal that never spoils the score, Next on screen on a phone, sealing
with no crew asks first, keyboard shortcuts, axe on every state of the board, reduced motion with
no animation; a screenshot of every state at both sizes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    ADULT_BIRTH_DATE,
    DESKTOP,
    PHONE,
    SEAL,
    audit,
    energy_left,
    open_choices,
)

SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])


def _new_guest_board(page, base: str, *, rival: str = "Quiet Hands", level: str = "Rookie") -> None:
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


def _first_affordable_card(page):
    return page.locator(".card:not(.unaffordable):not(.sent)").first


def _send_one(page) -> None:
    _first_affordable_card(page).click()
    page.locator(".vault:not(.closed)").first.click()
    expect(page.locator(".card.sent")).to_have_count(1)


def _finish_reveal(page):
    """Wait for the end of the reveal (the way on replaces Skip) and return the way on."""
    nxt = page.locator("#b-next")
    expect(nxt).to_have_text(re.compile(r"^(Next: night \d|See the result)"))
    return nxt


def _decline_tour(page) -> None:
    tour = page.locator("#b-tour")
    if tour.is_visible():
        tour.get_by_role("button", name="No thanks").click()
        expect(tour).to_be_hidden()


@SIZES
def test_guided_first_heist_from_the_home_page_to_the_result(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=viewport is PHONE)
    _new_guest_board(page, site)
    tour = page.locator("#b-tour")
    expect(tour).to_contain_text("First heist?")
    audit(page, shots, "board-tour-offer")
    tour.get_by_role("button", name="Show me").click()
    # The guide points at a card, moves on when one is picked, then at a vault...
    expect(tour).to_have_attribute("data-step", "card")
    expect(page.locator(".card.tour-target").first).to_be_visible()
    shots.take(page, "board-tour-card")
    _first_affordable_card(page).click()
    expect(tour).to_have_attribute("data-step", "vault")
    expect(page.locator(".vault.tour-target").first).to_be_visible()
    shots.take(page, "board-tour-vault")
    page.locator(".vault:not(.closed)").first.click()
    # ... Boost (with the words of what it does), Seal, and the reveal.
    expect(tour).to_have_attribute("data-step", "boost")
    expect(page.locator("#b-boost.tour-target")).to_be_visible()
    expect(tour).to_contain_text("Heat")
    shots.take(page, "board-tour-boost")
    tour.get_by_role("button", name="Next").click()
    expect(tour).to_have_attribute("data-step", "seal")
    expect(page.locator("#b-seal.tour-target")).to_be_visible()
    # The vault shows the power the plan gives it, computed by the server.
    expect(page.locator(".vault.has-crew .you-power")).to_contain_text("Power")
    expect(page.locator("#b-tomorrow")).to_contain_text("Tomorrow: Energy")
    audit(page, shots, "board-tour-seal")
    page.get_by_role("button", name=SEAL).click()
    expect(tour).to_have_attribute("data-step", "reveal")
    nxt = _finish_reveal(page)
    audit(page, shots, "board-tour-reveal")
    tour.get_by_role("button", name="Got it").click()
    expect(tour).to_be_hidden()
    # Offered once: this browser remembers it.
    assert page.evaluate("localStorage.getItem('veyltak.board.tour')") == "done"
    for night in range(2, 7):
        nxt.click()
        expect(page.locator("#b-night")).to_have_text(str(night))
        _send_one(page)
        page.get_by_role("button", name=SEAL).click()
        nxt = _finish_reveal(page)
    expect(nxt).to_have_text("See the result")
    expect(page.locator("#b-rival-status")).to_contain_text("Heist over")
    nxt.click()
    page.wait_for_url(re.compile(r"/result/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(
        re.compile(r"You win|The rival wins|A draw")
    )
    # A second heist in the same browser: no offer.
    page.go_back()
    page.goto(site + "/play/")
    open_choices(page)
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    expect(page.locator("#b-tour")).to_be_hidden()


_WATCH = """
() => {
  const log = [];
  window.__revealLog = log;
  const note = (what) => log.push(what);
  for (const id of ["b-score-you", "b-score-rival", "b-night"]) {
    new MutationObserver(() => note("header:" + id)).observe(document.getElementById(id),
      {childList: true, characterData: true, subtree: true});
  }
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes" && r.target.classList?.contains("winner") && !r.target.hidden)
        note("winner");
    }
  }).observe(document.getElementById("b-reveal"), {attributes: true, subtree: true,
    attributeFilter: ["hidden"]});
}
"""


@SIZES
def test_the_reveal_plays_out_and_spoils_nothing_and_next_is_on_screen(
    site, new_page, shots, viewport
):
    # Motion allowed: the reveal plays vault by vault.
    page = new_page(viewport, reduced_motion="no-preference", has_touch=viewport is PHONE)
    _new_guest_board(page, site)
    _decline_tour(page)
    for night in (1, 2):
        before = (
            page.locator("#b-score-you").inner_text(),
            page.locator("#b-score-rival").inner_text(),
        )
        _send_one(page)
        page.evaluate(_WATCH)
        page.get_by_role("button", name=SEAL).click()
        # While it plays: Skip is there, the header still shows the night and score before.
        expect(page.locator("#b-next")).to_be_visible()
        if night == 1:
            shots.take(page, "board-reveal-playing")
        nxt = _finish_reveal(page)
        log = page.evaluate("window.__revealLog")
        assert log.count("winner") == 3, log
        # The header changes last: after every vault's winner.
        header = [i for i, e in enumerate(log) if e.startswith("header:")]
        assert header, log
        assert min(header) > max(i for i, e in enumerate(log) if e == "winner"), log
        after = (
            page.locator("#b-score-you").inner_text(),
            page.locator("#b-score-rival").inner_text(),
        )
        final = page.locator(".night-score").inner_text()
        assert f"You {after[0]}" in final and f"Rival {after[1]}" in final, (before, final)
        # Next on screen without scrolling (pinned on phones), and the badge in plain words.
        box = nxt.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box
        badge = page.locator("details.fair")
        expect(badge.locator("summary")).to_have_text("Fair play ✓ Verified")
        expect(badge.locator(".tech")).to_be_hidden()
        if night == 1:
            audit(page, shots, "board-reveal-end")
            badge.locator("summary").click()
            expect(badge.locator(".tech")).to_contain_text("Nonce")
            shots.take(page, "board-reveal-fair-play")
        nxt.click()
        expect(page.locator("#b-night")).to_have_text(str(night + 1))


@SIZES
def test_sealing_with_no_crew_asks_first(site, new_page, shots, viewport):
    page = new_page(viewport)
    _new_guest_board(page, site)
    _decline_tour(page)
    seal = page.get_by_role("button", name=SEAL)
    # Quiet until a crew is sent.
    expect(seal).to_have_class(re.compile(r"\bquiet\b"))
    seal.click()
    dialog = page.get_by_role("dialog", name="Lie low tonight?")
    expect(dialog).to_be_visible()
    audit(page, shots, "board-lie-low")
    dialog.get_by_role("button", name="Keep planning").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#b-reveal")).to_be_hidden()
    expect(page.locator("#b-night")).to_have_text("1")
    seal.click()
    dialog.get_by_role("button", name="Lie low").click()
    expect(page.get_by_role("heading", name="Night 1 revealed")).to_be_visible()
    _finish_reveal(page)
    # Sending a crew makes Seal loud; no question then.
    page.locator("#b-next").click()
    _send_one(page)
    expect(seal).not_to_have_class(re.compile(r"\bquiet\b"))
    seal.click()
    expect(page.get_by_role("heading", name="Night 2 revealed")).to_be_visible()
    expect(page.get_by_role("dialog", name="Lie low tonight?")).to_be_hidden()


@SIZES
def test_keyboard_shortcuts(site, new_page, viewport):
    page = new_page(viewport)
    _new_guest_board(page, site)
    _decline_tour(page)
    page.locator("#b-title").focus()
    cards = page.locator(".card")
    # 1 picks the first card and moves focus to a vault; Enter sends it there.
    page.keyboard.press("1")
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.activeElement.dataset.vault") is not None
    page.keyboard.press("Enter")
    expect(cards.nth(0)).to_contain_text("Sent to")
    # 1 again takes it back; send it again.
    page.keyboard.press("1")
    expect(cards.nth(0)).not_to_contain_text("Sent to")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(cards.nth(0)).to_contain_text("Sent to")
    # B toggles Boost (when the rules allow it).
    boost = page.locator("#b-boost")
    if boost.get_attribute("aria-disabled") == "false":
        page.keyboard.press("b")
        expect(boost).to_have_attribute("aria-checked", "true")
        page.keyboard.press("B")
        expect(boost).to_have_attribute("aria-checked", "false")
        page.keyboard.press("b")
        expect(boost).to_have_attribute("aria-checked", "true")
    # A third card while the crew is full says so, once, and picks nothing.
    if cards.count() >= 3 and energy_left(page) >= 1:
        page.keyboard.press("2")
        page.keyboard.press("Enter")
        page.keyboard.press("3")
        if page.locator(".card.sent").count() == 2:
            expect(page.locator("#b-note")).to_contain_text("at most 2 crew")
            expect(page.locator("#b-note")).not_to_contain_text("Now tap a vault")
            expect(page.locator(".card[aria-pressed='true']")).to_have_count(0)
    # Space seals.
    page.locator("#b-title").focus()
    page.keyboard.press("Space")
    expect(page.get_by_role("heading", name="Night 1 revealed")).to_be_visible()
    _finish_reveal(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "b-next"
    page.keyboard.press("Enter")
    expect(page.locator("#b-night")).to_have_text("2")
    # Digits do nothing while a dialog is open.
    page.locator("#b-help-open").click()
    expect(page.get_by_role("dialog", name="How a night works")).to_be_visible()
    page.keyboard.press("1")
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "false")


@SIZES
def test_every_state_of_the_board_passes_axe(site, new_page, shots, viewport):
    page = new_page(viewport)
    _new_guest_board(page, site, rival="The Furnace", level="Hustler")
    _decline_tour(page)
    audit(page, shots, "board-planning")
    # Difficulty and the rival's style are on the board.
    expect(page.locator("#b-meta")).to_contain_text("Hustler")
    expect(page.locator("#b-meta")).to_contain_text("Runs hot")
    _first_affordable_card(page).click()
    audit(page, shots, "board-card-picked")
    page.locator(".vault:not(.closed)").first.click()
    expect(page.locator(".vault.has-crew .you-power")).to_be_visible()
    audit(page, shots, "board-planned")
    # The help: the night's steps and the Heat -> Energy table from the ruleset.
    page.get_by_role("button", name="How to play").click()
    help_ = page.get_by_role("dialog", name="How a night works")
    expect(help_.locator(".help-steps li")).to_have_count(4)
    expect(help_.locator(".heat-table td")).to_have_count(14)
    audit(page, shots, "board-help")
    help_.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Settings").click()
    settings = page.get_by_role("dialog", name="Settings")
    expect(settings.get_by_label("Sound effects")).not_to_be_checked()  # off by default
    audit(page, shots, "board-settings")
    settings.get_by_role("button", name="Done").click()
    # The rival's public deck and discard, one tap away.
    page.get_by_role("button", name=re.compile(r"Rival's deck")).click()
    piles = page.get_by_role("dialog", name="Decks and discards")
    expect(piles).to_contain_text("whole deck")
    audit(page, shots, "board-piles")
    piles.get_by_role("button", name="Close").click()
    page.get_by_role("button", name=SEAL).click()
    _finish_reveal(page)
    audit(page, shots, "board-reveal")
    page.locator("#b-next").click()
    # Last night's winners marked on the vaults (when anyone won one).
    history = page.evaluate(
        "fetch(location.pathname.replace('/heists/', '/api/v1/heists/')).then(r => r.json())"
    )["history"]
    won = [v["slug"] for v in history[-1]["vaults"] if v["winner"]]
    for slug in won:
        expect(page.locator(f".vault[data-vault='{slug}'] .last-night")).to_contain_text(
            "Last night"
        )
    audit(page, shots, "board-night-2")


@SIZES
def test_reduced_motion_gives_no_animation(site, new_page, viewport):
    # The system's wish: no animation at all, the reveal instant.
    page = new_page(viewport, reduced_motion="reduce")
    _new_guest_board(page, site)
    expect(page.locator("#b-tour")).to_be_visible()
    page.get_by_role("button", name="Show me").click()
    assert page.evaluate("document.getAnimations().length") == 0
    _send_one(page)
    page.get_by_role("button", name=SEAL).click()
    expect(page.locator("#b-next")).to_have_text("Next: night 2")
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate(
        "[...document.querySelectorAll('.rv, .tour-target')].every("
        "e => getComputedStyle(e).animationName === 'none')"
    )
    # The board's own setting does the same where the system allows motion.
    page2 = new_page(viewport, reduced_motion="no-preference")
    _new_guest_board(page2, site)
    page2.get_by_role("button", name="Show me").click()
    assert page2.evaluate("document.getAnimations().length") > 0  # the guide's pulse
    page2.get_by_role("button", name="Settings").click()
    page2.get_by_label("Reduce motion (no animation)").check()
    page2.get_by_role("button", name="Done").click()
    assert page2.evaluate("document.getAnimations().length") == 0
    _send_one(page2)
    page2.get_by_role("button", name=SEAL).click()
    # Instant: the way on is there as soon as the reveal is, with nothing moving.
    expect(page2.locator("#b-next")).to_have_text("Next: night 2")
    assert page2.evaluate("document.getAnimations().length") == 0
