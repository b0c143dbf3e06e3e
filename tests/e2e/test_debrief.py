"""The debrief in Chromium on a phone, a phone held sideways and a desktop (issue 25): a
finished heist's result page shows its accuracy, the turning point as a card that opens that
night in the replay, each night's label; the replay shows yours, the best and why; "Try this
night again" opens a practice board from that night, whose first night is played on the board
by taps, which plays to its end and says how it compares. axe finds nothing serious or
critical; screenshots of each at the three sizes go to the e2e artifacts folder."""

from __future__ import annotations

import random
import re
import time

import pytest
from playwright.sync_api import expect

from game.presenters.debrief import whole_accuracy
from tests.support.browser import (
    DESKTOP,
    LANDSCAPE,
    PHONE,
    SEAL,
    audit,
    decline_tour,
    finish_reveal,
    heist_id,
    in_view,
    seal,
    send_one,
    start_heist,
)
from tests.support.heists import crew_costs, legal_plan
from tests.support.worker import forget_workers

SIZES = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)


def play_by_api(page, base: str, hid: str, *, seed: int) -> dict:
    """Seal random legal plans night by night through the JSON API, as the page's session (as
    the board does: wait for the rival's commitment first); returns the last view."""
    rng = random.Random(seed)
    costs = crew_costs()
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = page.request.get(f"{base}/api/v1/heists/{hid}/").json()
        if view["status"] != "active":
            return view
        if view["phase"] != "planning":
            time.sleep(0.1)
            continue
        answer = page.request.post(
            f"{base}/api/v1/heists/{hid}/seal/",
            data=legal_plan(view, rng, costs),
            headers={"X-CSRFToken": token, "Referer": base + "/"},
        )
        assert answer.ok, answer.text()
    raise AssertionError("the heist did not finish")


@SIZES
def test_the_debrief_on_the_result_and_replay_and_a_retry_that_plays(
    site, new_page, shots, viewport, settings
):
    # No worker here: the result page says the debrief is on its way and asks again by
    # itself; the route works it out once the worker is a second late (no debrief worker's
    # heartbeat left in the cache by an earlier test: with one alive it would only resend).
    settings.DEBRIEF_FALLBACK_SECONDS = 1
    forget_workers()
    page = new_page(viewport)
    start_heist(page, site, rival="The Reader", difficulty="Kingpin")
    hid = heist_id(page)
    end = play_by_api(page, site, hid, seed=7)
    page.goto(f"{site}/heists/{hid}/result/")
    # Pending first, then the page reloads itself with the debrief.
    accuracy = page.locator(".accuracy-figure")
    expect(accuracy).to_be_visible(timeout=30_000)
    debrief = page.request.get(f"{site}/api/v1/heists/{hid}/debrief/").json()
    expect(accuracy).to_have_text(str(whole_accuracy(debrief["accuracy"])))
    tp = debrief["turning_point"]
    card = page.locator("a.turning-card")
    expect(card).to_contain_text(f"Turning point · Night {tp['night']}")
    expect(card).to_contain_text(tp["text"])
    labels = page.locator(".debrief-nights .dn-label")
    expect(labels).to_have_count(6)
    assert [t.lower() for t in labels.all_inner_texts()] == [n["label"] for n in debrief["nights"]]
    share = page.locator("#share-text")
    expect(share).to_contain_text(debrief["grid"])
    expect(share).to_contain_text(f"{end['result']['you']} to {end['result']['rival']}")
    audit(page, shots, "debrief-result")

    # The turning point opens that night in the replay: yours, the best, why.
    card.click()
    page.wait_for_url(re.compile(rf"/replay/\?night={tp['night']}#debrief-night$"))
    panel = page.locator("#debrief-night")
    expect(panel).to_be_visible()
    night = debrief["nights"][tp["night"] - 1]
    expect(panel).to_contain_text(night["why"])
    expect(page.locator("#replay-title")).to_contain_text(f"night {tp['night']} of 6")
    audit(page, shots, "debrief-replay")

    # Try this night again: a practice board at that night, which plays to its end.
    panel.get_by_role("button", name="Try this night again").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    retry = heist_id(page)
    assert retry != hid
    expect(page.locator(".practice-note")).to_contain_text(f"night {tp['night']} again")
    expect(page.locator("#b-night")).to_have_text(str(tp["night"]))
    expect(page.locator(".card").first).to_be_visible()
    audit(page, shots, "debrief-retry-board")
    # Its first night played on the board, by taps, as any night.
    decline_tour(page)
    send_one(page)
    # The practice note above it leaves the board its screen: Seal in view.
    assert in_view(page, page.get_by_role("button", name=SEAL)), page.evaluate("scrollY")
    seal(page)
    finish_reveal(page)
    # (Its history starts with the earlier nights it copies, then the night just played.)
    played = page.request.get(f"{site}/api/v1/heists/{retry}/").json()["history"]
    assert [n["night"] for n in played] == list(range(1, tp["night"] + 1))
    assert len(played[-1]["you"]["crew"]) == 1
    done = play_by_api(page, site, retry, seed=11)
    assert done["result"]["signs_awarded"] is None
    page.goto(f"{site}/heists/{retry}/result/")
    compared = page.locator(".practice-compared")
    expect(compared).to_contain_text(f"Trying night {tp['night']} again, you finished")
    expect(page.locator(".accuracy-figure")).to_be_visible(timeout=30_000)
    audit(page, shots, "debrief-retry-result")
