"""Challenge a friend through the API (DESIGN.md sections 5 and 11, issue 26): the friend's heist
deals the same shuffles, loot and rival stream, so the challenger's own plans played again give
the same nights, and its replay verifies offline; once per player and per guest; never ranked,
never earning; the challenger's own refused; errors with their codes; a heist's challenge made
by its owner only; a deleted challenger's challenge still plays, from "a player"."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest
import time_machine
from django.conf import settings
from django.test import Client

from accounts import services as account_services
from game.models import Challenge, FeaturedSlot, Heist
from game.services import featured as featured_services
from game.services.heists import heists_claim_guest
from shop.models import Transaction
from tests.support.challenges import (
    accept,
    make_challenge,
    night_without_proofs,
    play_plans,
    sealed_plans,
)
from tests.support.featured import T0, start_featured
from tests.support.heists import age_checked_client, make_player, play_out, post, start

pytestmark = pytest.mark.django_db


def _finished(client: Client, *, seed: int = 3, **body) -> dict:
    return play_out(client, start(client, **body), seed=seed)


def _verify_offline(tmp_path, record: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(record))
    return subprocess.run(
        [sys.executable, "-m", "game.engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=60,
    )


@pytest.mark.parametrize(
    "body",
    [
        {"rival": "the-reader", "difficulty": "kingpin", "encounter": "crown-finale"},
        {"rival": "furnace", "difficulty": "safecracker", "client_seed": "mine"},
        {"rival": "split-circuit", "difficulty": "hustler", "encounter": "tower-blackout"},
    ],
    ids=["kingpin", "safecracker", "hustler"],
)
def test_the_challengers_plans_played_again_give_the_same_nights_and_verify(
    tmp_path, guest, player, body
):
    user, friend = player
    original = _finished(guest, seed=11, **body)
    made = make_challenge(guest, original["id"])
    assert made["url"].endswith(f"/challenges/{made['slug']}/")
    assert len(made["slug"]) >= 16

    view = accept(friend, made["slug"])
    assert view["challenge"] == made["slug"]
    assert view["ranked"] is False and view["featured"] is None and view["practice_of"] is None
    assert view["seed_commitment"] == original["seed_commitment"]
    assert view["rival"]["slug"] == original["rival"]["slug"]
    assert view["rival"]["difficulty"] == original["rival"]["difficulty"]
    assert view["you"]["deck"] == original["you"]["deck"]
    assert view["encounter"] == original["encounter"]
    assert view["night"] == 1 and view["history"] == []

    end = play_plans(friend, view, sealed_plans(original["id"]))
    assert end["status"] == "finished"
    # Night by night the same loot, draws, rival plans and results (only each heist's own
    # rival nonce and commitment differ: each sealed its own).
    assert [night_without_proofs(n) for n in end["history"]] == [
        night_without_proofs(n) for n in original["history"]
    ]
    assert end["result"]["outcome"] == original["result"]["outcome"]
    assert end["result"]["signs_awarded"] is None  # never earns, even signed in

    record = friend.get(f"/api/v1/heists/{end['id']}/replay/").json()
    done = _verify_offline(tmp_path, record)
    assert done.returncode == 0, done.stdout + done.stderr
    assert record["server_seed"] == Heist.objects.get(pk=original["id"]).server_seed

    heist = Heist.objects.get(pk=end["id"])
    assert heist.challenge_id == made["slug"] and heist.user_id == user.pk
    assert heist.signs_reason == "challenge" and heist.signs_awarded is None
    assert not Transaction.objects.filter(reference=f"heist:{heist.pk}").exists()


def test_once_per_player_and_once_per_guest(guest, player):
    _, friend = player
    slug = make_challenge(guest, _finished(guest)["id"])["slug"]
    accept(friend, slug)
    again = post(friend, f"/api/v1/challenges/{slug}/heists/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "challenge_taken"

    other = age_checked_client()
    accept(other, slug)
    refused = post(other, f"/api/v1/challenges/{slug}/heists/")
    assert refused.json()["error"]["code"] == "challenge_taken"
    # Another guest session is another guest.
    accept(age_checked_client(), slug)
    assert Heist.objects.filter(challenge_id=slug).count() == 3


def test_the_challenger_cannot_answer_their_own(guest, player):
    _, owner = player
    slug = make_challenge(owner, _finished(owner)["id"])["slug"]
    refused = post(owner, f"/api/v1/challenges/{slug}/heists/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "own_challenge"
    # A guest's challenge: the same browser is refused too.
    guest_slug = make_challenge(guest, _finished(guest)["id"])["slug"]
    assert post(guest, f"/api/v1/challenges/{guest_slug}/heists/").status_code == 409
    assert not Heist.objects.filter(challenge__isnull=False).exists()


def test_refusals_and_their_codes(guest, player):
    _, other = player
    active = start(guest)
    cases = [
        (post(guest, f"/api/v1/heists/{active['id']}/challenge/"), 409, "heist_active"),
        (guest.get("/api/v1/challenges/no-such-challenge/"), 404, "not_found"),
        (post(guest, "/api/v1/challenges/no-such-challenge/heists/"), 404, "not_found"),
        (post(guest, "/api/v1/heists/not-a-heist/challenge/"), 404, "not_found"),
        (post(Client(), f"/api/v1/heists/{active['id']}/challenge/"), 403, "age_check_required"),
        (Client().get("/api/v1/challenges/anything/"), 403, "age_check_required"),
    ]
    finished = play_out(guest, active, seed=2)
    # IDOR: another player's heist is no heist of theirs, and no challenge is made of it.
    cases.append((post(other, f"/api/v1/heists/{finished['id']}/challenge/"), 404, "not_found"))
    assert not Challenge.objects.exists()
    retry = post(guest, f"/api/v1/heists/{finished['id']}/retry/", {"night": 4}).json()
    retry = play_out(guest, retry, seed=5)
    cases.append((post(guest, f"/api/v1/heists/{retry['id']}/challenge/"), 409, "practice_heist"))
    slug = make_challenge(guest, finished["id"])["slug"]
    answer = play_out(other, accept(other, slug), seed=1)
    cases.append((post(other, f"/api/v1/heists/{answer['id']}/challenge/"), 409, "challenge_heist"))
    for response, status, code in cases:
        assert response.status_code == status, response.content
        assert response.json()["error"]["code"] == code, response.content
    # Made once: asking again answers the same link.
    assert make_challenge(guest, finished["id"], status=200)["slug"] == slug
    assert Challenge.objects.count() == 1


def test_an_abandoned_heist_cannot_be_challenged(guest, settings):
    settings.HEIST_ACTIVE_MAX = 1
    first = start(guest)
    start(guest)  # crowds the first out: abandoned
    response = post(guest, f"/api/v1/heists/{first['id']}/challenge/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "heist_abandoned"


def test_what_the_challenge_says_before_and_after_the_friends_end(guest, player):
    _, friend = player
    original = _finished(guest, seed=4, encounter="overtime")
    slug = make_challenge(guest, original["id"])["slug"]
    seen = friend.get(f"/api/v1/challenges/{slug}/").json()
    assert seen == {
        "slug": slug,
        "rival": original["rival"]["slug"],
        "difficulty": original["rival"]["difficulty"],
        "encounter": original["encounter"],
        "deck": original["you"]["deck"],
        "from": "a player",  # a guest has no handle
        "score": None,
        "nights": None,
        "you": None,
        "challenger": False,
        "answers": None,
    }
    view = accept(friend, slug)
    during = friend.get(f"/api/v1/challenges/{slug}/").json()
    assert during["you"] == {"heist": view["id"], "status": "active", "score": 0}
    assert during["score"] is None and during["nights"] is None
    mine = guest.get(f"/api/v1/challenges/{slug}/").json()
    assert mine["challenger"] is True
    assert mine["answers"] == [
        {"heist": view["id"], "player": friend_handle(friend), "status": "active",
         "score": None, "nights": None}
    ]  # fmt: skip
    end = play_out(friend, view, seed=9)
    after = friend.get(f"/api/v1/challenges/{slug}/").json()
    assert after["nights"] == original["history"]
    assert after["score"] == {
        "outcome": original["result"]["outcome"],
        "player": original["result"]["you"],
        "rival": original["result"]["rival"],
    }
    mine = guest.get(f"/api/v1/challenges/{slug}/").json()
    assert mine["answers"][0]["nights"] == end["history"]
    assert mine["answers"][0]["score"]["player"] == end["result"]["you"]


def friend_handle(client: Client) -> str:
    return client.get("/api/v1/me/").json()["username"]


def test_a_deleted_challengers_challenge_still_plays_from_a_neutral_name(guest):
    user, owner = make_player("leaving@example.com")
    original = _finished(owner, seed=6)
    slug = make_challenge(owner, original["id"])["slug"]
    assert guest.get(f"/api/v1/challenges/{slug}/").json()["from"] == friend_handle(owner)
    account_services.account_delete(user=user)
    assert guest.get(f"/api/v1/challenges/{slug}/").json()["from"] == "a player"
    end = play_plans(guest, accept(guest, slug), sealed_plans(original["id"]))
    after = guest.get(f"/api/v1/challenges/{slug}/").json()
    assert after["score"]["player"] == end["result"]["you"] == original["result"]["you"]
    page = guest.get(f"/challenges/{slug}/vs/{end['id']}/")
    assert page.status_code == 200 and "a player" in page.content.decode()


def test_a_guest_answer_stays_apart_when_its_account_answered_already(guest, player):
    user, friend = player
    owner = age_checked_client()
    slug = make_challenge(owner, _finished(owner)["id"])["slug"]
    accept(friend, slug)
    as_guest = accept(guest, slug)
    plain = start(guest)
    guest_id = Heist.objects.get(pk=as_guest["id"]).guest_id
    # Signing in claims the browser's other heists, never a second answer to one challenge.
    assert heists_claim_guest(user=user, guest_id=guest_id) == 1
    assert Heist.objects.get(pk=plain["id"]).user_id == user.pk
    kept = Heist.objects.get(pk=as_guest["id"])
    assert kept.user_id is None and kept.guest_id == guest_id
    assert Heist.objects.filter(challenge_id=slug, user=user).count() == 1


def test_a_featured_heist_is_challenged_once_its_slot_has_closed(settings):
    settings.FEATURED_SLOT_MINUTES = 60
    with time_machine.travel(T0 + dt.timedelta(minutes=5), tick=True) as clock:
        featured_services.featured_reconcile()
        slot = FeaturedSlot.objects.get(starts_at=T0)
        _, owner = make_player("ranked@example.com")
        ranked = play_out(owner, start_featured(owner, slot.slug), seed=3)
        practice = play_out(owner, start_featured(owner, slot.slug), seed=4)
        assert ranked["ranked"] is True and practice["ranked"] is False
        for heist in (ranked, practice):
            refused = post(owner, f"/api/v1/heists/{heist['id']}/challenge/")
            assert refused.status_code == 409
            assert refused.json()["error"]["code"] == "slot_open"
        page = owner.get(f"/heists/{ranked['id']}/result/").content.decode()
        assert "once its featured slot closes" in page
        clock.move_to(slot.ends_at + dt.timedelta(minutes=1))
        featured_services.featured_reconcile()
        slug = make_challenge(owner, ranked["id"])["slug"]
        friend = age_checked_client()
        view = accept(friend, slug)
        # The friend's heist is no featured heist: never ranked, on no board.
        assert view["featured"] is None and view["ranked"] is False
        assert view["seed_commitment"] == slot.seed_commitment
