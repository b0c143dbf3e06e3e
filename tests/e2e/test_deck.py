"""The Heist board (deck builder) refuses a 13th card and a third copy, with a reason."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import DESKTOP, PHONE, pass_age_check

TWELVE = ["Mirror Courier", "Ghost Locksmith", "Paper Decoy", "Borrowed Face", "Coolant Carrier"]


def _add(page, name: str, times: int = 1) -> None:
    for _ in range(times):
        page.get_by_role("button", name=f"Add one {name}").click()


def _count(page, name: str) -> str:
    return page.get_by_label(f"{name} copies").inner_text()


def test_deck_builder_refuses_a_third_copy_and_a_thirteenth_card(site, new_page, shots):
    page = new_page(DESKTOP)
    page.goto(site + "/deck/")
    shots.take(page, "deck")
    page.get_by_role("button", name="Empty").click()
    expect(page.locator("#deck-total")).to_have_text("0")
    expect(page.locator("#deck-reason")).to_have_text("Add 12 more cards to make 12.")

    _add(page, "Spark", 3)
    assert _count(page, "Spark") == "2"
    expect(page.locator("#deck-reason")).to_have_text("At most 2 copies of Spark.")

    for name in TWELVE:
        _add(page, name, 2)
    expect(page.locator("#deck-total")).to_have_text("12")
    expect(page.locator("#deck-reason")).to_contain_text("Ready")

    _add(page, "Conductor")
    expect(page.locator("#deck-total")).to_have_text("12")
    assert _count(page, "Conductor") == "0"
    expect(page.locator("#deck-reason")).to_have_text(
        "Your deck already has 12 cards: take one out first."
    )

    page.get_by_role("button", name="Save deck").click()
    expect(page.get_by_text("Deck saved")).to_be_visible()
    pass_age_check(page, site, "/play/")
    mine = page.get_by_role("radio", name="Your deck", exact=True)
    expect(mine).to_be_checked()


def test_deck_builder_refuses_without_javascript_too(site, new_page):
    page = new_page(PHONE, java_script_enabled=False)
    page.goto(site + "/deck/")
    page.get_by_role("button", name="Empty").click()
    _add(page, "Watcher", 3)
    assert _count(page, "Watcher") == "2"
    expect(page.locator("#deck-reason")).to_have_text("At most 2 copies of Watcher.")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_starter_decks_fill_the_board(site, new_page, shots):
    page = new_page(PHONE)
    page.goto(site + "/deck/")
    page.get_by_role("button", name="Live Wire").click()
    expect(page.locator("#deck-total")).to_have_text("12")
    assert _count(page, "Capacitor") == "2"
    shots.take(page, "deck")
