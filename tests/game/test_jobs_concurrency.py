"""A job pays once whatever races (PostgreSQL, real commits): heists of one player finishing at
the same moment, each in its own request, complete jobs that need all of them; the last to
commit must see the others (so the job is paid, not missed) and only one may pay it."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import connection

from game.models import Heist
from game.owners import Owner
from game.services import heists as services
from game.services.jobs import jobs_heist_finished
from game.tasks import plan_rival_night
from shop import selectors as shop_selectors
from shop.economy import get_economy
from shop.models import Transaction
from tests.support.heists import make_player, seal, start
from tests.support.jobs import pool_of, use_pool

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="heists finishing at once, each in its own transaction"),
    pytest.mark.jobs,
]

AT_ONCE = 6


def _finish_together(heist_ids: list[str], owner: Owner) -> list[str]:
    barrier = threading.Barrier(len(heist_ids))
    outcomes: list[str] = []

    def finish(heist_id):
        try:
            barrier.wait(timeout=30)
            services.plan_seal(heist_id=heist_id, owner=owner, night=6, crew=[], boost=False)
            outcomes.append("sealed")
        except Exception as exc:
            outcomes.append(getattr(exc, "code", repr(exc)))
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(h,)) for h in heist_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return outcomes


def test_heists_finishing_at_once_pay_a_job_that_needs_them_all_exactly_once(monkeypatch, settings):
    settings.HEIST_ACTIVE_MAX = AT_ONCE
    every = {"kind": "finish", "goal": AT_ONCE}
    use_pool(
        monkeypatch,
        pool_of(
            daily=[
                {**every, "slug": "all-day", "tier": "easy", "text": "All of them"},
                {"slug": "far-win", "kind": "win", "goal": 10**6, "tier": "easy", "text": "F"},
                {"slug": "far-loot", "kind": "loot", "goal": 10**6, "tier": "easy", "text": "F"},
            ],
            weekly=[{**every, "slug": "all-week", "tier": "weekly", "text": "All week"}],
            starter={**every, "slug": "all-first", "tier": "starter", "text": "All first"},
        ),
    )
    user, client = make_player()
    heist_ids = []
    for _ in range(AT_ONCE):
        heist_id = start(client)["id"]
        for night in range(1, 6):
            assert seal(client, heist_id, {"night": night, "crew": []}).status_code == 200
        plan_rival_night(heist_id, 6)  # each thread goes straight for its heist's lock
        heist_ids.append(heist_id)

    outcomes = _finish_together(heist_ids, Owner(user_id=user.pk))
    assert outcomes == ["sealed"] * AT_ONCE

    paid = Transaction.objects.filter(reason="job")
    assert sorted(paid.values_list("memo", flat=True)) == [
        "Job done: All first",
        "Job done: All of them",
        "Job done: All week",
    ]
    # All three paid by one heist, the one that committed last (it saw the others).
    references = set(paid.values_list("reference", flat=True))
    assert len(references) == 1 and references <= {f"heist:{h}" for h in heist_ids}
    awards = sum(Heist.objects.filter(pk__in=heist_ids).values_list("signs_awarded", flat=True))
    pay = get_economy().jobs
    assert shop_selectors.wallet_balance(user=user) == (
        awards + pay["easy"] + pay["weekly"] + pay["starter"]
    )

    # The finish hook run again for every heist, several at once (a repeated task): nothing.
    again: list = []

    def repeat(heist_id):
        try:
            again.extend(jobs_heist_finished(heist=Heist.objects.get(pk=heist_id)))
        finally:
            connection.close()

    threads = [threading.Thread(target=repeat, args=(h,)) for h in heist_ids * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert again == []
    assert Transaction.objects.filter(reason="job").count() == 3
    call_command("check_signs_ledger")
