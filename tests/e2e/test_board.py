"""The heist board in a real Chromium on a phone (360x640), a phone held sideways (640x360) and a
desktop (1280x800): the guided first heist from the home page to the result, with tips on nights
2 and 3; the reveal played in the very vault elements the night was planned on, spoiling nothing,
with nothing fixed or sticky over it; Seal in view with two crew placed; a reload mid-reveal that
shows that night; every played night seen again from its dot; the encounter's marks on the vaults
it changes; the worn card back on both sides' piles; the words of the board defined where they
appear; sealing with no crew asks first; keyboard shortcuts; axe on every state; reduced motion
with no animation. A screenshot of every stage at every size."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ADULT_BIRTH_DATE, DESKTOP, LANDSCAPE, PHONE
from tests.e2e.helpers import (
    FIXED_OR_STICKY,
    SEAL,
    audit,
    decline_tour,
    energy_left,
    finish_reveal,
    in_view,
    open_choices,
    overlaps,
    seal_nights_by_api,
    sign_in_new_player,
    start_heist_by_api,
    wear,
)

SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
THREE = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)
# Twelve cards of cost 1: any two of a hand fit night 1's Energy.
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


def _touch(viewport) -> bool:
    return viewport is not DESKTOP


def _new_guest_board(page, base: str, *, rival: str = "Quiet Hands", level: str = "Rookie") -> None:
    """From the home page, as a new guest: Play, the age screen, the defaults, Start."""
    page.goto(base + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Play").click()
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


def _send_one(page, vault: int = 0) -> None:
    sent = page.locator(".card.sent").count()
    _first_affordable_card(page).click()
    page.locator(".vault:not(.closed)").nth(vault).click()
    expect(page.locator(".card.sent")).to_have_count(sent + 1)


def _send_two(page) -> None:
    _send_one(page, 0)
    _send_one(page, 1)


def _seal(page) -> None:
    page.get_by_role("button", name=SEAL).click()


# --- the first heist, taught ---------------------------------------------------------------------


@SIZES
def test_guided_first_heist_from_the_home_page_to_the_result(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=_touch(viewport))
    _new_guest_board(page, site)
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
    _first_affordable_card(page).click()
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
    _seal(page)
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
        _send_one(page)
        _seal(page)
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


# --- the reveal on the board -------------------------------------------------------------------

_TAG_VAULTS = """
() => {
  // Each vault element as planned on, tagged: the reveal must happen in these very elements.
  document.querySelectorAll('.vault').forEach((v, i) => { v.__planned = i + 1; });
  const log = [];
  window.__revealLog = log;
  for (const id of ['b-score-you', 'b-score-rival']) {
    const node = document.getElementById(id);
    let shown = node.textContent;
    new MutationObserver(() => {
      if (node.textContent === shown) return;
      shown = node.textContent;
      log.push('score:' + id + '=' + shown);
    }).observe(node, {childList: true, characterData: true, subtree: true});
  }
  new MutationObserver(() => {
    const done = document.querySelectorAll('.vault .verdict:not(:empty)').length;
    if (log[log.length - 1] !== 'verdicts=' + done) log.push('verdicts=' + done);
  }).observe(document.getElementById('b-vaults'), {childList: true, subtree: true});
}
"""


@THREE
def test_the_reveal_plays_in_the_vaults_it_was_planned_on(site, new_page, shots, viewport):
    # Motion allowed: the reveal plays vault by vault.
    page = new_page(viewport, reduced_motion="no-preference", has_touch=_touch(viewport))
    hid = start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    _send_two(page)
    page.evaluate(_TAG_VAULTS)
    _seal(page)
    # The rival's crew turn face up in a vault the night was planned on, beside yours.
    rival_chip = page.locator(".vault .rival-zone .chip:not(.none)").first
    expect(rival_chip).to_be_visible()
    expect(page.locator("#b-reveal")).to_be_visible()
    assert page.evaluate("document.querySelector('.vault.current, .vault.done').__planned") >= 1
    assert page.evaluate("[...document.querySelectorAll('.vault')].every(v => v.__planned)")
    expect(page.locator("#b-next")).to_have_text("Skip ahead")
    shots.screen(page, "board-mid-reveal")
    assert page.evaluate(FIXED_OR_STICKY) == []
    nxt = finish_reveal(page)
    # Every vault has its verdict, in words as well as colour, inside the planned element.
    verdicts = page.locator(".vault .verdict")
    expect(verdicts).to_have_count(3)
    for verdict in verdicts.all():
        expect(verdict).to_have_text(re.compile(r"^[✓✗=] "))
    assert page.evaluate("[...document.querySelectorAll('.vault')].every(v => v.__planned)")
    # A score changed only once a vault's winner was marked, and ends at the night's score.
    log = page.evaluate("window.__revealLog")
    for i, entry in enumerate(log):
        if entry.startswith("score:"):
            assert any(e.startswith("verdicts=") and e != "verdicts=0" for e in log[:i]), log
    night = page.request.get(f"{site}/api/v1/heists/{hid}/").json()["history"][0]
    expect(page.locator("#b-score-you")).to_have_text(str(night["score"]["you"]))
    expect(page.locator("#b-score-rival")).to_have_text(str(night["score"]["rival"]))
    # Nothing fixed or sticky covers a result, and the way on is on screen.
    assert page.evaluate(FIXED_OR_STICKY) == []
    assert in_view(page, nxt)
    for vault in page.locator(".vault").all():
        assert not overlaps(nxt.bounding_box(), vault.bounding_box())
    # Heat changes said by their parts; the rival's commitment checked in plain words.
    for line in page.locator(".heat-change").all():
        expect(line).to_have_text(re.compile(r"Heat \d → \d: \S"))
    badge = page.locator("details.fair")
    expect(badge.locator("summary")).to_have_text("Fair play ✓ Verified")
    audit(page, shots, "board-reveal-end")
    # Each crew's Power, one tap away.
    page.locator(".vault").first.click()
    sheet = page.locator("#b-detail")
    expect(sheet).to_be_visible()
    expect(sheet).to_contain_text("Your crew")
    expect(sheet).to_contain_text("Total")
    audit(page, shots, "board-reveal-breakdown")
    sheet.get_by_role("button", name="Close").click()
    nxt.click()
    expect(page.locator("#b-night")).to_have_text("2")
    expect(page.locator(".vault .rival-zone .chip:not(.none)")).to_have_count(0)


@THREE
def test_skip_and_the_speed_setting(site, new_page, viewport):
    page = new_page(viewport, reduced_motion="no-preference", has_touch=_touch(viewport))
    start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    _send_one(page)
    _seal(page)
    page.get_by_role("button", name="Skip ahead").click()
    finish_reveal(page)
    expect(page.locator(".vault .verdict:not(:empty)")).to_have_count(3)
    page.locator("#b-next").click()
    page.get_by_role("button", name="Settings").click()
    page.get_by_label("Instant").check()
    page.get_by_role("button", name="Done").click()
    _send_one(page)
    _seal(page)
    # Instant: the way on is there as soon as the reveal is.
    expect(page.locator("#b-next")).to_have_text("Next: night 3", timeout=3000)


@THREE
def test_seal_is_in_view_with_two_crew_placed(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=_touch(viewport))
    start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    _send_two(page)
    seal = page.get_by_role("button", name=SEAL)
    assert in_view(page, seal), (seal.bounding_box(), page.evaluate("scrollY"))
    for card in page.locator(".card").all():
        assert in_view(page, card), card.bounding_box()
    # Two crew placed, in the vaults and on the cards, with their Power from the server.
    expect(page.locator(".vault .you-zone .chip:not(.none)")).to_have_count(2)
    expect(page.locator(".vault.has-crew .you-power").first).to_contain_text("Power")
    audit(page, shots, "board-two-crew")
    shots.screen(page, "board-two-crew")


# --- every night seen again -----------------------------------------------------------------------


@THREE
def test_a_reload_mid_reveal_shows_that_night_and_every_night_can_be_seen_again(
    site, new_page, shots, viewport
):
    page = new_page(viewport, reduced_motion="no-preference", has_touch=_touch(viewport))
    hid = start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    _send_two(page)
    _seal(page)
    expect(page.locator(".vault .rival-zone .chip:not(.none)").first).to_be_visible()
    page.reload()
    # The night is not skipped: it plays again on the vaults, and the way on follows.
    expect(page.locator("#b-reveal h2")).to_contain_text("Night 1")
    expect(page.locator(".vault .you-zone .chip:not(.none)")).to_have_count(2)
    nxt = finish_reveal(page)
    expect(nxt).to_have_text("Next: night 2")
    expect(page.locator(".vault .verdict:not(:empty)")).to_have_count(3)
    nxt.click()
    expect(page.locator("#b-night")).to_have_text("2")
    # Night 2's plan half made, then night 1 seen again from its dot, and back.
    _send_one(page)
    page.get_by_role("button", name="Night 1: see it again").click()
    recap = page.locator("#b-reveal")
    expect(recap.locator("h2")).to_have_text("Night 1, played")
    expect(page.locator(".vault .you-zone .chip:not(.none)")).to_have_count(2)
    expect(page.locator(".vault .verdict:not(:empty)")).to_have_count(3)
    audit(page, shots, "board-recap")
    page.get_by_role("button", name="Back to night 2").click()
    expect(page.locator("#b-night")).to_have_text("2")
    expect(page.locator(".card.sent")).to_have_count(1)
    # Nights sealed elsewhere (another device): the board opens on the last one's recap.
    seal_nights_by_api(page, site, hid, 4)
    page.reload()
    expect(page.locator("#b-reveal h2")).to_have_text("Night 5, played")
    finish_reveal(page).click()
    expect(page.locator("#b-night")).to_have_text("6")
    _send_one(page)
    _seal(page)
    page.get_by_role("button", name="Skip ahead").click()
    nxt = finish_reveal(page)
    expect(nxt).to_have_text("See the result")
    audit(page, shots, "board-last-night")
    nxt.click()
    page.wait_for_url(re.compile(r"/result/$"))


# --- encounters ---------------------------------------------------------------------------------


@THREE
def test_the_encounter_marks_every_vault_it_changes(site, new_page, shots, viewport):
    # Power Cut: the rival starts at Heat 1; on night 3 the Memory Archive is closed and the
    # Signal Tower's Loot doubled.
    page = new_page(viewport, has_touch=_touch(viewport))
    hid = start_heist_by_api(page, site, encounter="power-cut")
    decline_tour(page)
    banner = page.locator("#b-banner")
    expect(banner).to_contain_text("Power Cut: rival starts at Heat 1")
    expect(page.locator("#b-rival .mark-heat")).to_have_text("Heat 1")
    expect(page.locator("#b-meta")).to_contain_text("Encounter: Power Cut")
    archive = page.locator(".vault[data-vault='memory-archive'] .mark")
    tower = page.locator(".vault[data-vault='signal-tower'] .mark")
    expect(archive).to_have_class(re.compile(r"\blater\b"))
    expect(archive).to_contain_text("Closed")
    expect(tower).to_contain_text("×2")
    expect(page.locator(".vault[data-vault='crown-vault'] .mark")).to_have_count(0)
    audit(page, shots, "board-encounter-night-1")
    seal_nights_by_api(page, site, hid, 2)
    page.reload()
    finish_reveal(page).click()
    expect(page.locator("#b-night")).to_have_text("3")
    # The night it fires: the marks in full, the vault closed, one line that says it.
    expect(tower).to_have_class(re.compile(r"\btonight\b"))
    expect(tower).to_have_text(re.compile(r"^×2"))
    expect(archive).to_have_text(re.compile(r"^Closed"))
    expect(page.locator(".vault[data-vault='memory-archive']")).to_have_class(
        re.compile(r"\bclosed\b")
    )
    expect(banner).to_have_class(re.compile(r"\btonight\b"))
    expect(banner).to_contain_text("Power Cut: Memory Archive closed, Signal Tower ×2")
    # In words for a screen reader, on the same line.
    expect(banner).to_contain_text("Memory Archive is closed tonight")
    expect(banner).to_contain_text("Signal Tower's Loot is doubled tonight")
    box = banner.bounding_box()
    assert box["height"] <= 44, box  # one line on a desktop, two at most on a phone
    loot = page.request.get(f"{site}/api/v1/heists/{hid}/").json()["vaults"]
    doubled = next(v["loot"] for v in loot if v["slug"] == "signal-tower")
    expect(page.locator("#vault-signal-tower-loot")).to_contain_text(str(doubled))
    audit(page, shots, "board-encounter-night-3")


# --- cosmetics ------------------------------------------------------------------------------------


@THREE
def test_the_worn_card_back_and_theme_are_on_the_board(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=_touch(viewport))
    user = sign_in_new_player(page, site, email="backs@example.com", password="a long enough pw 42")
    wear(user, "back-neon", "theme-velvet")
    start_heist_by_api(page, site, rival="furnace")
    decline_tour(page)
    for side, back in (("#b-you", "back-neon"), ("#b-rival", "back-brass")):
        pile = page.locator(f"{side} .pile-back")
        expect(pile).to_have_attribute("data-card-back", back)
        box = pile.bounding_box()
        assert box["width"] >= 40 and box["height"] >= 56, (side, box)
        image = pile.evaluate("e => getComputedStyle(e).backgroundImage")
        assert f"{back}" in image, image
    # The rival's face-down hand wears its back too; the theme dresses the whole board.
    expect(page.locator("#b-rival-hand .card-back[data-card-back='back-brass']")).to_have_count(3)
    board = page.locator("#board")
    expect(board).to_have_attribute("data-board-theme", "theme-velvet")
    colour = board.evaluate("e => getComputedStyle(e).getPropertyValue('--board-bg').trim()")
    assert colour == "#1a0a10", colour
    vault_bg = page.locator(".vault").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert vault_bg == "rgb(42, 17, 25)", vault_bg  # the theme's surface
    audit(page, shots, "board-worn")


# --- words, details, and the rest ----------------------------------------------------------------


@SIZES
def test_the_words_of_the_board_are_defined_where_they_appear(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=_touch(viewport))
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
    _seal(page)
    page.get_by_role("dialog", name="Lie low tonight?").get_by_role(
        "button", name="Lie low"
    ).click()
    finish_reveal(page)
    page.locator("#b-after .term[data-term='quiet']").first.click()
    expect(sheet.locator("h2")).to_have_text("stay quiet")
    expect(sheet).to_contain_text("cools")


@SIZES
def test_sealing_with_no_crew_asks_first(site, new_page, shots, viewport):
    page = new_page(viewport)
    _new_guest_board(page, site)
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
    _send_one(page)
    expect(seal).not_to_have_class(re.compile(r"\bquiet\b"))
    seal.click()
    expect(page.get_by_role("heading", name="Night 2 revealed")).to_be_visible()
    expect(page.get_by_role("dialog", name="Lie low tonight?")).to_be_hidden()


@SIZES
def test_keyboard_shortcuts(site, new_page, viewport):
    page = new_page(viewport)
    _new_guest_board(page, site)
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
    page = new_page(viewport, has_touch=_touch(viewport))
    _new_guest_board(page, site, rival="The Furnace", level="Hustler")
    decline_tour(page)
    audit(page, shots, "board-planning")
    # Difficulty and the rival's style are on the board.
    expect(page.locator("#b-meta")).to_contain_text("Hustler")
    expect(page.locator("#b-meta")).to_contain_text("Runs hot")
    _first_affordable_card(page).click()
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
    _seal(page)
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
    _new_guest_board(page, site)
    expect(page.locator("#b-tour")).to_be_visible()
    page.get_by_role("button", name="Show me").click()
    assert page.evaluate("document.getAnimations().length") == 0
    _send_one(page)
    _seal(page)
    expect(page.locator("#b-next")).to_have_text("Next: night 2")
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate(
        "[...document.querySelectorAll('.vault, .chip, .tour-target')].every("
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
    _seal(page2)
    # Instant: the way on is there as soon as the reveal is, with nothing moving.
    expect(page2.locator("#b-next")).to_have_text("Next: night 2")
    assert page2.evaluate("document.getAnimations().length") == 0
