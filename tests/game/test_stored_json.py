"""Stored JSON comes back with its keys in one order on every database (game/fields.py)."""

import datetime as dt

import pytest
from django.db import connection

from game.fields import in_stored_order
from game.models import FeaturedSlot

# Written in an order no database keeps by accident: neither sorted, nor by length.
WRITTEN = {
    "memory-archive": 1,
    "crown-vault": {"player": 2, "rival": 2, "b": [{"zz": 1, "a": 2}]},
    "signal-tower": 3,
    "é": 4,
    "z": 5,
}


def test_keys_go_shortest_first_then_bytewise_at_every_depth():
    ordered = in_stored_order(WRITTEN)
    assert list(ordered) == ["z", "é", "crown-vault", "signal-tower", "memory-archive"]
    assert list(ordered["crown-vault"]) == ["b", "rival", "player"]
    assert list(ordered["crown-vault"]["b"][0]) == ["a", "zz"]
    assert ordered == WRITTEN


@pytest.mark.django_db
def test_a_stored_object_reads_back_in_that_order():
    start = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    slot = FeaturedSlot.objects.create(
        slug="order",
        name="Order",
        starts_at=start,
        ends_at=start + dt.timedelta(days=1),
        position=0,
        ruleset="2026.12",
        encounter_slug="overtime",
        encounter=WRITTEN,
        rival="furnace",
        difficulty="rookie",
        deck=[],
        server_seed="0" * 64,
        seed_commitment="0" * 64,
    )
    slot.refresh_from_db()
    assert list(slot.encounter) == ["z", "é", "crown-vault", "signal-tower", "memory-archive"]
    assert list(slot.encounter["crown-vault"]) == ["b", "rival", "player"]


@pytest.mark.postgres(reason="it reads jsonb's own key order")
@pytest.mark.django_db
def test_the_order_is_the_one_postgresql_keeps():
    """jsonb's own order, read as text (no Python decoding of ours in between)."""
    import json

    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::jsonb::text", [json.dumps(WRITTEN)])
        (text,) = cursor.fetchone()
    as_postgres_keeps = json.loads(text)
    assert list(as_postgres_keeps) == list(in_stored_order(WRITTEN))
    assert list(as_postgres_keeps["crown-vault"]) == list(in_stored_order(WRITTEN)["crown-vault"])


@pytest.mark.postgres(reason="it reads jsonb's own key order")
@pytest.mark.django_db
def test_postgresql_reads_back_in_that_order_without_reordering(monkeypatch):
    """On PostgreSQL the field takes jsonb's order as it comes (no second sort in Python), and
    that is the same order."""
    import game.fields

    monkeypatch.setattr(game.fields, "in_stored_order", lambda value: pytest.fail("reordered"))
    start = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    slot = FeaturedSlot.objects.create(
        slug="order-pg",
        name="Order",
        starts_at=start,
        ends_at=start + dt.timedelta(days=1),
        position=0,
        ruleset="2026.12",
        encounter_slug="overtime",
        encounter=WRITTEN,
        rival="furnace",
        difficulty="rookie",
        deck=[],
        server_seed="0" * 64,
        seed_commitment="0" * 64,
    )
    slot.refresh_from_db()
    assert list(slot.encounter) == ["z", "é", "crown-vault", "signal-tower", "memory-archive"]
    assert list(slot.encounter["crown-vault"]) == ["b", "rival", "player"]
    assert list(slot.encounter["crown-vault"]["b"][0]) == ["a", "zz"]
