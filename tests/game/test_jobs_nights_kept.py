"""Every finish counts the player's heists of the week again for their jobs: each process reads a
finished heist's nights from the database once and keeps them (issue 29: the CPU of a seal that
finishes a heist no longer grows with the heists played that week)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from game.kept import Kept
from game.models import Heist, HeistNight
from game.selectors import jobs as job_selectors
from tests.support.heists import make_player
from tests.support.jobs import play

pytestmark = pytest.mark.django_db


def night_reads(queries) -> int:
    return sum(HeistNight._meta.db_table in q["sql"] for q in queries)


def test_a_finish_reads_back_only_nights_it_has_not_read(monkeypatch):
    monkeypatch.setattr(job_selectors, "_nights_kept", Kept(2048))
    user, client = make_player()
    for _ in range(3):
        play(client, "idle")
    # Each finish counted the week's heists, itself included: all three are held now.
    with CaptureQueriesContext(connection) as queries:
        kept = job_selectors.counting_heists(user_id=user.pk)
    assert len(kept) == 3
    assert night_reads(queries) == 0 and len(queries) == 1  # the heists' rows only

    # What is held is what the database holds.
    job_selectors._nights_kept.clear()
    with CaptureQueriesContext(connection) as queries:
        read = job_selectors.counting_heists(user_id=user.pk)
    assert night_reads(queries) == 1
    assert read == kept and all(len(h.nights) == 6 for h in read)


def test_the_nights_kept_are_those_of_the_heists_finish(monkeypatch):
    """Keyed by the heist and the moment it finished: nights read in a finish that was rolled
    back are not served for the heist's real finish, which has a moment of its own."""
    monkeypatch.setattr(job_selectors, "_nights_kept", Kept(2048))
    user, client = make_player()
    heist = Heist.objects.get(pk=play(client, "idle")["id"])
    before = job_selectors.counting_heists(user_id=user.pk)[0].nights
    first, last = HeistNight.objects.filter(heist=heist).order_by("night")[::5]
    HeistNight.objects.filter(pk=first.pk).update(result=last.result)
    assert job_selectors.counting_heists(user_id=user.pk)[0].nights == before
    later = heist.finished_at + dt.timedelta(microseconds=1)
    Heist.objects.filter(pk=heist.pk).update(finished_at=later)
    after = job_selectors.counting_heists(user_id=user.pk)[0].nights
    assert after[0] == after[5] and after != before


def test_the_nights_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(job_selectors, "_nights_kept", Kept(2))
    _, client = make_player()
    for _ in range(3):
        play(client, "idle")
    assert len(job_selectors._nights_kept) == 2
