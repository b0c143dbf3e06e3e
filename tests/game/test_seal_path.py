"""One seal request reads the heist once (issue 11: it used to enter the services four times
and the selectors three, reading the heist and its nights again at each): one query, under the
heist's row lock, brings the heist and every night; the rest are the night's writes."""

from __future__ import annotations

import pytest

from tests.support.heists import post, start

pytestmark = pytest.mark.django_db


def _reads_of_the_heist(queries: list[dict]) -> list[str]:
    return [
        q["sql"] for q in queries if q["sql"].startswith("SELECT") and '"game_heist' in q["sql"]
    ]


def test_one_seal_reads_the_heist_once(guest, django_assert_max_num_queries):
    view = start(guest)
    # The board's poll seals the rival's night first (RIVAL_FALLBACK_SECONDS is 0 here).
    view = guest.get(f"/api/v1/heists/{view['id']}/").json()
    assert view["phase"] == "planning"
    body = {"night": 1, "crew": [], "boost": False}
    # The session and the age gate's record, a savepoint, the one read, the night's result,
    # the heist's night, the next night, the release: 8 (the session is read from the database
    # when no Redis cache holds it).
    with django_assert_max_num_queries(8) as captured:
        answer = post(guest, f"/api/v1/heists/{view['id']}/seal/", body)
    assert answer.status_code == 200, answer.content
    assert answer.json()["heist"]["night"] == 2
    reads = _reads_of_the_heist(captured.captured_queries)
    assert len(reads) == 1, reads
    assert '"game_heistnight"' in reads[0] and 'JOIN "game_heist"' in reads[0]
