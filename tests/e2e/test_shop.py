"""The shop in Chromium, on a phone, a phone held sideways and a desktop (issue 13): a new
player signs up, plays a heist and sees the Signs it earned, buys a Night Market crew and a card
back in the shop (confirming the price and the balance after), sees the back shown big and whole
on the screen, wears it, builds a deck with the crew, plays it and sees the back on the board.
axe finds nothing serious or critical on the shop (as a guest, signed in, confirming, and
wearing each board theme) and the board wears each theme.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    LANDSCAPE,
    PHONE,
    audit,
    finish_heist_by_api,
    heist_id,
    in_view,
    menu_link,
    open_choices,
    sign_up,
)

CREW = ("fence", "Fence", 150)  # a Night Market crew (shop/data/catalogue.json)
BACK = ("back-neon", "Neon Alley", 80)
THEMES = (("theme-vault", "Vault Steel"), ("theme-velvet", "Velvet Lounge"),
          ("theme-harbour", "Harbour Fog"))  # fmt: skip
VIEWPORTS = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)


@pytest.fixture
def site(site):
    """The live server with the shop's items loaded too (as ``load_catalogue`` does)."""
    from shop.services import shop_catalogue_load

    shop_catalogue_load()
    return site


def _start_from_picker(page, site: str, query: str = "") -> str:
    page.goto(f"{site}/play/{query}")
    open_choices(page)
    page.get_by_role("radio", name="The Furnace", exact=True).check()
    page.get_by_role("radio", name="Rookie", exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    return heist_id(page)


def _grant(email: str, amount: int) -> None:
    """Staff grant Signs (as the admin does): the shop's prices are more than one heist earns."""
    from django.contrib.auth import get_user_model

    from shop.services import signs_grant

    user = get_user_model().objects.get(email=email)
    signs_grant(user=user, amount=amount, reason_text="e2e: enough to shop")


def _balance(page) -> int:
    return int(page.locator("#shop-balance").get_attribute("data-balance"))


def _buy_with_the_dialog(page, slug: str, name: str, price: int, shots=None) -> None:
    before = _balance(page)
    page.get_by_role("link", name=f"Buy {name} for {price} Signs").click()
    dialog = page.get_by_role("dialog", name=f"Buy {name}?")
    expect(dialog).to_be_visible()
    expect(dialog.locator('[data-field="price"]')).to_have_text(str(price))
    expect(dialog.locator('[data-field="balance"]')).to_have_text(str(before))
    expect(dialog.locator('[data-field="after"]')).to_have_text(str(before - price))
    dialog.get_by_role("button", name="Confirm purchase").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#shop-live")).to_have_text(
        f"You bought {name} for {price} Signs. You hold {before - price} Signs now."
    )
    expect(page.locator("#shop-balance")).to_have_text(str(before - price))
    # The header's Signs follow the purchase without a reload.
    expect(page.locator("#header-signs")).to_have_attribute("data-balance", str(before - price))
    expect(page.locator(f"#item-{slug}")).to_have_class(re.compile(r"\bowned\b"))
    if not slug.startswith(("back-", "theme-", "title-")):
        expect(page.get_by_role("dialog")).to_have_count(0)
        return
    # A cosmetic is shown big, once, right after buying it.
    unveil = page.get_by_role("dialog", name=name)
    expect(unveil).to_be_visible()
    art = unveil.locator(".card-back, .theme-preview, .title-plaque").first
    box = art.bounding_box()
    assert box["width"] >= 160 and box["height"] >= 120, box
    if slug.startswith("back-"):
        assert box["width"] >= 180 and box["height"] >= 252, box
        assert slug in art.evaluate("e => getComputedStyle(e).backgroundImage")
    # All of it on the screen at once, its name and its art (on a phone held sideways too).
    title = unveil.locator(".unveil-title")
    expect(title).to_have_text(name)
    for part in (title, art, unveil.get_by_role("button", name="Wear it now")):
        assert in_view(page, part), part.bounding_box()
    if shots is not None:
        audit(page, shots, f"shop-unveil-{slug}")
    unveil.get_by_role("button", name="Not now").click()
    expect(unveil).to_be_hidden()


def _board_has_hooks(page) -> bool:
    """Whether this board page carries the cosmetics hooks (the board's markup provides them:
    data-board-theme on #board, .card-back[data-card-back] on every card back)."""
    return page.locator("#board[data-board-theme]").count() == 1


@VIEWPORTS
def test_a_new_player_earns_buys_wears_builds_and_plays(site, new_page, shots, viewport):
    page = new_page(viewport)
    email = sign_up(page, site)

    # A first heist, played to its end: the result says what it earned.
    hid = _start_from_picker(page, site)
    finish_heist_by_api(page, site, hid)
    page.goto(f"{site}/heists/{hid}/result/")
    earned = page.request.get(f"{site}/api/v1/heists/{hid}/").json()["result"]["signs_awarded"]
    assert earned and earned > 0
    expect(page.get_by_text(f"You earned {earned} Sign")).to_be_visible()
    page.goto(site + "/shop/")
    assert _balance(page) == 100 + earned  # the welcome and the heist
    _grant(email, 200)

    # The shop, through its link in the menu.
    page.goto(site + "/")
    menu_link(page, "Shop").click()
    page.wait_for_url(re.compile(r"/shop/$"))
    audit(page, shots, "shop-signed-in")
    _buy_with_the_dialog(page, *CREW)
    _buy_with_the_dialog(page, *BACK, shots=shots)
    page.get_by_role("button", name=f"Wear {BACK[1]}").click()
    expect(page.locator("#shop-live")).to_have_text(f"You now wear {BACK[1]}.")
    expect(page.locator(f"#item-{BACK[0]}")).to_have_class(re.compile(r"\bequipped\b"))
    audit(page, shots, "shop-wearing")

    # A deck with two of the crew, saved under a name.
    page.goto(site + "/deck/")
    expect(page.get_by_role("button", name=f"Add one {CREW[1]}")).to_be_visible()
    page.get_by_role("button", name="Live Wire").click()
    page.get_by_role("button", name="Remove one Spark").click()
    page.get_by_role("button", name="Remove one Capacitor").click()
    page.get_by_role("button", name=f"Add one {CREW[1]}").click()
    page.get_by_role("button", name=f"Add one {CREW[1]}").click()
    expect(page.locator("#deck-total")).to_have_text("12")
    page.get_by_label("Deck name").fill("Night Market")
    page.get_by_role("button", name="Save deck").click()
    expect(page.get_by_text("Deck “Night Market” saved")).to_be_visible()
    page.get_by_role("link", name="Play with “Night Market”").click()

    # It plays, wearing the back.
    hid = _start_from_picker(page, site, page.url[page.url.index("?") :])
    view = page.request.get(f"{site}/api/v1/heists/{hid}/").json()
    assert view["you"]["deck"].count(CREW[0]) == 2
    assert view["you"]["cosmetics"] == {"card_back": BACK[0], "board_theme": None, "title": None}
    if _board_has_hooks(page):
        back = page.locator(f'#board .card-back[data-card-back="{BACK[0]}"]').first
        expect(back).to_be_attached()
        image = back.evaluate("e => getComputedStyle(e).backgroundImage")
        assert f"{BACK[0]}" in image and "svg" in image, image
        expect(page.locator("#board")).to_have_attribute("data-board-theme", "default")
    shots.take(page, f"board-wearing-{BACK[0]}")


@VIEWPORTS
def test_the_shop_passes_axe_as_a_guest_and_wearing_each_theme(site, new_page, shots, viewport):
    page = new_page(viewport)
    page.goto(site + "/shop/")
    expect(page.get_by_text("Sign in to buy.")).to_be_visible()
    audit(page, shots, "shop-guest")

    email = sign_up(page, site)
    _grant(email, 600)
    for slug, name in THEMES:
        page.goto(site + "/shop/")
        _buy_with_the_dialog(page, slug, name, 200, shots=shots)
        page.get_by_role("button", name=f"Wear {name}").click()
        expect(page.locator(f"#item-{slug}")).to_have_class(re.compile(r"\bequipped\b"))
        audit(page, shots, f"shop-{slug}")
        hid = _start_from_picker(page, site)
        if _board_has_hooks(page):
            expect(page.locator("#board")).to_have_attribute("data-board-theme", slug)
            audit(page, shots, f"board-{slug}")
        view = page.request.get(f"{site}/api/v1/heists/{hid}/").json()
        assert view["you"]["cosmetics"]["board_theme"] == slug

    # The confirmation, open, and the page it stands for without JavaScript.
    page.goto(site + "/shop/")
    page.get_by_role("link", name=f"Buy {BACK[1]} for {BACK[2]} Signs").click()
    expect(page.get_by_role("dialog", name=f"Buy {BACK[1]}?")).to_be_visible()
    audit(page, shots, "shop-confirm")
    page.goto(f"{site}/shop/buy/{BACK[0]}/")
    audit(page, shots, "shop-buy-page")


def test_buying_without_javascript(site, new_page, shots):
    page = new_page(PHONE, java_script_enabled=False)
    email = sign_up(page, site)
    _grant(email, 100)
    page.goto(site + "/shop/")
    page.get_by_role("link", name=f"Buy {BACK[1]} for {BACK[2]} Signs").click()
    page.wait_for_url(re.compile(rf"/shop/buy/{BACK[0]}/$"))
    expect(page.get_by_text("After buying")).to_be_visible()
    shots.take(page, "shop-buy-no-js")
    page.get_by_role("button", name=f"Confirm: pay {BACK[2]} Signs").click()
    page.wait_for_url(re.compile(r"/shop/"))
    expect(page.get_by_text(f"You bought {BACK[1]} for {BACK[2]} Signs.")).to_be_visible()
    # Shown big, once, right after buying: the panel on the shelf the purchase returned to.
    unveil = page.get_by_role("region", name=BACK[1])
    expect(unveil).to_be_visible()
    box = unveil.locator(f'.card-back[data-card-back="{BACK[0]}"]').bounding_box()
    assert box["width"] >= 180 and box["height"] >= 252, box
    shots.take(page, "shop-unveil-no-js")
    page.reload()
    expect(page.get_by_role("region", name=BACK[1])).to_have_count(0)
    page.get_by_role("button", name=f"Wear {BACK[1]}").click()
    expect(page.get_by_text(f"You now wear {BACK[1]}.")).to_be_visible()
    expect(page.get_by_role("button", name=f"Take off {BACK[1]}")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
