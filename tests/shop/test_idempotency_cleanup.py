"""Stored purchase answers live IDEMPOTENCY_KEY_HOURS (at least a day) and are then removed by
the beat task; the purchases stay. Once a key's answer is gone, the key is new again: a replay
of an old purchase finds it owned (409 already_owned), never buys twice."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.utils import timezone

from shop import services
from shop.models import IdempotencyRecord, Purchase
from shop.tasks import clear_idempotency_records
from tests.support.ledger import balance, new_user
from tests.support.shop import buy, signed_in


def _records(user, *ages_hours: float) -> None:
    now = timezone.now()
    for n, hours in enumerate(ages_hours):
        IdempotencyRecord.objects.create(
            user=user,
            key=f"k{n}",
            request_hash="0" * 64,
            status_code=201,
            body="{}",
            created_at=now - dt.timedelta(hours=hours),
        )


@pytest.mark.django_db
def test_answers_older_than_a_day_go_and_the_rest_stay():
    user = new_user()
    _records(user, 0, 23.9, 24.1, 100)
    assert services.idempotency_records_clear() == 2
    assert sorted(IdempotencyRecord.objects.values_list("key", flat=True)) == ["k0", "k1"]
    assert services.idempotency_records_clear() == 0


@pytest.mark.django_db
def test_after_its_answer_went_a_key_buys_nothing_twice():
    services.shop_catalogue_load()
    user = new_user()
    services.signs_grant(user=user, amount=100, reason_text="test")
    client = signed_in(user)
    assert buy(client, "back-brass", 80, key="old-key").status_code == 201
    IdempotencyRecord.objects.update(created_at=timezone.now() - dt.timedelta(days=2))
    assert services.idempotency_records_clear() == 1
    again = buy(client, "back-brass", 80, key="old-key")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_owned"
    assert balance(user) == 20 and Purchase.objects.filter(user=user).count() == 1


@pytest.fixture
def live_worker(transactional_db, tmp_path):
    from tests.support.worker import live_worker_process

    yield from live_worker_process(tmp_path, pool="threads", concurrency=1, conn_max_age=0)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_cleanup(live_worker):
    user = new_user()
    _records(user, 1, 25, 48)
    clear_idempotency_records.delay()
    deadline = time.monotonic() + 30
    while not live_worker.task_returns("shop.clear_idempotency_records"):
        assert time.monotonic() < deadline, live_worker.log()
        time.sleep(0.05)
    assert live_worker.task_returns("shop.clear_idempotency_records") == ["2"]
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["k0"]
