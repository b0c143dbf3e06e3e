"""The heist board's teaching and controls in a real Chromium on a phone (360x640), a phone held
sideways (640x360) and a desktop (1280x800): the guided first heist from the home page to the
result, with tips on nights 2 and 3 and the guide never over what it points at; the words of the
board defined where they appear, details on a hold or a hover; sealing with no crew asks first;
keyboard shortcuts; axe on every state; reduced motion with no animation. (The reveal, the
recap, the phone fit, encounters and cosmetics: test_board_reveal.py.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    CHEAP_DECK,
    DESKTOP,
    LANDSCAPE,
    PHONE,
    SEAL,
    audit,
    decline_tour,
    energy_left,
    finish_reveal,
    first_affordable_card,
    in_view,
    new_guest_board,
    open_choices,
    overlaps,
    seal,
    send_one,
    start_heist_by_api,
    touch,
)

SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
THREE = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)


# --- the first heist, taught ---------------------------------------------------------------------


@THREE
def test_guided_first_heist_from_the_home_page_to_the_result(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=touch(viewport))
    new_guest_board(page, site)
    tour = page.locator("#b-tour")
    expect(tour).to_contain_text("First heist?")
    audit(page, shots, "board-tour-offer")
    tour.get_by_role("button", name="Show me").click()

    def points_at(selector: str) -> None:
        # The guide is in the dock, in the page's flow: it never covers what it points at.
        target = page.locator(f"{selector}.tour-target").first
        expect(target).to_be_visible()
        assert not overlaps(tour.bounding_box(), target.bounding_box())

    expect(tour).to_have_attribute("data-step", "card")
    points_at(".card")
    expect(tour).to_contain_text("Cost")
    shots.take(page, "board-tour-card")
    first_affordable_card(page).click()
    expect(tour).to_have_attribute("data-step", "vault")
    points_at(".vault")
    page.locator(".vault:not(.closed)").first.click()
    expect(tour).to_have_attribute("data-step", "boost")
    points_at("#b-boost")
    expect(tour).to_contain_text("Heat")
    tour.get_by_role("button", name="Next").click()
    expect(tour).to_have_attribute("data-step", "seal")
    points_at("#b-seal")
    # The vault shows the power the plan gives it, computed by the server.
    expect(page.locator(".vault.has-crew .you-power")).to_contain_text("Power")
    expect(page.locator("#b-tomorrow")).to_contain_text("Tomorrow: Energy")
    audit(page, shots, "board-tour-seal")
    seal(page)
    expect(tour).to_have_attribute("data-step", "reveal")
    points_at("#b-vaults")
    nxt = finish_reveal(page)
    audit(page, shots, "board-tour-reveal")
    tour.get_by_role("button", name="Got it").click()
    expect(tour).to_be_hidden()
    # Offered once: this browser remembers it.
    assert page.evaluate("localStorage.getItem('veyltak.board.tour')") == "done"
    tip = page.locator("#b-tip")
    for night in range(2, 7):
        nxt.click()
        expect(page.locator("#b-night")).to_have_text(str(night))
        if night in (2, 3):
            # Short tips on nights 2 and 3 of the first heist: Heat and tomorrow's Energy, then
            # Boost (and a conditional crew in hand); never over the board.
            expect(tip).to_be_visible()
            expect(tip).to_have_text(
                re.compile(r"Heat \d gives you \d Energy" if night == 2 else r"bonus holds|Boost")
            )
            assert not overlaps(tip.bounding_box(), page.locator("#b-vaults").bounding_box())
            assert not overlaps(tip.bounding_box(), page.locator("#b-hand").bounding_box())
            assert in_view(page, page.get_by_role("button", name=SEAL))
            shots.take(page, f"board-tip-night-{night}")
            tip.get_by_role("button", name="Got it").click()
            expect(tip).to_be_hidden()
        else:
            expect(tip).to_be_hidden()
        send_one(page)
        seal(page)
        nxt = finish_reveal(page)
    expect(nxt).to_have_text("See the result")
    expect(page.locator("#b-rival-status")).to_contain_text("Heist over")
    audit(page, shots, "board-finished")
    nxt.click()
    page.wait_for_url(re.compile(r"/result/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(
        re.compile(r"You win|The rival wins|A draw")
    )
    # A second heist in the same browser: no offer, and no tips.
    page.goto(site + "/play/")
    open_choices(page)
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    expect(page.locator("#b-tour")).to_be_hidden()


# --- words, details, and the rest ----------------------------------------------------------------


@THREE
def test_the_words_of_the_board_are_defined_where_they_appear(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=touch(viewport))
    start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    # Cost and Power are labelled on every card.
    for card in page.locator(".card").all():
        expect(card.locator(".stat-cost small")).to_have_text("Cost")
        expect(card.locator(".stat-power small")).to_have_text("Power")
    sheet = page.locator("#b-detail")
    page.locator("#b-you .term[data-term='heat']").click()
    expect(sheet.locator("h2")).to_have_text("Heat")
    expect(sheet).to_contain_text("Energy")
    audit(page, shots, "board-term")
    sheet.get_by_role("button", name="Close").click()
    card = page.locator(".card").first
    if viewport is DESKTOP:
        # Pointing at a card says it in the note line.
        card.hover()
        expect(page.locator("#b-note")).to_contain_text("Cost")
    else:
        # Holding a card opens its details.
        box = card.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        card.dispatch_event("pointerdown", {"pointerType": "touch", "isPrimary": True})
        expect(sheet).to_be_visible()
        # The card's words, and the words it uses defined.
        expect(sheet).to_contain_text("Cost 1 Energy")
        expect(sheet.locator(".defined").first).to_contain_text("Cost")
        expect(sheet.locator(".defined").nth(1)).to_contain_text("Power")
        audit(page, shots, "board-card-details")
        card.dispatch_event("pointerup", {"pointerType": "touch", "isPrimary": True})
        sheet.get_by_role("button", name="Close").click()
        expect(card).to_have_attribute("aria-pressed", "false")
    seal(page)
    page.get_by_role("dialog", name="Lie low tonight?").get_by_role(
        "button", name="Lie low"
    ).click()
    finish_reveal(page)
    page.locator("#b-after .term[data-term='quiet']").first.click()
    expect(sheet.locator("h2")).to_have_text("stay quiet")
    expect(sheet).to_contain_text("cools")


@THREE
def test_sealing_with_no_crew_asks_first(site, new_page, shots, viewport):
    page = new_page(viewport)
    new_guest_board(page, site)
    decline_tour(page)
    seal = page.get_by_role("button", name=SEAL)
    # Quiet until a crew is sent.
    expect(seal).to_have_class(re.compile(r"\bquiet\b"))
    seal.click()
    dialog = page.get_by_role("dialog", name="Lie low tonight?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("cools")
    audit(page, shots, "board-lie-low")
    dialog.get_by_role("button", name="Keep planning").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#b-reveal")).to_be_hidden()
    expect(page.locator("#b-night")).to_have_text("1")
    seal.click()
    dialog.get_by_role("button", name="Lie low").click()
    expect(page.get_by_role("heading", name="Night 1 revealed")).to_be_visible()
    finish_reveal(page)
    # Sending a crew makes Seal loud; no question then.
    page.locator("#b-next").click()
    send_one(page)
    expect(seal).not_to_have_class(re.compile(r"\bquiet\b"))
    seal.click()
    expect(page.get_by_role("heading", name="Night 2 revealed")).to_be_visible()
    expect(page.get_by_role("dialog", name="Lie low tonight?")).to_be_hidden()


@SIZES
def test_keyboard_shortcuts(site, new_page, viewport):
    page = new_page(viewport)
    new_guest_board(page, site)
    decline_tour(page)
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
    finish_reveal(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "b-next"
    page.keyboard.press("Enter")
    expect(page.locator("#b-night")).to_have_text("2")
    # Digits do nothing while a dialog is open.
    page.locator("#b-help-open").click()
    expect(page.get_by_role("dialog", name="How a night works")).to_be_visible()
    page.keyboard.press("1")
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "false")


@THREE
def test_every_state_of_the_board_passes_axe(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=touch(viewport))
    new_guest_board(page, site, rival="The Furnace", level="Hustler")
    decline_tour(page)
    audit(page, shots, "board-planning")
    # Difficulty and the rival's style are on the board.
    expect(page.locator("#b-meta")).to_contain_text("Hustler")
    expect(page.locator("#b-meta")).to_contain_text("Runs hot")
    first_affordable_card(page).click()
    audit(page, shots, "board-card-picked")
    page.locator(".vault:not(.closed)").first.click()
    expect(page.locator(".vault.has-crew .you-power")).to_be_visible()
    audit(page, shots, "board-planned")
    # The help: the night's steps, the Heat -> Energy table and the board's words.
    page.get_by_role("button", name="How to play").click()
    help_ = page.get_by_role("dialog", name="How a night works")
    expect(help_.locator(".help-steps li")).to_have_count(4)
    expect(help_.locator(".heat-table td")).to_have_count(14)
    expect(help_.locator(".glossary dt").first).to_be_visible()
    audit(page, shots, "board-help")
    help_.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Settings").click()
    settings = page.get_by_role("dialog", name="Settings")
    expect(settings.get_by_label("Sound effects")).not_to_be_checked()  # off by default
    audit(page, shots, "board-settings")
    settings.get_by_role("button", name="Done").click()
    # The rival's public deck and discard, one tap away on its pile.
    page.get_by_role("button", name=re.compile(r"The Furnace's deck")).click()
    piles = page.get_by_role("dialog", name="Decks and discards")
    expect(piles).to_contain_text("whole deck")
    audit(page, shots, "board-piles")
    piles.get_by_role("button", name="Close").click()
    seal(page)
    finish_reveal(page)
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
    new_guest_board(page, site)
    expect(page.locator("#b-tour")).to_be_visible()
    page.get_by_role("button", name="Show me").click()
    assert page.evaluate("document.getAnimations().length") == 0
    send_one(page)
    seal(page)
    expect(page.locator("#b-next")).to_have_text("Next: night 2")
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate(
        "[...document.querySelectorAll('.vault, .chip, .tour-target')].every("
        "e => getComputedStyle(e).animationName === 'none')"
    )
    # The board's own setting does the same where the system allows motion.
    page2 = new_page(viewport, reduced_motion="no-preference")
    new_guest_board(page2, site)
    page2.get_by_role("button", name="Show me").click()
    assert page2.evaluate("document.getAnimations().length") > 0  # the guide's pulse
    page2.get_by_role("button", name="Settings").click()
    page2.get_by_label("Reduce motion (no animation)").check()
    page2.get_by_role("button", name="Done").click()
    assert page2.evaluate("document.getAnimations().length") == 0
    send_one(page2)
    seal(page2)
    # Instant: the way on is there as soon as the reveal is, with nothing moving.
    expect(page2.locator("#b-next")).to_have_text("Next: night 2")
    assert page2.evaluate("document.getAnimations().length") == 0
