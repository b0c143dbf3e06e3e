"""Challenge a friend and the collection in Chromium at 360x640 and 1280x800 (issue 26): a
player finishes a heist and makes a challenge from its result page; the link, opened in a second
browser context (a new guest), shows what it promises, leads through the age check and plays on
the board to the end; then the friend and the challenger each see the two heists night by night
side by side. The collection page for a guest and for a player. axe finds nothing serious or
critical on any of them; each is photographed at both sizes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    ADULT_BIRTH_DATE,
    DESKTOP,
    PASSWORD,
    PHONE,
    audit,
    menu_link,
    play_by_api,
    play_on_the_board,
    sign_in_new_player,
    start_heist_by_api,
    touch,
    wear,
)

SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])


@pytest.fixture
def site(site):
    """The live server with the shop's items loaded too (as ``load_catalogue`` does)."""
    from shop.services import shop_catalogue_load

    shop_catalogue_load()
    return site


@SIZES
def test_a_challenge_played_by_a_friend_then_side_by_side(site, new_page, shots, viewport):
    size = viewport["width"]
    challenger = new_page(viewport)
    user = sign_in_new_player(
        challenger, site, email=f"challenger-{size}@example.com", password=PASSWORD
    )
    handle = user.profile.handle
    hid = start_heist_by_api(challenger, site, rival="quiet-hands", difficulty="rookie")
    end = play_by_api(challenger, site, hid, seed=size)
    challenger.goto(f"{site}/heists/{hid}/result/")
    panel = challenger.locator("#challenge")
    expect(panel).to_contain_text("Challenge a friend")
    panel.get_by_role("button", name="Challenge a friend").click()
    challenger.wait_for_url(re.compile(r"/result/#challenge$"))
    link = challenger.locator("#challenge-link").input_value()
    assert re.fullmatch(rf"{re.escape(site)}/challenges/[\w-]{{16}}/", link), link
    expect(panel).to_contain_text("Nobody has taken it on yet")
    audit(challenger, shots, "challenge-made")

    # A friend opens the link in another browser: a new guest.
    friend = new_page(viewport, has_touch=touch(viewport))
    friend.goto(link)
    expect(friend.get_by_role("heading", level=1)).to_have_text(
        "Beat their heist against Quiet Hands"
    )
    expect(friend.locator(".challenge-from")).to_have_text(handle)
    expect(friend.locator(".challenge-deck li")).not_to_have_count(0)
    audit(friend, shots, "challenge-landing")
    friend.get_by_role("link", name="Play the challenge").click()
    friend.get_by_label("Date of birth").fill(ADULT_BIRTH_DATE)
    friend.get_by_role("button", name="Continue").click()
    friend.wait_for_url(link)
    friend.get_by_role("button", name="Play the challenge").click()
    friend.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(friend.locator(".challenge-note")).to_contain_text(f"Challenge from {handle}")
    expect(friend.locator(".card").first).to_be_visible()
    shots.take(friend, "challenge-board")
    play_on_the_board(friend)

    result = friend.locator("#challenge")
    expect(result).to_contain_text(f"A challenge from {handle}")
    expect(friend.locator("#signs-result")).to_contain_text("A friend's challenge earns no Signs")
    audit(friend, shots, "challenge-friend-result")
    result.get_by_role("link", name="See both heists side by side").click()
    friend.wait_for_url(re.compile(r"/challenges/[\w-]+/vs/[0-9a-f-]+/$"))
    expect(friend.get_by_role("heading", level=1)).to_have_text(f"You and {handle}, side by side")
    expect(friend.locator(".cmp-night")).to_have_count(6)
    expect(friend.locator(".cmp-them .cmp-side-who").first).to_contain_text(handle)
    expect(friend.locator(".cmp-total.cmp-them b")).to_have_text(str(end["result"]["you"]))
    audit(friend, shots, "challenge-compare-friend")

    # The challenger sees who took it on, and the two side by side from their side.
    challenger.goto(link)
    answers = challenger.locator(".challenge-answers li")
    expect(answers).to_have_count(1)
    expect(answers.first).to_contain_text("a player")
    audit(challenger, shots, "challenge-challenger")
    answers.first.get_by_role("link", name=re.compile("^Side by side")).click()
    challenger.wait_for_url(re.compile(r"/vs/[0-9a-f-]+/$"))
    expect(challenger.get_by_role("heading", level=1)).to_have_text(
        "You and a player, side by side"
    )
    expect(challenger.locator(".cmp-total.cmp-you b")).to_have_text(str(end["result"]["you"]))
    audit(challenger, shots, "challenge-compare-challenger")


@SIZES
def test_the_collection_for_a_guest_and_for_a_player(site, new_page, shots, viewport):
    guest = new_page(viewport)
    guest.goto(site + "/")
    menu_link(guest, "Collection").click()
    guest.wait_for_url(re.compile(r"/collection/$"))
    expect(guest.get_by_role("heading", level=1)).to_have_text("The collection")
    expect(guest.locator("#collection-guest")).to_contain_text("Sign in to collect")
    expect(guest.locator('.collection-card[data-state="base"]')).not_to_have_count(0)
    expect(guest.locator('.collection-card[data-state="locked"]')).to_have_count(0)
    audit(guest, shots, "collection-guest")

    player = new_page(viewport)
    user = sign_in_new_player(
        player, site, email=f"collector-{viewport['width']}@example.com", password=PASSWORD
    )
    wear(user, "fence", "back-neon", "theme-velvet", "title-safecracker")
    player.goto(site + "/accounts/profile/")
    player.locator("main").get_by_role("link", name="Your collection").click()
    player.wait_for_url(re.compile(r"/collection/$"))
    expect(player.get_by_role("heading", level=1)).to_have_text("Your collection")
    fence = player.locator("#crew-fence")
    expect(fence).to_have_attribute("data-state", "owned")
    expect(player.locator("#crew-insider")).to_contain_text("200 Signs")
    expect(player.locator("#item-back-neon")).to_contain_text("Wearing")
    audit(player, shots, "collection-player")
    # Take the card back off from the page: it comes back, wearing the standard one.
    player.get_by_role("button", name="Take off Neon Alley").click()
    player.wait_for_url(re.compile(r"/collection/$"))
    expect(player.locator("#item-back-neon")).to_contain_text("Owned")
    expect(player.locator("#kind-card_back + .worn-line")).to_contain_text("the standard card back")


HEADER_FITS = """() => {
  const header = document.querySelector('.site-header').getBoundingClientRect();
  const parts = [...document.querySelectorAll(
      '.site-header .brand, .site-header .site-nav > a, .site-header .menu-toggle, .menu-links a')]
    .filter((e) => e.checkVisibility());
  const off = parts.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.top < header.top || r.bottom > header.bottom || r.right > innerWidth || r.left < 0;
  }).map((e) => e.textContent.trim() || e.className);
  return {off, wide: document.documentElement.scrollWidth - innerWidth, parts: parts.length};
}"""


def test_the_header_keeps_the_collection_on_one_line_at_every_width(site, new_page):
    """One more link in the header (Collection): signed in, with the Signs, every width from
    the menu's fold up still shows every part of the header on its one line."""
    page = new_page(DESKTOP)
    sign_in_new_player(page, site, email="widths@example.com", password=PASSWORD)
    page.goto(site + "/collection/")
    for width in range(960, 1300, 20):
        page.set_viewport_size({"width": width, "height": 800})
        found = page.evaluate(HEADER_FITS)
        assert not found["off"] and found["wide"] <= 0, (width, found)
