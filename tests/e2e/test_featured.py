"""The featured heist in Chromium: from the home page a signed-in player plays it and finds
themself on its leaderboard; a second run is practice. The featured pages pass axe."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    PHONE,
    audit,
    finish_heist_by_api,
    heist_id,
    sign_in_new_player,
)


def test_player_plays_the_featured_heist_from_home_and_finds_themself(site, slot, new_page, shots):
    from game.rivals.personas import get_persona

    page = new_page(DESKTOP)
    user = sign_in_new_player(
        page, site, email="featured@example.com", password="a long enough password 42"
    )
    handle = user.profile.handle
    block = page.locator(f'[data-featured="{slot.slug}"]')
    expect(block.get_by_role("heading", name=f"Featured heist: {slot.name}")).to_be_visible()
    expect(block).to_contain_text(get_persona(slot.rival).name)
    expect(block.locator("time")).to_contain_text(re.compile(r"hour|minute"))
    audit(page, shots, "home-featured")

    block.get_by_role("button", name="Play the featured heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    first = heist_id(page)
    view = page.request.get(f"{site}/api/v1/heists/{first}/").json()
    assert view["featured"] == slot.slug and view["ranked"] is True
    # One night by tapping, as a player does, the rest through the API as the page's session.
    page.locator(".card").first.click()
    page.locator(".vault:not(.closed)").first.click()
    page.get_by_role("button", name=re.compile(r"^Seal")).click()
    expect(page.locator("#b-verify")).to_have_attribute("data-verified", "true")
    finish_heist_by_api(page, site, first)
    final = page.request.get(f"{site}/api/v1/heists/{first}/").json()
    assert final["result"]["featured_bonus"] == 25

    page.goto(site + "/featured/")
    mine = page.locator("#leaderboard tr.you")
    expect(mine).to_contain_text(handle)
    expect(mine).to_contain_text(str(final["you"]["score"]))
    expect(page.locator("#your-rank")).to_contain_text("#1")
    expect(page.locator("#attempt")).to_have_text(
        "You have played your ranked heist here: this one is practice."
    )
    audit(page, shots, "featured")

    # The second run, again from the home page: practice.
    page.goto(site + "/")
    page.get_by_role("button", name="Play the featured heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    second = heist_id(page)
    assert second != first
    view = page.request.get(f"{site}/api/v1/heists/{second}/").json()
    assert view["featured"] == slot.slug and view["ranked"] is False
    page.goto(site + "/featured/")
    expect(page.locator("#mine-title")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Practice, active"))).to_be_visible()
    expect(page.locator("#leaderboard tbody tr")).to_have_count(1)


def test_featured_page_on_a_phone_for_a_guest(site, slot, new_page, shots):
    page = new_page(PHONE)
    page.goto(site + "/featured/")
    expect(page.get_by_role("heading", name=slot.name)).to_be_visible()
    expect(page.locator("#attempt")).to_contain_text("Guests play for practice")
    audit(page, shots, "featured-guest")
    page.get_by_role("button", name="Play").click()  # the age screen first, then the slot
    page.get_by_label("Date of birth").fill("1990-04-02")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(rf"/featured/{slot.slug}/$"))
    page.get_by_role("button", name="Play").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    view = page.request.get(f"{site}/api/v1/heists/{heist_id(page)}/").json()
    assert view["ranked"] is False and view["featured"] == slot.slug
