"""The heist board's nights in a real Chromium on a phone (360x640), a phone held sideways
(640x360) and a desktop (1280x800): the reveal played in the very vault elements the night was
planned on, spoiling nothing, with nothing fixed or sticky over it; Skip and the speed setting;
Seal in view with two crew placed; a reload mid-reveal that shows that night, and every played
night seen again from its dot; the encounter's marks on the vaults it changes; the worn card back
on both sides' piles and the theme over the whole board. A screenshot of every stage."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    CHEAP_DECK,
    DESKTOP,
    FIXED_OR_STICKY,
    LANDSCAPE,
    PHONE,
    SEAL,
    audit,
    decline_tour,
    finish_reveal,
    in_view,
    overlaps,
    seal,
    seal_nights_by_api,
    send_one,
    send_two,
    sign_in_new_player,
    start_heist_by_api,
    touch,
    wear,
)

THREE = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)


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
    page = new_page(viewport, reduced_motion="no-preference", has_touch=touch(viewport))
    hid = start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    send_two(page)
    page.evaluate(_TAG_VAULTS)
    seal(page)
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
    page = new_page(viewport, reduced_motion="no-preference", has_touch=touch(viewport))
    start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    send_one(page)
    seal(page)
    page.get_by_role("button", name="Skip ahead").click()
    finish_reveal(page)
    expect(page.locator(".vault .verdict:not(:empty)")).to_have_count(3)
    page.locator("#b-next").click()
    page.get_by_role("button", name="Settings").click()
    page.get_by_label("Instant").check()
    page.get_by_role("button", name="Done").click()
    send_one(page)
    seal(page)
    # Instant: the way on is there as soon as the reveal is.
    expect(page.locator("#b-next")).to_have_text("Next: night 3", timeout=3000)
    # An earlier night seen again is checked against its own commitment.
    page.locator("#b-next").click()
    page.get_by_role("button", name="Night 1: see it again").click()
    expect(page.locator("#b-verify")).to_have_text("Fair play ✓ Verified")


@THREE
def test_seal_is_in_view_with_two_crew_placed(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=touch(viewport))
    start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    send_two(page)
    button = page.get_by_role("button", name=SEAL)
    assert in_view(page, button), (button.bounding_box(), page.evaluate("scrollY"))
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
    page = new_page(viewport, reduced_motion="no-preference", has_touch=touch(viewport))
    hid = start_heist_by_api(page, site, deck=CHEAP_DECK)
    decline_tour(page)
    send_two(page)
    seal(page)
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
    send_one(page)
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
    send_one(page)
    seal(page)
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
    page = new_page(viewport, has_touch=touch(viewport))
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
    page = new_page(viewport, has_touch=touch(viewport))
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
