"""A new guest plays a whole heist in a real Chromium: by tapping on a phone, by keyboard on a
desktop; then the result and the replay."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    PHONE,
    SEAL,
    energy_left,
    heist_id,
    open_choices,
    start_heist,
)

CREW_NAMES = ["Ghost Locksmith", "Mirror Courier", "Borrowed Face", "Coolant Carrier"]


def _board_fits_phone(page) -> None:
    # No sideways scroll, and the whole night's board (down to Seal) on one screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    seal = page.get_by_role("button", name=SEAL).bounding_box()
    assert seal["y"] >= 0 and seal["y"] + seal["height"] <= PHONE["height"], seal
    for vault in page.locator(".vault").all():
        box = vault.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44
    for card in page.locator(".card").all():
        box = card.bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"]
        assert box["height"] >= 44 and box["width"] >= 44


def _check_reveal(page, night: int) -> None:
    reveal = page.locator("#b-reveal")
    expect(reveal).to_be_visible()
    expect(reveal.get_by_role("heading", name=f"Night {night} revealed")).to_be_visible()
    # On the vaults themselves: every one shows both totals (an open vault) and a verdict that
    # does not rely on colour.
    expect(page.locator(".vault .verdict:not(:empty)")).to_have_count(3)
    for vault in page.locator(".vault").all():
        if "closed" not in (vault.get_attribute("class") or ""):
            expect(vault.locator(".you-total")).to_be_visible()
            expect(vault.locator(".rival-total")).to_be_visible()
        expect(vault.locator(".verdict")).to_have_text(re.compile(r"^[✓✗=] "))
    verified = page.locator("#b-verify")
    expect(verified).to_have_attribute("data-verified", "true")
    expect(verified).to_contain_text("Verified")
    # A screen reader hears what happened.
    expect(page.locator("#b-live")).to_contain_text(f"Night {night}:")


def _finish_on_result_and_replay(page, shots, how: str) -> None:
    page.wait_for_url(re.compile(r"/result/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(
        re.compile(r"You win|The rival wins|A draw")
    )
    expect(page.locator(".final-score")).to_contain_text("Final score")
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    shots.take(page, "result")
    replay = page.get_by_role("link", name="Watch the replay")
    if how == "keyboard":
        replay.focus()
        page.keyboard.press("Enter")
    else:
        replay.tap()
    page.wait_for_url(re.compile(r"/replay/"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("night 1 of 6")
    shots.take(page, "replay")
    for night in range(2, 7):
        step = page.get_by_role("link", name=f"Night {night} →")
        if how == "keyboard":
            step.focus()
            page.keyboard.press("Enter")
        else:
            step.tap()
        expect(page.get_by_role("heading", level=1)).to_contain_text(f"night {night} of 6")
    expect(page.get_by_role("link", name="Back to the result")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_guest_plays_six_nights_by_tapping_on_a_phone(site, new_page, shots):
    page = new_page(PHONE, has_touch=True, is_mobile=True)
    start_heist(page, site, rival="Quiet Hands", difficulty="Rookie")
    shots.take(page, "board")
    # Cards the player may not see are never in the page: the rival's hand is only a count.
    view = page.request.get(f"{site}/api/v1/heists/{heist_id(page)}/").json()
    assert "hand" not in view["rival"] and "nonce" not in view["rival"]
    # No secret in the page either: the only 64-hex values are the public commitments.
    shown = set(re.findall(r"\b[0-9a-f]{64}\b", page.content()))
    assert shown <= {view["seed_commitment"], view["rival"]["commitment"]}, shown
    rival_names = page.locator("#b-rival").inner_text()
    assert not any(name in rival_names for name in CREW_NAMES), rival_names
    boosted = False
    for night in range(1, 7):
        expect(page.locator("#b-night")).to_have_text(str(night))
        _board_fits_phone(page)
        cards = page.locator(".card")
        vaults = page.locator(".vault:not(.closed)")
        # Tap a card, then a vault.
        cards.nth(0).tap()
        expect(cards.nth(0)).to_have_attribute("aria-pressed", "true")
        vaults.nth(night % vaults.count()).tap()
        expect(cards.nth(0)).to_contain_text("Sent to")
        if night == 1:
            # Tap the card again: it comes back, and the Energy with it.
            before = energy_left(page)
            cards.nth(0).tap()
            expect(cards.nth(0)).not_to_contain_text("Sent to")
            assert energy_left(page) > before
            cards.nth(0).tap()
            vaults.nth(0).tap()
            shots.take(page, "board-planned")
        if energy_left(page) > 0 and cards.count() > 1:
            cards.nth(1).tap()
            vaults.nth(0).tap()
            if energy_left(page) < 0:
                # Over Energy: explained before sealing, and Seal refuses.
                expect(page.locator("#b-note")).to_contain_text("Over Energy")
                expect(page.get_by_role("button", name=SEAL)).to_have_attribute(
                    "aria-disabled", "true"
                )
                cards.nth(1).tap()
        boost = page.get_by_role("switch", name="Boost")
        if not boosted and boost.get_attribute("aria-disabled") == "false":
            boost.tap()
            expect(boost).to_have_attribute("aria-checked", "true")
            boosted = True
        page.get_by_role("button", name=SEAL).tap()
        _check_reveal(page, night)
        if night == 1:
            shots.take(page, "reveal")
        if night < 6:
            page.get_by_role("button", name=f"Next: night {night + 1}").tap()
        else:
            page.get_by_role("link", name="See the result").tap()
    _finish_on_result_and_replay(page, shots, "tap")


def _tab_to(page, selector: str, limit: int = 25) -> None:
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_guest_plays_six_nights_by_keyboard_on_a_desktop(site, new_page, shots):
    page = new_page(DESKTOP)
    start_heist(page, site, rival="Split Circuit", difficulty="Hustler")
    shots.take(page, "board")
    active_vault = "document.activeElement?.dataset.vault ?? null"
    for night in range(1, 7):
        expect(page.locator("#b-night")).to_have_text(str(night))
        assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
        # Enter on a card picks it and moves focus to the first open vault; Enter sends it.
        page.locator(".card").first.focus()
        page.keyboard.press("Enter")
        expect(page.locator(".card").first).to_have_attribute("aria-pressed", "true")
        assert page.evaluate(active_vault) is not None
        if night == 2:
            page.keyboard.press("Tab")  # the next vault: any vault is a keyboard stop
            assert page.evaluate(active_vault) is not None
        page.keyboard.press("Enter")
        expect(page.locator(".card").first).to_contain_text("Sent to")
        if night == 1:
            # Enter on a sent card takes it back.
            page.keyboard.press("Enter")
            expect(page.locator(".card").first).not_to_contain_text("Sent to")
            page.keyboard.press("Enter")
            page.keyboard.press("Enter")
            expect(page.locator(".card").first).to_contain_text("Sent to")
        if night == 3:
            _tab_to(page, "#b-boost")
            if page.locator("#b-boost").get_attribute("aria-disabled") == "false":
                page.keyboard.press("Space")
                expect(page.locator("#b-boost")).to_have_attribute("aria-checked", "true")
        _tab_to(page, "#b-seal")
        page.keyboard.press("Enter")
        _check_reveal(page, night)
        # Focus moved to the reveal; the next stop is the way on.
        assert page.evaluate("document.activeElement.id") == "b-reveal-title"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "b-next"
        if night == 1:
            shots.take(page, "reveal")
        page.keyboard.press("Enter")
    _finish_on_result_and_replay(page, shots, "keyboard")


def test_signed_in_player_board_fits_the_phone_and_result_counts_signs(site, new_page, shots):
    from tests.support.browser import finish_heist_by_api, sign_in_new_player

    page = new_page(PHONE, has_touch=True, is_mobile=True)
    sign_in_new_player(page, site, email="e2e@example.com", password="a long enough password 42")
    page.goto(site + "/play/")  # no age screen: the account passed it at sign-up
    open_choices(page)
    page.get_by_role("radio", name="The Furnace", exact=True).check()
    page.get_by_role("radio", name="Kingpin", exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    expect(page.locator(".card").first).to_be_visible()
    _board_fits_phone(page)
    shots.take(page, "board-signed-in")
    hid = heist_id(page)
    finish_heist_by_api(page, site, hid)
    page.reload()
    page.wait_for_url(re.compile(r"/result/$"))
    # The line for what the server decided, and only that one.
    awarded = page.request.get(f"{site}/api/v1/heists/{hid}/").json()["result"]["signs_awarded"]
    if awarded is None:
        expect(page.get_by_text("No Signs were awarded for this heist.")).to_be_visible()
        expect(page.get_by_text(re.compile(r"You earned"))).to_have_count(0)
    else:
        words = f"You earned {awarded} Sign{'' if awarded == 1 else 's'} for this heist."
        expect(page.get_by_text(words)).to_be_visible()
        expect(page.get_by_text("No Signs were awarded")).to_have_count(0)
    shots.take(page, "result-signed-in")


def test_board_seals_once_the_rival_has_sealed_after_a_409(site, new_page, settings):
    """No worker, and the view seals the rival only once the night is 2.5 s old: a Seal pressed
    at once is refused (409 rival_not_sealed); the board reads the heist until the commitment
    shows, seals the same plan again, and checks the reveal against the commitment it saw."""
    settings.RIVAL_FALLBACK_SECONDS = 2.5
    page = new_page(DESKTOP)
    seals = []
    page.on(
        "response",
        lambda response: seals.append(response.status) if response.url.endswith("/seal/") else None,
    )
    start_heist(page, site, rival="The Furnace", difficulty="Rookie")
    expect(page.locator("#b-rival-status")).to_contain_text("Planning")
    page.get_by_role("button", name=SEAL).click()
    # No crew sent: the board asks once before throwing the night away (issue 18).
    page.get_by_role("dialog", name="Lie low tonight?").get_by_role(
        "button", name="Lie low"
    ).click()
    _check_reveal(page, 1)
    assert seals[0] == 409 and seals[-1] == 200, seals
