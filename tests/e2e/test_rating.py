"""The rating in Chromium at phone and desktop size (issue 26): a signed-in player's finished
heist shows the rating before -> after on the result page, provisional said in words; the
profile shows the rating, its range and the levels; the rules page the anchors; and Play's
Quick heist starts at the level just played. axe finds nothing serious or critical;
screenshots of each at both sizes go to the e2e artifacts folder."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from game.models import Heist, RatingChange
from tests.support.browser import (
    DESKTOP,
    PASSWORD,
    PHONE,
    audit,
    finish_heist_by_api,
    heist_id,
    open_choices,
    sign_in_new_player,
)

SIZES = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])


@SIZES
def test_the_rating_on_the_result_page_and_profile_and_quick_heist_keeps_the_level(
    site, new_page, shots, viewport
):
    page = new_page(viewport)
    email = f"rated-{viewport['width']}@example.com"
    user = sign_in_new_player(page, site, email=email, password=PASSWORD)

    # Before any heist: Quick heist names the weakest level.
    page.goto(site + "/play/")
    expect(page.locator("#quick-summary")).to_contain_text("Rookie")
    open_choices(page)
    page.get_by_role("radio", name="Safecracker", exact=True).check()
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    hid = heist_id(page)
    finish_heist_by_api(page, site, hid)

    page.goto(f"{site}/heists/{hid}/result/")
    change = RatingChange.objects.get(heist_id=hid)
    before, after = round(change.before_value), round(change.after_value)
    section = page.locator("#rating-result")
    expect(section.get_by_role("heading")).to_have_text(
        re.compile(rf"^Rating\s+{before}\s+→\s*to\s+{after}\s+\({after - before:+d}\)$")
    )
    expect(section).to_contain_text("against Safecracker (rated 1670)")
    expect(section).to_contain_text("Provisional: the site is still finding your level")
    audit(page, shots, "rating-result")

    page.goto(site + "/accounts/profile/")
    card = page.locator("#rating")
    expect(card.locator(".rating-value")).to_have_text(str(after))
    expect(card).to_contain_text("Provisional")
    expect(card.get_by_role("table")).to_contain_text("Kingpin")
    expect(card.get_by_role("link", name="against Safecracker")).to_be_visible()
    audit(page, shots, "rating-profile")

    page.goto(site + "/rules/#rating")
    anchors = page.locator("#rating")
    expect(anchors).to_contain_text("anchor = 1500 + 173.7178")
    expect(anchors.get_by_role("table")).to_contain_text("Kingpin")
    audit(page, shots, "rating-rules")
    anchors.get_by_role("table").scroll_into_view_if_needed()
    shots.screen(page, "rating-rules")  # the anchors themselves, the page being long

    # Play again: Quick heist starts at the level just played, and one tap plays it.
    page.goto(site + "/play/")
    expect(page.locator("#quick-summary")).to_contain_text("Safecracker")
    audit(page, shots, "rating-quick-heist")
    page.get_by_role("button", name="Quick heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    newest = Heist.objects.filter(user=user).order_by("-created_at").first()
    assert str(newest.pk) == heist_id(page) and newest.difficulty == "safecracker"
