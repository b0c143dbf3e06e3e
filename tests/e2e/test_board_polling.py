"""The board polls the heist view with the ETag of its last read (issue 29): while the rival
plans the server answers 304 Not Modified and the board keeps its view; the moment the rival
seals, the board gets the new view and shows it, and the night plays on; after a seal the board
holds the new view with the tag the seal's answer named for it."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    decline_tour,
    finish_reveal,
    seal,
    send_one,
    start_heist_by_api,
)

VIEW = re.compile(r"/api/v1/heists/[0-9a-f-]+/$")


def test_the_board_polls_with_its_etag_and_shows_the_rival_sealing(site, new_page, settings):
    from game.services.rivals import rival_plan_seal

    settings.RIVAL_FALLBACK_SECONDS = 600  # the rival plans until this test seals its night
    page = new_page(DESKTOP)
    reads: list[tuple[int, str | None]] = []
    page.on(
        "response",
        lambda r: (
            reads.append((r.status, r.request.headers.get("if-none-match")))
            if r.request.method == "GET" and VIEW.search(r.url)
            else None
        ),
    )
    hid = start_heist_by_api(page, site)
    decline_tour(page)
    status = page.locator("#b-rival-status")
    expect(status).not_to_have_class(re.compile(r"\bsealed\b"))

    # The board's polls (0.8 s, then 1.5 times longer each) while the rival plans.
    deadline = time.monotonic() + 20
    while sum(1 for s, _ in reads if s == 304) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert reads[0] == (200, None), reads
    assert [s for s, _ in reads[1:]].count(304) >= 2, reads
    assert all(tag for _, tag in reads[1:]), reads
    expect(status).not_to_have_class(re.compile(r"\bsealed\b"))

    # The rival seals: the next poll is a 200 with the commitment, and the board shows it.
    rival_plan_seal(heist_id=hid, night=1)
    expect(status).to_have_class(re.compile(r"\bsealed\b"), timeout=15_000)
    assert reads[-1][0] == 200

    # The night plays on from the view the board kept.
    sealed_at = len(reads)
    send_one(page)
    seal(page)
    finish_reveal(page).click()
    expect(page.locator("#b-night")).to_have_text("2")
    # The seal's answer named the tag of the view it holds (Heist-ETag): the first poll of night
    # 2 sends it, and while night 2's rival plans the answer is a 304.
    deadline = time.monotonic() + 20
    while len(reads) == sealed_at and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert reads[sealed_at][0] == 304 and reads[sealed_at][1], reads[sealed_at:]
    rival_plan_seal(heist_id=hid, night=2)
    expect(status).to_have_class(re.compile(r"\bsealed\b"), timeout=15_000)
    assert not page.problems, page.problems
