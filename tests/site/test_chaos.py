"""Chaos on the worker, PostgreSQL and Redis (issue 16), on throwaway servers of the test's own
(tests/support/chaos.py): the machine's own PostgreSQL and Redis are never touched.

- The worker is killed with SIGKILL (with its pool) mid-turn, right after a seal queued the
  rival's next turn, CHAOS_KILLS times (50) during play, and started again: no heist is lost,
  no night has two rival plans (each night's commitment, as the player saw it before sealing,
  is the one its plan was revealed against, and one row per night), every heist finishes.
- PostgreSQL is stopped (immediate: a crash) during play and started again: /healthz says the
  database is down (503), requests fail cleanly (503, `service_unavailable` or a plain page,
  never a 500 with a trace), every seal answered 200 before is still there, and the site
  recovers by itself.
- Redis (broker and cache) is stopped: /healthz says so, and heists still finish (the web
  seals the rival's plans itself: RIVAL_FALLBACK_SECONDS).

Each prints its figures (`chaos_...: N` lines, `-s` shows them)."""

from __future__ import annotations

import os
import threading
import time
import uuid

import psycopg
import pytest
import requests

from tests.support import chaos

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chaos.available() is not None, reason=str(chaos.available())),
]
KILLS = int(os.environ.get("CHAOS_KILLS", "50"))
SITE_ENV = {
    "RATE_HEIST_START_SESSION": "100000/m",
    "RATE_HEIST_START_ADDRESS": "100000/m",
    "RATE_SEAL_SESSION": "100000/m",
    "RATE_SEAL_ADDRESS": "100000/m",
    "RATE_AGE_CHECK_ADDRESS": "100000/m",
    "RIVAL_FALLBACK_SECONDS": "2",
    "HEIST_ACTIVE_MAX": "50",
}


@pytest.fixture
def servers(tmp_path):
    pg = chaos.Postgres(tmp_path)
    redis = chaos.Redis(tmp_path)
    site = None
    try:
        site = chaos.Site(tmp_path, pg, redis, **SITE_ENV)
        site.start("web")
        site.start("worker")
        site.start("debrief")  # as the Procfile runs them: finished heists' debriefs too
        site.wait_ready()
        yield pg, redis, site
    finally:
        if site:
            site.stop_all()
        redis.stop()
        pg.remove()


def _nights(pg: chaos.Postgres, heist_ids: list[str]) -> tuple[dict, dict]:
    with psycopg.connect(pg.url.replace("postgres://", "postgresql://")) as conn:
        statuses = dict(
            conn.execute(
                "SELECT id::text, status FROM game_heist WHERE id = ANY(%s)",
                ([uuid.UUID(h) for h in heist_ids],),
            ).fetchall()
        )
        rows = conn.execute(
            "SELECT heist_id::text, night, rival_commitment, player_plan IS NOT NULL "
            "FROM game_heistnight WHERE heist_id = ANY(%s)",
            ([uuid.UUID(h) for h in heist_ids],),
        ).fetchall()
    nights: dict = {}
    for heist, night, commitment, played in rows:
        nights.setdefault((heist, night), []).append((commitment, played))
    return statuses, nights


def _check_no_heist_lost(pg, players):
    heists = [h for p in players for h in p.heists]
    statuses, nights = _nights(pg, heists)
    assert set(statuses) == set(heists), "a heist is missing"
    assert set(statuses.values()) == {"finished"}, statuses
    assert all(len(rows) == 1 for rows in nights.values()), "a night has two rows"
    for player in players:
        for (heist, night), commitment in player.seen.items():
            ((stored, _played),) = nights[(heist, night)]
            assert stored == commitment, f"night {night} of {heist}: two rival plans"
        for heist, night in player.sealed:
            assert nights[(heist, night)][0][1], "a seal answered 200 is not stored"
    return heists


def test_worker_killed_mid_turn_again_and_again(servers):
    pg, _redis, site = servers
    players = [chaos.Player(site.url) for _ in range(3)]
    for player in players:
        player.age_check()
    kills = 0
    stop = threading.Event()

    def killer():
        nonlocal kills
        seals_seen = 0
        while kills < KILLS and not stop.is_set():
            total = sum(len(p.sealed) for p in players)
            if total > seals_seen:  # a seal just queued the rival's next turn: kill now
                seals_seen = total
                site.kill("worker")
                kills += 1
                ready = site.log("worker").count(" ready.")
                site.start("worker")
                # Killed again only once it is up and taking turns.
                deadline = time.monotonic() + 120
                while site.log("worker").count(" ready.") <= ready:
                    assert time.monotonic() < deadline, site.log("worker")[-3000:]
                    time.sleep(0.1)
            time.sleep(0.05)

    def play(player):
        while not stop.is_set() and kills < KILLS:
            heist = player.start()["id"]
            player.play(heist)
        # Whatever is left in play is finished once the killing has stopped.
        for heist in player.heists:
            player.play(heist)

    started = time.monotonic()
    threads = [threading.Thread(target=killer)] + [
        threading.Thread(target=play, args=(p,)) for p in players
    ]
    for thread in threads:
        thread.start()
    threads[0].join(timeout=1800)
    stop.set()
    for thread in threads[1:]:
        thread.join(timeout=600)
    heists = _check_no_heist_lost(pg, players)
    assert kills == KILLS
    nights = sum(len(p.seen) for p in players)
    print(f"\nchaos_worker_kills: {kills}")
    print(f"chaos_heists_finished: {len(heists)} (nights played {nights})")
    answers: dict[int, int] = {}
    for p in players:
        for code, n in p.answers.items():
            answers[code] = answers.get(code, 0) + n
    print(f"chaos_answers: {sorted(answers.items())}")
    print(f"chaos_worker_seconds: {time.monotonic() - started:.0f}")
    assert all(code < 500 for p in players for code in p.answers)


def test_postgres_restarted_during_play(servers):
    pg, _redis, site = servers
    player = chaos.Player(site.url)
    player.age_check()
    first = player.start()["id"]
    for _ in range(2):
        assert player.step(first) in ("active", "finished")
    sealed_before = list(player.sealed)
    assert sealed_before

    pg.stop("immediate")  # a crash: no clean shutdown
    down_at = time.monotonic()
    health = requests.get(site.url + "/healthz", timeout=30)
    assert health.status_code == 503 and health.json()["down"] == ["database"], health.text
    answers = [
        player.call("GET", f"/api/v1/heists/{first}/"),
        player.call("POST", f"/api/v1/heists/{first}/seal/", {"night": 3, "crew": []}),
        player.call("POST", "/api/v1/heists/", player.start_body),
        player.http.get(site.url + "/play/", timeout=30),
        player.http.get(site.url + "/", timeout=30),
    ]
    for answer in answers:
        assert answer.status_code == 503, (answer.request.url, answer.status_code, answer.text)
        assert "Traceback" not in answer.text
        assert int(answer.headers["Retry-After"]) >= 1
        if answer.headers["Content-Type"].startswith("application/json"):
            assert answer.json()["error"]["code"] == "service_unavailable"

    pg.start()
    # The site recovers by itself: no process is restarted.
    deadline = time.monotonic() + 60
    while requests.get(site.url + "/healthz", timeout=30).status_code != 200:
        assert time.monotonic() < deadline, "the site did not recover"
        time.sleep(0.5)
    recovered = time.monotonic() - down_at
    assert player.play(first) == "finished"
    second = player.start()["id"]
    assert player.play(second) == "finished"
    _check_no_heist_lost(pg, [player])
    for heist, night in sealed_before:
        assert (heist, night) in player.sealed
    print(f"\nchaos_postgres_down_to_healthy_seconds: {recovered:.1f}")


def test_redis_stopped_heists_still_finish(servers):
    _pg, redis, site = servers
    player = chaos.Player(site.url)
    player.age_check()
    first = player.start()["id"]
    player.step(first)

    redis.stop()
    health = requests.get(site.url + "/healthz", timeout=60)
    assert health.status_code == 503, health.text
    assert "broker" in health.json()["down"], health.text
    started = time.monotonic()
    assert player.play(first) == "finished"
    second = player.start()["id"]
    assert player.play(second) == "finished"
    took = time.monotonic() - started
    assert all(code < 500 for code in player.answers), player.answers
    redis.start()
    print(f"\nchaos_redis_down_heists_finished: 2 in {took:.0f} s")
