"""The site's pages around the board in Chromium at 360x640, 640x360 and 1280x800 (issue 24):
the header is one line no taller than 64 px on every page, its menu opens and closes; the Play
set-up keeps Start in view with every encounter's name in full; every crew's emblem is drawn on
the shop, the deck builder and the rules page; the header's Signs equal the wallet; the result
of a ranked featured heist lists every Sign the ledger paid for it; the welcome after sign-up;
the how-to-play page. axe finds nothing serious or critical on each page, none scrolls sideways,
and each is photographed at the three sizes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import (
    DESKTOP,
    LANDSCAPE,
    PASSWORD,
    PHONE,
    audit,
    finish_heist_by_api,
    heist_id,
    menu_link,
    open_choices,
    pass_age_check,
    sign_in_new_player,
    sign_up,
)

HEADER_MAX = 64  # px, issue 24
SIZES = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, DESKTOP], ids=["phone", "landscape", "desktop"]
)

# Every piece of the header a player can see, and whether all of them sit on one line inside it.
HEADER_LINE = """() => {
  const header = document.querySelector('.site-header').getBoundingClientRect();
  const middle = header.top + header.height / 2;
  const parts = [...document.querySelectorAll(
      '.site-header .brand, .site-header .site-nav > a, .site-header .menu-toggle, .menu-links a')]
    .filter((e) => e.checkVisibility());
  const off = parts.filter((e) => {
    const r = e.getBoundingClientRect();
    const centre = r.top + r.height / 2;
    return r.top < header.top || r.bottom > header.bottom || Math.abs(centre - middle) > 8;
  }).map((e) => e.textContent.trim() || e.className);
  return {height: header.height, parts: parts.length, off};
}"""


def _header_is_one_line(page, where: str) -> None:
    found = page.evaluate(HEADER_LINE)
    assert found["height"] <= HEADER_MAX, (where, found)
    assert found["parts"] >= 3 and not found["off"], (where, found)


def _start_a_heist(page, site) -> str:
    page.goto(site + "/play/")
    page.get_by_role("button", name="Quick heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    expect(page.locator(".card").first).to_be_visible()
    return heist_id(page)


@SIZES
def test_every_page_has_a_one_line_header_and_passes_axe(site, slot, new_page, shots, viewport):
    from shop.services import shop_catalogue_load

    shop_catalogue_load()  # the shop as players see it, not an empty one
    page = new_page(viewport)
    for path, name in [
        ("/", "home"),
        ("/how-to-play/", "how-to-play"),
        ("/rules/", "rules"),
        ("/deck/", "deck"),
        ("/shop/", "shop-guest"),
        ("/featured/", "featured-guest"),
        ("/accounts/login/", "sign-in"),
        ("/accounts/signup/", "sign-up"),
        ("/accounts/password/reset/", "password-reset"),
    ]:
        page.goto(site + path)
        _header_is_one_line(page, name)
        audit(page, shots, name)
    pass_age_check(page, site, "/play/")
    _header_is_one_line(page, "play")
    audit(page, shots, "play")
    open_choices(page)
    audit(page, shots, "play-set-up")
    hid = _start_a_heist(page, site)
    _header_is_one_line(page, "board")  # the board itself is another page's to audit
    finish_heist_by_api(page, site, hid)
    page.goto(f"{site}/heists/{hid}/result/")
    _header_is_one_line(page, "result")
    audit(page, shots, "result-guest")

    # Signed in: the Signs join the header, still one line.
    signed = new_page(viewport)
    sign_in_new_player(
        signed, site, email=f"head-{viewport['width']}@example.com", password=PASSWORD
    )
    for path, name in [
        ("/", "home-signed-in"),
        ("/play/", "play-signed-in"),
        ("/shop/", "shop-signed-in-header"),
        ("/accounts/profile/", "profile"),
        ("/featured/", "featured-signed-in"),
    ]:
        signed.goto(site + path)
        expect(signed.locator("#header-signs")).to_be_visible()
        _header_is_one_line(signed, name)
        audit(signed, shots, name)


@SIZES
def test_the_menu_opens_over_the_page_and_closes(site, new_page, shots, viewport):
    page = new_page(viewport, has_touch=viewport != DESKTOP)
    page.goto(site + "/rules/")
    links = page.locator(".menu-links a")
    toggle = page.locator("#site-menu > summary")
    if viewport == DESKTOP:
        # Wide enough: every link stands in the header, no menu to open.
        expect(toggle).to_be_hidden()
        for link in links.all():
            expect(link).to_be_visible()
        return
    expect(toggle).to_be_visible()
    expect(links.first).to_be_hidden()
    before = page.locator("main h1").bounding_box()
    toggle.click()
    for link in links.all():
        expect(link).to_be_visible()
        box = link.bounding_box()
        assert box["height"] >= 44 and box["y"] + box["height"] <= viewport["height"], box
    # It opens over the page: nothing below the header moves.
    assert page.locator("main h1").bounding_box() == before
    audit(page, shots, "menu-open")
    page.keyboard.press("Escape")
    expect(links.first).to_be_hidden()
    expect(toggle).to_be_focused()
    toggle.click()
    page.mouse.click(viewport["width"] // 2, viewport["height"] - 10)  # a tap outside it
    expect(links.first).to_be_hidden()
    menu_link(page, "Deck").click()
    page.wait_for_url(re.compile(r"/deck/$"))


@SIZES
def test_the_set_up_keeps_start_in_view_with_every_name_in_full(site, new_page, shots, viewport):
    from game.engine import get_ruleset
    from game.presenters.catalogue import encounter_choices
    from game.selectors.catalogue import encounters

    page = new_page(viewport)
    pass_age_check(page, site, "/play/")
    # Quick heist stays the fast path: in the first screen, the set-up folded below it.
    quick = page.get_by_role("button", name="Quick heist")
    box = quick.bounding_box()
    assert box["y"] + box["height"] <= viewport["height"], box
    open_choices(page)
    start = page.get_by_role("button", name="Start the heist")
    form = page.locator("#setup-form").bounding_box()
    height = page.evaluate("document.documentElement.scrollHeight")
    seen = []
    # From where the page stands once the set-up is open to where the form's end meets the
    # screen's bottom, half a screen at a time and the end itself (the box is the viewport's:
    # the form's end in the page is its bottom plus the scroll).
    top = int(page.evaluate("window.scrollY"))
    bottom = int(form["y"] + form["height"] + top - viewport["height"])
    stops = [*range(top, max(top, bottom), max(1, viewport["height"] // 2)), max(top, bottom)]
    for y in stops:
        page.evaluate(f"window.scrollTo(0, {y})")
        assert int(page.evaluate("window.scrollY")) == y, (y, "the page cannot scroll there")
        box = start.bounding_box()
        seen.append(y)
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (y, box)
    print(
        f"\nset-up ({viewport['width']}x{viewport['height']}): {height} px tall, "
        f"{height / viewport['height']:.1f} screens; Start in view at every scroll ({seen})"
    )

    # Every encounter by its whole name, nothing cut off.
    names = [e["name"] for e in encounter_choices(encounters(), get_ruleset())]
    labels = page.locator(".encounter-row label.title")
    assert labels.all_inner_texts()[1:] == names
    cut = labels.evaluate_all("(ls) => ls.filter((l) => l.scrollWidth > l.clientWidth + 1)")
    assert not cut, cut
    # And no name broken inside a word (a one-word name on one line).
    broken = page.locator(".choice-row label.title").evaluate_all(
        """(labels) => labels.filter((l) => {
             const text = l.firstChild;
             if (!text || text.nodeType !== 3 || /\\s/.test(text.textContent.trim())) return false;
             const range = document.createRange();
             range.selectNodeContents(text);
             return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
           }).map((l) => l.textContent.trim())"""
    )
    assert not broken, broken
    longest = max(names, key=len)
    page.get_by_role("radio", name=longest, exact=True).check()
    page.get_by_role("radio", name="Kingpin", exact=True).check()
    expect(page.locator("#setup-summary")).to_contain_text(longest)
    expect(page.locator("#setup-summary")).to_contain_text("Kingpin")
    summary = page.locator("#setup-summary")
    assert summary.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
    audit(page, shots, "play-set-up-chosen")
    start.click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    view = page.request.get(f"{site}/api/v1/heists/{heist_id(page)}/").json()
    assert view["encounter"]["name"] == longest and view["rival"]["difficulty"] == "kingpin"


def _emblems_drawn(page, slugs) -> None:
    """Each crew's face draws its own symbol of the sprite, and the symbol was found (a <use>
    whose target is missing draws nothing: an empty box)."""
    for slug in slugs:
        face = page.locator(f'[data-crew-face="{slug}"]').first
        expect(face).to_be_attached()
        href = face.locator("use").get_attribute("href")
        assert href.endswith(f"/board.svg#crew-{slug}"), (slug, href)
    page.wait_for_function(
        """(slugs) => slugs.every((s) => {
             const use = document.querySelector(`[data-crew-face="${s}"] use`);
             const box = use.getBBox();
             return box.width > 0 && box.height > 0;
           })""",
        arg=list(slugs),
    )


@SIZES
def test_every_crew_has_its_emblem_on_shop_deck_builder_and_rules(site, new_page, shots, viewport):
    from game import catalogue
    from shop.services import shop_catalogue_load

    shop_catalogue_load()
    ruleset = catalogue.active_ruleset()
    every = list(ruleset.crew)
    page = new_page(viewport)
    page.goto(site + "/rules/")
    assert page.locator("#crew-table [data-crew-face]").count() == len(every)
    _emblems_drawn(page, every)
    audit(page, shots, "rules-emblems")
    page.goto(site + "/deck/")
    assert page.locator(".builder [data-crew-face]").count() == len(every)
    _emblems_drawn(page, every)
    audit(page, shots, "deck-emblems")
    page.goto(site + "/shop/")
    sold = page.locator('li[data-kind="crew"]').evaluate_all(
        "(ls) => ls.map((l) => l.dataset.slug)"
    )
    assert sorted(sold) == sorted(ruleset.crew_in_set("night-market"))
    _emblems_drawn(page, sold)
    # The old placeholder is gone, and no title badge spills out of its frame.
    expect(page.get_by_text(re.compile(r"^NM \d+ · \d+$"))).to_have_count(0)
    spills = page.locator(".player-title").evaluate_all(
        """(badges) => badges.filter((b) => {
             const r = b.getBoundingClientRect(), p = b.parentElement.getBoundingClientRect();
             const cut = b.scrollWidth > b.clientWidth + 1;
             return cut || r.left < p.left - 1 || r.right > p.right + 1;
           }).map((b) => b.textContent)"""
    )
    assert not spills, spills
    audit(page, shots, "shop-emblems")


def _wallet(page, site) -> int:
    return page.request.get(f"{site}/api/v1/wallet/").json()["balance"]


def _header_signs(page) -> int:
    chip = page.locator("#header-signs")
    expect(chip).to_be_visible()
    shown = int(chip.inner_text().strip())
    assert shown == int(chip.get_attribute("data-balance"))
    return shown


@SIZES
def test_the_header_signs_equal_the_wallet(site, new_page, shots, viewport):
    from shop.services import shop_catalogue_load, signs_grant

    shop_catalogue_load()
    page = new_page(viewport)
    user = sign_in_new_player(
        page, site, email=f"signs-{viewport['width']}@example.com", password=PASSWORD
    )
    assert _header_signs(page) == _wallet(page, site) == 0
    signs_grant(user=user, amount=137, reason_text="e2e: a grant")
    for path in ("/", "/play/", "/deck/", "/rules/"):
        page.goto(site + path)
        assert _header_signs(page) == _wallet(page, site) == 137, path
    hid = _start_a_heist(page, site)
    finish_heist_by_api(page, site, hid)
    page.goto(f"{site}/heists/{hid}/result/")
    earned = int(page.locator("#signs-result .signs-total").inner_text().lstrip("+"))
    assert _header_signs(page) == _wallet(page, site) == 137 + earned
    audit(page, shots, "result-signed-in")
    # The shop's unaffordable items say so before any tap: no Buy to press, the Signs missing.
    page.goto(site + "/shop/")
    balance = _header_signs(page)
    for item in page.locator("li.item:not(.owned)").all():
        price = int(item.get_attribute("data-price"))
        name = item.get_attribute("data-name")
        if price > balance:
            expect(item.get_by_role("link", name=re.compile("^Buy"))).to_have_count(0)
            expect(item.get_by_role("button", name="Buy")).to_be_disabled()
            expect(item.locator(".short")).to_contain_text(f"You need {price - balance} more")
        else:
            expect(item.get_by_role("link", name=f"Buy {name} for {price} Signs")).to_be_visible()
    audit(page, shots, "shop-short")


def _ledger(user, references) -> list[int]:
    from shop.models import Entry

    return list(
        Entry.objects.filter(account__user=user, transaction__reference__in=references)
        .order_by("id")
        .values_list("amount", flat=True)
    )


def _result_lines(page) -> list[int]:
    return [int(a) for a in page.locator("#signs-result li[data-amount]").evaluate_all(
        "(ls) => ls.map((l) => l.dataset.amount)"
    )]  # fmt: skip


@SIZES
def test_a_ranked_featured_result_lists_every_sign_the_ledger_paid(
    site, slot, new_page, shots, viewport
):
    from game.services.featured import featured_slot_close

    page = new_page(viewport)
    user = sign_in_new_player(
        page, site, email=f"ranked-{viewport['width']}@example.com", password=PASSWORD
    )
    page.get_by_role("button", name="Play the featured heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    hid = heist_id(page)
    finish_heist_by_api(page, site, hid)
    page.goto(f"{site}/heists/{hid}/result/")
    paid = _ledger(user, [f"heist:{hid}"])
    assert len(paid) == 2, paid  # the outcome's award and the ranked finish's bonus
    assert _result_lines(page) == paid
    total = page.locator("#signs-result .signs-title")
    expect(total).to_contain_text(f"You earned {sum(paid)} Signs for this heist.")
    expect(page.locator("#signs-result")).to_contain_text("Featured bonus")
    assert _header_signs(page) == _wallet(page, site) == sum(paid)
    audit(page, shots, "result-featured-ranked")

    # The slot closes with this player on top: the place's prize joins the list.
    slot.refresh_from_db()
    assert featured_slot_close(slug=slot.slug, now=slot.ends_at)
    page.reload()
    paid = _ledger(user, [f"heist:{hid}", f"featured:{slot.slug}"])
    assert len(paid) == 3, paid
    assert _result_lines(page) == paid
    expect(page.locator("#signs-result")).to_contain_text("1st place in the featured heist")
    expect(total).to_contain_text(f"You earned {sum(paid)} Signs for this heist.")
    assert _header_signs(page) == _wallet(page, site) == sum(paid)
    audit(page, shots, "result-featured-podium")


@SIZES
def test_a_new_player_is_welcomed_once_with_the_signs(site, new_page, shots, viewport):
    page = new_page(viewport)
    sign_up(page, site)
    welcome = page.get_by_role("region", name=re.compile(r"^Welcome to VEYLTAK: \+\d+ Signs$"))
    expect(welcome).to_be_visible()
    amount = int(re.search(r"\+(\d+)", welcome.inner_text()).group(1))
    assert amount == _wallet(page, site) == _header_signs(page) > 0
    box = welcome.bounding_box()
    assert box["y"] + box["height"] <= viewport["height"], box  # seen without scrolling
    audit(page, shots, "welcome")
    page.reload()
    expect(page.get_by_role("region", name=re.compile(r"^Welcome to VEYLTAK"))).to_have_count(0)


@SIZES
def test_how_to_play_is_one_night_worked_through_and_linked(site, new_page, shots, viewport):
    page = new_page(viewport)
    page.goto(site + "/")
    board = page.locator(".hero .demo-board")
    box = board.bounding_box()
    if (
        viewport != LANDSCAPE
    ):  # a sideways phone has 300 px under the header: the board starts there
        assert box["y"] + box["height"] <= viewport["height"], box
    play = page.get_by_role("link", name="Play now")
    assert play.bounding_box()["y"] + play.bounding_box()["height"] <= viewport["height"] or (
        viewport == LANDSCAPE
    )
    page.locator(".hero").get_by_role("link", name="How to play").click()
    page.wait_for_url(re.compile(r"/how-to-play/$"))
    expect(page.locator(".learn-steps > li")).to_have_count(4)
    expect(page.locator(".demo-vault")).to_have_count(3)
    height = page.evaluate("document.documentElement.scrollHeight")
    rules = len(page.evaluate("document.querySelector('main').innerText"))
    print(f"\nhow to play ({viewport['width']}x{viewport['height']}): {height} px, {rules} chars")
    audit(page, shots, "how-to-play-worked")
    pass_age_check(page, site, "/play/")
    page.locator(".quick-heist").get_by_role("link", name="How to play").click()
    page.wait_for_url(re.compile(r"/how-to-play/$"))


@SIZES
def test_the_profile_shows_every_column_and_names_not_ids(site, new_page, shots, viewport):
    page = new_page(viewport)
    sign_in_new_player(
        page, site, email=f"profile-{viewport['width']}@example.com", password=PASSWORD
    )
    page.goto(site + "/play/?encounter=crown-finale&difficulty=hustler")
    page.get_by_role("button", name="Start the heist").click()
    page.wait_for_url(re.compile(r"/heists/[0-9a-f-]+/$"))
    finish_heist_by_api(page, site, heist_id(page))
    page.goto(site + "/accounts/profile/")
    history = page.locator(".heist-table")
    expect(history).to_contain_text("Crown Finale")
    expect(history).to_contain_text("Hustler")
    assert "crown-finale" not in page.locator("main").inner_text()
    # Every cell of every table in sight: nothing cut off or scrolled out of the card.
    hidden = page.locator(".cards-on-phone td, .cards-on-phone tbody th").evaluate_all(
        """(cells) => cells.filter((c) => {
             const r = c.getBoundingClientRect();
             return !c.checkVisibility() || r.width === 0 || r.left < 0
               || r.right > document.documentElement.clientWidth;
           }).map((c) => c.textContent.trim())"""
    )
    assert not hidden, hidden
    for wrap in page.locator(".table-wrap").all():
        assert wrap.evaluate("(w) => w.scrollWidth <= w.clientWidth + 1")
    audit(page, shots, "profile-with-heists")
