"""Jobs in Chromium, at phone and desktop size: a new player's first page shows their jobs, the
browser's own time zone is taken for their day (Asia/Tokyo here), the third heist's result page
says "Job done: +50 Signs" (the economy's starter reward) for the starter job, and the profile
shows the jobs and the zone. axe finds nothing serious or critical on home, the result page or
the profile."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    PHONE,
    audit,
    finish_heist_by_api,
    sign_up,
    start_heist_by_api,
)

pytestmark = pytest.mark.jobs  # the packaged pool: the jobs a real player sees

ZONE = "Asia/Tokyo"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_new_player_sees_jobs_at_home_and_on_the_profile(site, new_page, shots, viewport):
    from django.contrib.auth import get_user_model

    from accounts.selectors import time_zone

    page = new_page(viewport, timezone_id=ZONE)
    email = sign_up(page, site)
    user = get_user_model().objects.get(email=email)

    page.goto(site + "/")
    jobs = page.locator("#jobs")
    expect(jobs).to_be_visible()
    # The browser said where it is; the section is drawn again with the day's end there.
    expect(jobs.locator(".jobs-reset")).to_contain_text(f"at midnight {ZONE}")
    assert time_zone(user=user) == ZONE
    today = jobs.get_by_role("list", name="Today's jobs")
    expect(today.get_by_role("listitem")).to_have_count(3)
    week = jobs.get_by_role("list", name="This week's job")
    expect(week.get_by_role("listitem")).to_have_count(1)
    starter = jobs.get_by_role("list", name="Your first job")
    expect(starter).to_contain_text("Finish your first 3 heists")
    expect(starter).to_contain_text("0 of 3")
    audit(page, shots, "jobs-home")

    # Three heists finished (no crew sent: the least a heist can do): the third pays the job.
    for _ in range(3):
        hid = start_heist_by_api(page, site)
        finish_heist_by_api(page, site, hid)
    page.goto(f"{site}/heists/{hid}/result/")
    signs = page.locator("#signs-result")
    from shop.economy import get_economy

    reward = get_economy().jobs["starter"]
    expect(signs).to_contain_text(f"Job done: +{reward} Signs · Finish your first 3 heists")
    expect(page.locator("#jobs")).to_be_visible()
    audit(page, shots, "jobs-result")

    page.goto(site + "/accounts/profile/")
    jobs = page.locator("#jobs")
    expect(jobs).to_be_visible()
    expect(jobs.get_by_role("list", name="Your first job")).to_have_count(0)  # paid: gone
    expect(jobs.locator(".jobs-reset")).to_contain_text(ZONE)
    expect(page.get_by_label("Time zone", exact=True)).to_have_value(ZONE)
    audit(page, shots, "jobs-profile")

    # The player picks another zone on the profile.
    page.get_by_label("Time zone", exact=True).select_option("Europe/Lisbon")
    page.get_by_role("button", name="Save the time zone").click()
    page.wait_for_url(re.compile(r"/accounts/profile/$"))
    expect(page.get_by_text("Your time zone is Europe/Lisbon now.")).to_be_visible()
    assert time_zone(user=user) == "Europe/Lisbon"
