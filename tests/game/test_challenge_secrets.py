"""Hidden information across a challenge (issue 26): while a friend plays a challenge, nothing of
the challenger's heist reaches the friend (its seed, which is the friend's own and would deal
every hand and night's loot; its id, which leads to its replay; its plans and their proofs; its
score), and nothing of the friend's heist reaches the challenger, through every challenge route
and page and the heists' own; and what a challenge shows before then is exactly the promised
list. The heist views are scanned by the secrets scanner too (tests/support/secrets.py).
After the friend's end both see both (the positive control: the same checks would fail)."""

from __future__ import annotations

import random

import pytest
from django.core import signing

from game.models import Heist
from game.services.debriefs import debrief_compute
from game.tasks import plan_rival_night
from tests.support.challenges import make_challenge
from tests.support.heists import (
    age_checked_client,
    crew_costs,
    legal_plan,
    make_player,
    play_out,
    post,
    seal,
    start,
)
from tests.support.secrets import OtherHeistScanner, Scanner, challenge_shown_before_the_end

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CHALLENGES = [
    {"rival": "the-reader", "difficulty": "kingpin", "encounter": "crown-finale"},
    {"rival": "furnace", "difficulty": "rookie"},
    {"rival": "quiet-hands", "difficulty": "safecracker", "encounter": "ledger-night"},
    {"rival": "split-circuit", "difficulty": "hustler", "encounter": "hot-start"},
    {"rival": "furnace", "difficulty": "kingpin", "encounter": "overtime"},
    {"rival": "the-reader", "difficulty": "hustler", "encounter": "tower-blackout"},
]


def _share_link(heist_id: str) -> str:
    # The result page's replay link (game.views.heists._share_url), as its owner could send it.
    token = signing.dumps(str(heist_id), salt="game.replay.share")
    return f"/heists/{heist_id}/replay/?share={token}"


@pytest.mark.parametrize("index", range(len(CHALLENGES)))
def test_nothing_of_the_other_heist_before_the_friends_end(index):
    body = CHALLENGES[index]
    rng = random.Random(index)
    costs = crew_costs()
    _, challenger = make_player(f"challenger{index}@example.com")
    friend = age_checked_client() if index % 2 else make_player(f"friend{index}@example.com")[1]
    original = play_out(challenger, start(challenger, **body), seed=index)
    hidden = Heist.objects.get(pk=original["id"])
    slug = make_challenge(challenger, original["id"])["slug"]
    views, others = Scanner(), OtherHeistScanner()

    def as_friend(response, *, own: str | None = None):
        others.check(response, hidden)
        if own is not None:
            views.check(response, own)
        return response

    # Before accepting: the page and the answer, exactly what the link promised.
    as_friend(friend.get(f"/challenges/{slug}/"))
    challenge_shown_before_the_end(
        as_friend(friend.get(f"/api/v1/challenges/{slug}/")).json(), challenger=False
    )
    # The original's own routes are another player's: 404, whatever the friend knows.
    for path in (f"/api/v1/heists/{hidden.pk}/replay/", f"/heists/{hidden.pk}/result/"):
        assert friend.get(path).status_code == 404
    response = as_friend(post(friend, f"/api/v1/challenges/{slug}/heists/"), own=None)
    assert response.status_code == 201
    view = response.json()
    mine = view["id"]
    views.check(response, mine)
    answer = Heist.objects.get(pk=mine)
    # Even a share link of the original (had the challenger sent one) waits for the end.
    assert friend.get(_share_link(hidden.pk)).status_code == 404

    while view["status"] == "active":
        if rng.random() < 0.5:
            plan_rival_night(mine, view["night"])
        view = as_friend(friend.get(f"/api/v1/heists/{mine}/"), own=mine).json()
        challenge_shown_before_the_end(
            as_friend(friend.get(f"/api/v1/challenges/{slug}/")).json(), challenger=False
        )
        page = as_friend(friend.get(f"/challenges/{slug}/"))
        assert f"/heists/{mine}/" in page.content.decode()  # Continue your heist
        board = as_friend(friend.get(f"/heists/{mine}/"))
        assert board.status_code == 200
        # The side by side waits: the friend is sent back to their board.
        compare = friend.get(f"/challenges/{slug}/vs/{mine}/")
        assert compare.status_code == 302 and compare["Location"] == f"/heists/{mine}/"
        # The challenger meanwhile: the friend's heist is theirs alone.
        for path in (
            f"/api/v1/challenges/{slug}/",
            f"/challenges/{slug}/",
            f"/heists/{hidden.pk}/result/",
            f"/heists/{hidden.pk}/replay/",
        ):
            seen = challenger.get(path)
            assert seen.status_code == 200, path
            others.check(seen, answer, seed_known=True, id_known=True)
            if path.startswith("/api/"):
                challenge_shown_before_the_end(seen.json(), challenger=True)
        assert challenger.get(f"/challenges/{slug}/vs/{mine}/").status_code == 302
        for path in (f"/api/v1/heists/{mine}/", f"/api/v1/heists/{mine}/replay/"):
            assert challenger.get(path).status_code == 404
        response = as_friend(
            post(friend, f"/api/v1/heists/{mine}/seal/", legal_plan(view, rng, costs)), own=mine
        )
        assert response.status_code == 200, response.content
        view = response.json()["heist"]

    # After the end both see both: the same checks now fail, so they were not blind.
    after = friend.get(f"/api/v1/challenges/{slug}/").json()
    assert after["nights"] == original["history"]
    with pytest.raises(AssertionError):
        challenge_shown_before_the_end(after, challenger=False)
    compare = friend.get(f"/challenges/{slug}/vs/{mine}/")
    assert compare.status_code == 200
    with pytest.raises(AssertionError):
        OtherHeistScanner().check(compare, hidden, seed_known=True, id_known=True)
    theirs = challenger.get(f"/api/v1/challenges/{slug}/").json()["answers"][0]
    assert theirs["nights"] == view["history"]
    assert friend.get(_share_link(hidden.pk)).status_code == 200
    # Every answer was scanned: the friend's 3 before the start and 5 a night, the
    # challenger's 4 a night; the friend's heist views and seals by the secrets scanner too.
    assert views.responses == 1 + 6 * 2
    assert others.responses == 3 + 6 * 5 + 6 * 4


def test_the_scanner_sees_the_other_heist(guest, player):
    """Not blind: an answer carrying the other heist's seed, id or a night's proof fails it."""
    _, friend = player
    original = play_out(guest, start(guest), seed=1)
    hidden = Heist.objects.get(pk=original["id"])
    slug = make_challenge(guest, original["id"])["slug"]
    clean = friend.get(f"/api/v1/challenges/{slug}/")
    OtherHeistScanner().check(clean, hidden)
    night = hidden.nights.get(night=3)

    class Leaky:
        def __init__(self, extra: str) -> None:
            self.content = clean.content[:-1] + f', "debug": "{extra}"}}'.encode()
            self.headers = clean.headers
            self.cookies = clean.cookies

        def get(self, key, default=None):
            return clean.get(key, default)

    for leak in (hidden.server_seed, str(hidden.pk), night.rival_nonce, night.rival_commitment):
        with pytest.raises(AssertionError):
            OtherHeistScanner().check(Leaky(leak), hidden)


def test_no_heist_of_the_same_seed_is_shared_with_a_friend_still_playing():
    """A share link of any heist dealt from the challenged heist's seed (another friend's
    finished answer, a practice retry of the original or of that answer) would show a friend
    still playing their own heist: its seed and every night's loot. It answers 404 to them until
    they finish, as the original's does; to anyone else, and to them afterwards, 200."""
    _, challenger = make_player("challenger@example.com")
    original = play_out(challenger, start(challenger), seed=1)
    slug = make_challenge(challenger, original["id"])["slug"]
    _, first = make_player("first@example.com")
    answered = play_out(first, post(first, f"/api/v1/challenges/{slug}/heists/").json(), seed=2)
    retries = []
    for client, heist_id in ((challenger, original["id"]), (first, answered["id"])):
        debrief_compute(heist_id=heist_id)
        retry = post(client, f"/api/v1/heists/{heist_id}/retry/", {"night": 4})
        assert retry.status_code == 201, retry.content
        retries.append(play_out(client, retry.json(), seed=3)["id"])
    same_seed = [answered["id"], *retries]
    seed = Heist.objects.get(pk=original["id"]).server_seed
    assert Heist.objects.filter(pk__in=same_seed, server_seed=seed).count() == 3

    friend = age_checked_client()
    view = post(friend, f"/api/v1/challenges/{slug}/heists/").json()
    rng, costs = random.Random(5), crew_costs()
    for _ in range(2):
        response = seal(friend, view["id"], legal_plan(view, rng, costs))
        assert response.status_code == 200, response.content
        view = response.json()["heist"]
    stranger = age_checked_client()
    for heist_id in same_seed:
        assert friend.get(_share_link(heist_id)).status_code == 404, heist_id
        assert stranger.get(_share_link(heist_id)).status_code == 200, heist_id
    play_out(friend, view, seed=4)
    for heist_id in same_seed:
        assert friend.get(_share_link(heist_id)).status_code == 200, heist_id
