"""/metrics: refused to anyone without the token or an allowed address, and the game's own
figures moving as heists are played and Signs are earned and spent (one process here; the
stack test, tests/site/test_observability_stack.py, adds up several)."""

from __future__ import annotations

import ipaddress

import pytest
from django.core.cache import cache
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from game.models import Heist
from game.services.debriefs import debrief_compute
from game.tasks import debrief_heist, plan_rival_night
from shop import services as shop_services
from tests.support.heists import make_player, play_out, start
from tests.support.shop import buy
from veyltak_site.celery import app as celery_app

TOKEN = "metrics-token-for-the-tests-0123456789"


def scrape(client: Client | None = None, token: str = TOKEN):
    client = client or Client()
    return client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")


def samples(response) -> dict[tuple[str, frozenset], float]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


def value(figures: dict, name: str, **labels: str) -> float:
    return figures.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_IPS = []
    return settings


@pytest.mark.django_db(transaction=True)
def test_a_heist_played_through_the_api_moves_the_games_figures(metrics_on):
    _user, client = make_player("metrics-player@example.com")
    before = samples(scrape())
    view = play_out(client, start(client, rival="furnace", difficulty="hustler"), seed=3)
    after = samples(scrape())

    heist = Heist.objects.get(pk=view["id"])
    assert heist.status == "finished" and heist.signs_reason == "earned"

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("veyltak_heists_started_total", difficulty="hustler", mode="standard") == 1
    assert moved("veyltak_heists_finished_total", difficulty="hustler", outcome=heist.outcome) == 1
    assert moved("veyltak_seal_duration_seconds_count") == 6
    assert moved("veyltak_seal_duration_seconds_sum") > 0
    assert moved("veyltak_rival_decision_seconds_count", difficulty="hustler") == 6
    assert moved("veyltak_rival_decision_seconds_count", difficulty="kingpin") == 0
    # No worker here: the heist view sealed every night itself (RIVAL_FALLBACK_SECONDS=0).
    assert moved("veyltak_rival_plans_sealed_total", by="web") == 6
    assert moved("veyltak_signs_awarded_total", reason="heist") == heist.signs_awarded > 0
    # The usual ones: this route, its status, the database.
    seal_route = "/api/v1/heists/<uuid:heist_id>/seal/"
    assert moved("veyltak_http_requests_total", method="POST", route=seal_route, status="200") == 6
    assert moved("veyltak_http_request_duration_seconds_count", method="POST", route=seal_route)
    assert moved("veyltak_db_query_duration_seconds_count", alias="default") > 6
    if metrics_on.SESSION_ENGINE == "veyltak_site.sessions":  # with Redis: sessions are cached
        assert moved("veyltak_cache_gets_total", result="hit") + moved(
            "veyltak_cache_gets_total", result="miss"
        )
    # The finished heist's debrief (the task's body, run here): counted once, a rerun stores
    # nothing and counts nothing.
    assert debrief_compute(heist_id=heist.pk) is True
    assert debrief_compute(heist_id=heist.pk) is False
    assert value(samples(scrape()), "veyltak_debriefs_computed_total", by="task") == (
        value(before, "veyltak_debriefs_computed_total", by="task") + 1
    )
    # Without Redis nothing in a heist reads the file cache (the tests' rate limits are off):
    # a read of it is counted all the same.
    cache.get("metrics-probe-never-set")
    assert value(samples(scrape()), "veyltak_cache_gets_total", result="miss") > value(
        after, "veyltak_cache_gets_total", result="miss"
    )


@pytest.mark.django_db(transaction=True)
def test_a_purchase_and_a_welcome_grant_are_counted(metrics_on):
    shop_services.shop_catalogue_load()  # a transactional test starts with empty tables
    user, client = make_player("metrics-buyer@example.com")
    before = samples(scrape())
    shop_services.signs_welcome(user=user)
    assert buy(client, "back-midnight", 80).status_code == 201
    assert buy(client, "back-midnight", 80).status_code == 409  # owned: refused, not counted
    after = samples(scrape())
    for name, labels, expected in (
        ("veyltak_purchases_total", {"kind": "card_back"}, 1),
        ("veyltak_signs_awarded_total", {"reason": "welcome"}, 100),
        ("veyltak_signs_awarded_total", {"reason": "purchase"}, 0),
    ):
        assert value(after, name, **labels) - value(before, name, **labels) == expected, name


@pytest.mark.django_db(transaction=True)
def test_the_broker_queue_depth_is_read_at_scrape_time(metrics_on, settings):
    queue, debriefs = celery_app.conf.task_default_queue, settings.DEBRIEF_QUEUE
    nobody = "00000000-0000-0000-0000-000000000000"
    celery_app.control.purge()
    try:
        first = samples(scrape())
        for name in (queue, debriefs):  # each queue reported, empty
            assert first[("veyltak_broker_queue_messages", frozenset({("queue", name)}))] == 0
        for night in (1, 2, 3):  # no worker consumes them here
            plan_rival_night.apply_async(args=(nobody, night))
        debrief_heist.apply_async(args=(nobody,))  # routed to the debrief queue
        after = samples(scrape())
        assert value(after, "veyltak_broker_queue_messages", queue=queue) == 3
        assert value(after, "veyltak_broker_queue_messages", queue=debriefs) == 1
    finally:
        celery_app.control.purge()


@pytest.mark.django_db
def test_refused_without_the_token_with_a_wrong_one_or_another_scheme(metrics_on):
    client = Client()
    assert client.get("/metrics").status_code == 404
    assert scrape(token="metrics-token-for-the-tests-012345678X").status_code == 404
    assert scrape(token="").status_code == 404
    basic = client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}")
    assert basic.status_code == 404
    assert client.post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404
    refused = client.get("/metrics")
    # The site's own 404 page: nothing says a metrics route exists.
    assert b"veyltak_" not in refused.content and "text/html" in refused["Content-Type"]
    assert scrape().status_code == 200


@pytest.mark.django_db
def test_off_when_neither_a_token_nor_addresses_are_set(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []
    assert scrape().status_code == 404
    assert scrape(token="").status_code == 404
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 404


@pytest.mark.django_db
def test_allowed_addresses_only_straight_from_them(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = [
        ipaddress.ip_network("10.1.0.0/16"),
        ipaddress.ip_network("fd00::/8"),
    ]

    def get(address: str, **headers):
        return Client(REMOTE_ADDR=address).get("/metrics", **headers)

    assert get("10.1.2.3").status_code == 200
    assert get("fd00::7").status_code == 200
    assert get("::ffff:10.1.2.3").status_code == 200
    assert get("10.2.0.1").status_code == 404
    assert get("127.0.0.1").status_code == 404
    # Through a proxy in that network: every visitor would pass as the proxy.
    assert get("10.1.2.3", HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 404
    assert get("10.1.2.3", HTTP_FORWARDED="for=203.0.113.9").status_code == 404
    # A wrong token is refused even from an allowed address.
    assert get("10.1.2.3", HTTP_AUTHORIZATION="Bearer not-it").status_code == 404


@pytest.mark.django_db
def test_every_answer_carries_a_request_id_kept_when_sane():
    client = Client()
    made = client.get("/healthz")["X-Request-ID"]
    assert len(made) == 32 and int(made, 16) >= 0
    assert client.get("/healthz")["X-Request-ID"] != made
    kept = "Root=1-67891233-abcdef012345678912345678"
    assert client.get("/healthz", HTTP_X_REQUEST_ID=kept)["X-Request-ID"] == kept
    for insane in ("two words", "x" * 129, 'quote"d', "-leading-dash", "line\nbreak"):
        answer = client.get("/healthz", HTTP_X_REQUEST_ID=insane)["X-Request-ID"]
        assert answer != insane and len(answer) == 32
    assert client.get("/api/v1/nowhere/", HTTP_X_REQUEST_ID="abc123")["X-Request-ID"] == "abc123"


def test_a_scrape_skips_a_process_file_not_yet_sized(tmp_path):
    """A process creates its file, then sizes it; a scrape in between must not fail (it
    answered 500) and still adds up every other process's figures."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.mmap_dict import MmapedDict, mmap_key

    from veyltak_site.metrics_view import ProcessFilesCollector

    written = MmapedDict(str(tmp_path / "counter_101.db"))
    key = mmap_key("veyltak_seen", "veyltak_seen_total", [], [], "seen")
    written.write_value(key, 3.0, 0)
    written.close()
    (tmp_path / "counter_102.db").touch()  # created, not yet sized
    registry = CollectorRegistry(auto_describe=False)
    ProcessFilesCollector(registry, path=str(tmp_path))
    text = generate_latest(registry).decode()
    assert "veyltak_seen_total 3.0" in text
