"""The heist view's ETag (issue 29): an unchanged view is 304 Not Modified to its ETag, a view
the player may see change is 200 with the new view at once, and the tag is made of nothing
hidden."""

from __future__ import annotations

import pytest

from game.engine import RIVAL, observe
from game.models import Heist, HeistNight
from game.owners import Owner
from game.selectors import heists as heist_selectors
from game.selectors.heists import heist_load
from game.services.rivals import rival_plan_seal
from tests.support.heists import (
    age_checked_client,
    crew_costs,
    fix_the_game_seeds,
    legal_plan,
    play_out,
    post,
    start,
)

pytestmark = pytest.mark.django_db


def read(client, view: dict, etag: str | None = None):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(f"/api/v1/heists/{view['id']}/", **headers)


def test_an_unchanged_view_is_304_and_the_next_change_200_at_once(guest, settings):
    settings.RIVAL_FALLBACK_SECONDS = 600  # the rival seals when this test says so
    view = start(guest)
    first = read(guest, view)
    assert first.status_code == 200
    assert first.json()["phase"] == "rival_planning"
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')

    # The board polls while the rival plans: nothing changed, nothing sent.
    again = read(guest, view, etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert "no-store" in again["Cache-Control"]
    # The weak form and a list naming it are the same tag; another tag is not.
    assert read(guest, view, f'"other", W/{etag}').status_code == 304
    assert read(guest, view, '"other"').status_code == 200

    # The rival sealed: the same question is answered with the new view.
    rival_plan_seal(heist_id=view["id"], night=1)
    sealed = read(guest, view, etag)
    assert sealed.status_code == 200
    body = sealed.json()
    assert body["phase"] == "planning" and body["rival"]["commitment"]
    assert sealed["ETag"] != etag
    assert body == read(guest, view).json()
    assert read(guest, view, sealed["ETag"]).status_code == 304

    # A night resolved: 200 with the view the seal's answer carried.
    plan = legal_plan(body, __import__("random").Random(1), crew_costs())
    answer = post(guest, f"/api/v1/heists/{view['id']}/seal/", plan)
    assert answer.status_code == 200
    resolved = read(guest, view, sealed["ETag"])
    assert resolved.status_code == 200
    assert resolved.json() == answer.json()["heist"]
    assert resolved.json()["night"] == 2
    assert resolved["ETag"] not in (etag, sealed["ETag"])


def test_every_night_and_the_end_are_new_views(guest):
    view = start(guest)
    tags = [read(guest, view)["ETag"]]
    # Read after every seal (the rival seals each new night as soon as it is read here).
    last = play_out(
        guest, view, on_response=lambda response, before: tags.append(read(guest, before)["ETag"])
    )
    assert last["status"] == "finished"
    assert len(set(tags)) == len(tags) == 7  # night 1 before its rival sealed, then 6 seals
    final = read(guest, last, tags[-2])  # the tag of the last night in play
    assert final.status_code == 200
    assert final.json()["result"] is not None
    assert final["ETag"] == tags[-1]
    assert read(guest, last, tags[-1]).status_code == 304


def test_a_start_and_a_seal_name_the_tag_of_the_view_they_hold(guest, settings):
    """``Heist-ETag`` on a start's answer and on a seal's: the tag the view they hold has, so
    the board's next read is a 304 while the rival still plans, and 200 once it sealed."""
    settings.RIVAL_FALLBACK_SECONDS = 600
    started = post(guest, "/api/v1/heists/", {"rival": "furnace", "difficulty": "rookie"})
    view = started.json()
    assert read(guest, view)["ETag"] == started["Heist-ETag"]
    assert read(guest, view, started["Heist-ETag"]).status_code == 304
    rival_plan_seal(heist_id=view["id"], night=1)
    assert read(guest, view, started["Heist-ETag"]).status_code == 200

    costs, rng = crew_costs(), __import__("random").Random(2)
    body = read(guest, view).json()
    while body["status"] == "active":
        answer = post(guest, f"/api/v1/heists/{view['id']}/seal/", legal_plan(body, rng, costs))
        assert answer.status_code == 200
        tag, held = answer["Heist-ETag"], answer.json()["heist"]
        unchanged = read(guest, view, tag)  # the next night's rival has not sealed yet
        assert unchanged.status_code == 304 and unchanged["ETag"] == tag
        if held["status"] != "active":
            assert read(guest, view).json() == held
            break
        rival_plan_seal(heist_id=view["id"], night=held["night"])
        body = read(guest, view, tag).json()
        assert body["night"] == held["night"] and body["rival"]["commitment"]


def test_a_night_overdue_for_the_rival_is_sealed_not_304(guest, settings):
    """The view's fallback (DESIGN.md section 3.5) still runs for a board that asks with a
    current tag: no worker sealed the night in time, so the view seals it and has changed."""
    settings.RIVAL_FALLBACK_SECONDS = 600
    view = start(guest)
    etag = read(guest, view)["ETag"]
    settings.RIVAL_FALLBACK_SECONDS = 0
    overdue = read(guest, view, etag)
    assert overdue.status_code == 200
    assert overdue.json()["phase"] == "planning"
    assert HeistNight.objects.get(heist_id=view["id"], night=1).rival_commitment


def test_another_players_heist_is_404_whatever_the_tag(guest, settings):
    settings.RIVAL_FALLBACK_SECONDS = 600
    view = start(guest)
    etag = read(guest, view)["ETag"]
    other = age_checked_client()
    for tag in (etag, "*"):
        response = read(other, view, tag)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
        assert "ETag" not in response


def _rival_hand(heist_id: str, owner: Owner) -> list[str]:
    state = heist_load(heist_id=heist_id, owner=owner).state
    return sorted(slug for (slug,) in [(s,) for _, s in observe(state, RIVAL).hand])


def test_no_etag_differs_between_views_that_differ_only_in_what_is_hidden(
    guest, settings, monkeypatch
):
    """Two views that differ only in the rival's hand and its sealed (unrevealed) plan carry
    the same ETag, and a board holding one is told 304 for the other: the tag cannot tell a
    client anything the view does not."""
    fix_the_game_seeds(monkeypatch, "etag-hidden")
    original = play_out(guest, start(guest))
    settings.RIVAL_FALLBACK_SECONDS = 600
    retry = post(guest, f"/api/v1/heists/{original['id']}/retry/", {"night": 3})
    assert retry.status_code == 201, retry.content
    view = retry.json()
    rival_plan_seal(heist_id=view["id"], night=3)
    before = read(guest, view)
    assert before.json()["phase"] == "planning"

    heist = Heist.objects.get(pk=view["id"])
    owner = Owner(user_id=None, guest_id=heist.guest_id)
    hand_before = _rival_hand(view["id"], owner)
    # The rival's hand: one card changed for a card of another crew from its deck (the
    # position a practice heist starts from holds both sides' piles), every count kept.
    position = heist.start
    rival = position["sides"][RIVAL]
    deck_slugs = heist.rival_deck
    swap = next(
        i for i, c in enumerate(rival["deck"]) if deck_slugs[c] != deck_slugs[rival["hand"][0]]
    )
    rival["hand"][0], rival["deck"][swap] = rival["deck"][swap], rival["hand"][0]
    Heist.objects.filter(pk=heist.pk).update(start=position)
    # And its sealed plan and nonce (the commitment shown stays as it was).
    HeistNight.objects.filter(heist=heist, night=3).update(
        rival_plan={"crew": [], "boost": False}, rival_nonce="0" * 64
    )
    # A heist's start is never edited, so this process kept the state it dealt: forget it.
    heist_selectors._states_kept.clear()
    assert _rival_hand(view["id"], owner) != hand_before

    after = read(guest, view)
    assert after.json() == before.json()
    assert after["ETag"] == before["ETag"]
    assert read(guest, view, before["ETag"]).status_code == 304
