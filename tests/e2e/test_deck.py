"""The Heist board (deck builder) refuses a 13th card and a third copy, with a reason."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.browser import DESKTOP, PHONE, audit, open_choices, pass_age_check

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
    expect(page.locator("#quick-summary")).to_contain_text("Your deck")  # Quick heist plays it
    open_choices(page)
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


def test_signed_in_player_saves_a_named_deck_and_picks_it(site, new_page, shots):
    import re

    from game.models import Heist, SavedDeck
    from tests.support.browser import sign_in_new_player

    page = new_page(PHONE, has_touch=True, is_mobile=True)
    user = sign_in_new_player(page, site, email="decks@example.com", password="a long password 42")

    page.goto(site + "/deck/")
    expect(page.get_by_text("No saved decks yet")).to_be_visible()
    page.get_by_role("button", name="Live Wire").click()
    expect(page.locator("#deck-total")).to_have_text("12")
    page.get_by_label("Deck name").fill("Night Shift")
    page.get_by_role("button", name="Save deck").click()
    expect(page.get_by_text("Deck “Night Shift” saved.")).to_be_visible()
    expect(page.get_by_role("link", name="Load Night Shift")).to_be_visible()
    expect(page.get_by_label("Deck name")).to_have_value("Night Shift")
    assert _count(page, "Capacitor") == "2"

    # A second deck, saved with Enter in the name field, then deleted again.
    page.get_by_role("button", name="Empty").click()
    _add(page, "Watcher", 2)
    for name in TWELVE:
        _add(page, name, 2)
    page.get_by_label("Deck name").fill("Scratch")
    page.get_by_label("Deck name").press("Enter")
    expect(page.get_by_text("Deck “Scratch” saved.")).to_be_visible()
    audit(page, shots, "deck-signed-in")
    page.get_by_role("button", name="Delete Scratch").click()
    expect(page.get_by_text("Deck “Scratch” deleted.")).to_be_visible()
    expect(page.get_by_role("button", name="Delete Scratch")).to_have_count(0)
    assert list(SavedDeck.objects.filter(user=user).values_list("name", flat=True)) == [
        "Night Shift"
    ]

    page.goto(site + "/play/")  # no age screen: the account passed it
    open_choices(page)
    mine = page.get_by_role("radio", name="Night Shift", exact=True)
    expect(mine).to_be_checked()
    audit(page, shots, "rival-picker-signed-in")
    page.get_by_role("radio", name="The Furnace", exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    heist = Heist.objects.get(user=user)
    assert heist.player_deck == SavedDeck.objects.get(user=user, name="Night Shift").cards
    assert sorted(heist.player_deck).count("capacitor") == 2

    page.set_viewport_size(DESKTOP)
    page.goto(site + "/deck/")
    audit(page, shots, "deck-signed-in")
