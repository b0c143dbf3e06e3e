"""Challenge a friend on the pages (issue 26): the result and replay pages make a challenge and
show its link and who took it on; a guest opens the link, sees what it promises, is led through
the age check and plays it; the board says whose challenge it is; the friend's result leads to
both heists side by side, which only the two of them see, once the friend has finished."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from game.models import Challenge, Heist
from game.rivals.personas import get_persona
from tests.support.accounts import assert_neutral
from tests.support.challenges import accept, make_challenge, play_plans, sealed_plans
from tests.support.heists import (
    ADULT_BIRTH_DATE,
    age_checked_client,
    play_out,
    post,
    start,
)

pytestmark = pytest.mark.django_db


def _handle(client: Client) -> str:
    return client.get("/api/v1/me/").json()["username"]


def test_the_result_page_makes_a_challenge_and_shows_its_link(player):
    _, owner = player
    end = play_out(owner, start(owner, rival="quiet-hands"), seed=2)
    result = f"/heists/{end['id']}/result/"
    page = owner.get(result).content.decode()
    assert 'id="challenge"' in page
    assert f'action="/heists/{end["id"]}/challenge/"' in page
    made = owner.post(f"/heists/{end['id']}/challenge/")
    assert made.status_code == 302 and made["Location"] == f"{result}#challenge"
    slug = Challenge.objects.get(heist_id=end["id"]).slug
    page = owner.get(result).content.decode()
    assert f"http://testserver/challenges/{slug}/" in page
    assert "Nobody has taken it on yet" in page
    # The replay page carries the same section; a shared replay, none.
    replay = owner.get(f"/heists/{end['id']}/replay/").content.decode()
    assert f"/challenges/{slug}/" in replay
    share = re.search(r'href="https?://[^/"]+(/heists/[^"]+share=[^"]+)"', page)
    shared = age_checked_client().get(share[1].replace("&amp;", "&")).content.decode()
    assert 'id="challenge"' not in shared


def test_a_guest_is_led_through_the_age_check_to_play_and_sees_both_at_the_end(player):
    _, owner = player
    original = play_out(owner, start(owner, rival="the-reader", difficulty="hustler"), seed=5)
    slug = make_challenge(owner, original["id"])["slug"]
    handle = _handle(owner)
    visitor = Client()
    landing = visitor.get(f"/challenges/{slug}/")
    html = landing.content.decode()
    assert landing.status_code == 200
    assert handle in html and get_persona("the-reader").name in html and "Hustler" in html
    assert "Ghost Locksmith" in html  # the deck, as cards
    assert f'href="/age-check/?next=%2Fchallenges%2F{slug}%2F"' in html
    assert f"/challenges/{slug}/play/" not in html
    # What leads to the check says nothing of what it checks (the site's footer aside).
    assert_neutral(html.split("<main", 1)[1].split("</main>", 1)[0], "the challenge's lead-in")
    # Playing before the check is sent to it too.
    refused = visitor.post(f"/challenges/{slug}/play/")
    assert refused.status_code == 302 and refused["Location"].startswith("/age-check/")
    checked = visitor.post(
        "/age-check/", {"birth_date": ADULT_BIRTH_DATE, "next": f"/challenges/{slug}/"}
    )
    assert checked["Location"] == f"/challenges/{slug}/"
    html = visitor.get(f"/challenges/{slug}/").content.decode()
    assert f'action="/challenges/{slug}/play/"' in html
    played = visitor.post(f"/challenges/{slug}/play/")
    heist = Heist.objects.get(challenge_id=slug)
    assert played["Location"] == f"/heists/{heist.pk}/"
    board = visitor.get(played["Location"]).content.decode()
    assert f"<b>Challenge</b>&#32;from {handle} · never ranked, no Signs" in board
    # Once only: the page now continues that heist, and playing again says why not.
    again = visitor.post(f"/challenges/{slug}/play/", follow=True).content.decode()
    assert "You have played this challenge already." in again

    view = visitor.get(f"/api/v1/heists/{heist.pk}/").json()
    end = play_plans(visitor, view, sealed_plans(original["id"]))
    result = visitor.get(f"/heists/{heist.pk}/result/").content.decode()
    assert f"A challenge from {handle}" in result
    assert "A friend's challenge earns no Signs" in result
    compare_url = f"/challenges/{slug}/vs/{heist.pk}/"
    assert compare_url in result
    compare = visitor.get(compare_url).content.decode()
    assert compare.count('class="cmp-night"') == 6
    # The same plans on the same heist: dead level.
    assert f"Dead level: you and {handle}" in compare
    assert end["result"]["you"] == original["result"]["you"]
    # The challenger sees the friend's heist beside theirs, from their result page too.
    owners_result = owner.get(f"/heists/{original['id']}/result/").content.decode()
    assert compare_url in owners_result
    seen = owner.get(compare_url).content.decode()
    assert "You and a player, side by side" in seen  # the guest has no handle


def test_who_may_see_the_two_side_by_side(guest, player):
    _, friend = player
    slug = make_challenge(guest, play_out(guest, start(guest), seed=1)["id"])["slug"]
    answer = play_out(friend, accept(friend, slug), seed=2)
    compare = f"/challenges/{slug}/vs/{answer['id']}/"
    assert friend.get(compare).status_code == 200
    assert guest.get(compare).status_code == 200
    assert age_checked_client().get(compare).status_code == 404  # a third player
    assert friend.get(f"/challenges/nope/vs/{answer['id']}/").status_code == 404
    other = play_out(guest, start(guest), seed=3)
    assert guest.get(f"/challenges/{slug}/vs/{other['id']}/").status_code == 404
    assert Client().get(compare)["Location"].startswith("/age-check/")


def test_the_pages_refuse_with_reasons(guest, player):
    _, other = player
    end = play_out(guest, start(guest), seed=4)
    slug = make_challenge(guest, end["id"])["slug"]
    own = guest.post(f"/challenges/{slug}/play/", follow=True).content.decode()
    assert "This is your own challenge: send its link to a friend." in own
    assert guest.get("/challenges/nope/").status_code == 404
    assert guest.post("/challenges/nope/play/").status_code == 404
    # Someone else's heist: no such heist, and no challenge of it.
    assert other.post(f"/heists/{end['id']}/challenge/").status_code == 404
    retry = post(guest, f"/api/v1/heists/{end['id']}/retry/", {"night": 2}).json()
    retry = play_out(guest, retry, seed=6)
    page = guest.get(f"/heists/{retry['id']}/result/").content.decode()
    assert 'id="challenge"' not in page  # a practice retry is not challenged
    refused = guest.post(f"/heists/{retry['id']}/challenge/", follow=True).content.decode()
    assert "A practice retry cannot be challenged" in refused
    assert Challenge.objects.count() == 1
