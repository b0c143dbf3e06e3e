"""The heist read of every seal, view and rival turn (game.selectors.heists, plain SQL built
from the models by veyltak_site.rows): the same heist and nights the ORM reads, the same owners
and the same 404 for everyone else, and a lock on the heist row alone."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
from django.db import OperationalError, connection, transaction
from django.db.transaction import TransactionManagementError

from game.models import Heist, HeistNight
from game.owners import Owner
from game.selectors.heists import heist_load, heist_load_any
from tests.support.heists import (
    age_checked_client,
    make_player,
    play_out,
    post,
    seal,
    start,
)
from tests.support.threads import run_threads
from veyltak_site.exceptions import ApplicationError

pytestmark = pytest.mark.django_db


def _fields(obj) -> list[tuple[str, str, str]]:
    """Every column's value of a model instance, with its type, JSON as written (its key
    order included)."""
    out = []
    for field in type(obj)._meta.concrete_fields:
        value = getattr(obj, field.attname)
        text = json.dumps(value) if isinstance(value, dict | list) else repr(value)
        out.append((field.attname, type(value).__name__, text))
    return out


def _assert_same_as_the_orm(snapshot) -> None:
    heist = Heist.objects.get(pk=snapshot.heist.pk)
    nights = list(HeistNight.objects.filter(heist=heist).order_by("night"))
    assert _fields(snapshot.heist) == _fields(heist)
    assert [_fields(n) for n in snapshot.nights] == [_fields(n) for n in nights]
    assert all(n.heist is snapshot.heist for n in snapshot.nights)
    for obj in (snapshot.heist, *snapshot.nights):
        assert obj._state.adding is False and obj._state.db == "default"


def _heists(client) -> list[str]:
    """Heists in every shape the read meets: night 1 before and after the rival sealed, in the
    middle, finished, with an encounter, and a practice retry (its own start position)."""
    fresh = start(client)["id"]
    middle = start(client, encounter="hot-start")
    client.get(f"/api/v1/heists/{middle['id']}/")  # the view seals the rival (fallback 0)
    for night in (1, 2, 3):
        assert seal(client, middle["id"], {"night": night, "crew": []}).status_code == 200
    client.get(f"/api/v1/heists/{middle['id']}/")
    done = play_out(client, start(client))
    retry = post(client, f"/api/v1/heists/{done['id']}/retry/", {"night": 3})
    assert retry.status_code == 201, retry.content
    return [fresh, middle["id"], done["id"], retry.json()["id"]]


def test_the_plain_read_is_the_orms_heist_and_nights(settings):
    settings.HEIST_ACTIVE_MAX = 10
    client = age_checked_client()
    owner = Owner(user_id=None, guest_id=_guest_of(client))
    ids = _heists(client)
    assert Heist.objects.filter(pk=ids[3], start__isnull=False).exists()
    for heist_id in ids:
        _assert_same_as_the_orm(heist_load(heist_id=heist_id, owner=owner))
        _assert_same_as_the_orm(heist_load_any(heist_id=heist_id))
        assert heist_load(heist_id=uuid.UUID(heist_id), owner=owner).heist.pk == uuid.UUID(heist_id)


def _guest_of(client) -> str:
    from accounts.guest import _SESSION_KEY

    return client.session[_SESSION_KEY]


def test_only_the_owner_reads_it_anyone_else_gets_the_same_404():
    user, player = make_player()
    other_user, _ = make_player("other@example.com")
    guest = age_checked_client()
    guest_id = _guest_of(guest)
    theirs = start(player)["id"]
    unclaimed = start(guest)["id"]
    assert heist_load(heist_id=theirs, owner=Owner(user_id=user.pk)).heist.pk
    assert heist_load(heist_id=unclaimed, owner=Owner(user_id=None, guest_id=guest_id)).heist.pk
    # A signed-in player also sees the unclaimed heists of the browser they signed in from.
    both = Owner(user_id=user.pk, guest_id=guest_id)
    assert heist_load(heist_id=theirs, owner=both).heist.pk
    assert heist_load(heist_id=unclaimed, owner=both).heist.pk
    # A guest heist once claimed by an account is the account's alone.
    Heist.objects.filter(pk=unclaimed).update(user=other_user)
    refused = [
        (unclaimed, Owner(user_id=None, guest_id=guest_id)),
        (unclaimed, Owner(user_id=user.pk, guest_id=guest_id)),
        (theirs, Owner(user_id=other_user.pk)),
        (theirs, Owner(user_id=None, guest_id=guest_id)),
        (theirs, Owner(user_id=None)),
        (str(uuid.uuid4()), Owner(user_id=user.pk)),
        ("not-a-heist", Owner(user_id=user.pk)),
    ]
    for heist_id, owner in refused:
        with pytest.raises(ApplicationError) as caught:
            heist_load(heist_id=heist_id, owner=owner)
        assert caught.value.code == "not_found" and caught.value.status_code == 404
    assert heist_load_any(heist_id=str(uuid.uuid4())) is None
    assert heist_load_any(heist_id="not-a-heist") is None


@pytest.mark.django_db(transaction=True)
def test_a_locked_read_needs_a_transaction():
    user, player = make_player()
    heist_id = start(player)["id"]
    with pytest.raises(TransactionManagementError):
        heist_load(heist_id=heist_id, owner=Owner(user_id=user.pk), lock=True)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_locked_read_locks_the_heist_row_and_not_its_nights():
    user, player = make_player()
    heist_id = start(player)["id"]
    held, done = threading.Event(), threading.Event()

    def hold():
        with transaction.atomic():
            heist_load(heist_id=heist_id, owner=Owner(user_id=user.pk), lock=True)
            held.set()
            done.wait(timeout=10)

    def probe():
        assert held.wait(timeout=10)
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT 1 FROM game_heistnight WHERE heist_id = %s FOR UPDATE NOWAIT",
                    [heist_id],
                )
                nights_free = cursor.fetchall() != []
            try:
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT 1 FROM game_heist WHERE id = %s FOR UPDATE NOWAIT", [heist_id]
                    )
                heist_free = True
            except OperationalError:
                heist_free = False
            return nights_free, heist_free
        finally:
            done.set()

    _, (nights_free, heist_free) = run_threads(hold, probe)
    assert nights_free and not heist_free
