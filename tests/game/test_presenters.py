"""The presenters render each answer through its one declaration (game/presenters/render.py):
exactly what DRF's own rendering of the same declaration gives, key order included, so the
schema drf-spectacular reads from the declarations is the shape served."""

from __future__ import annotations

import json

import pytest
from rest_framework import serializers

from game.models import Heist
from game.presenters import catalogue as present_catalogue
from game.presenters import heists as present_heists
from game.presenters import replay as present_replay
from game.presenters.render import present
from game.selectors import catalogue as catalogue_selectors
from game.selectors.heists import heist_snapshot
from tests.support.heists import play_out, post

pytestmark = pytest.mark.django_db


def _same(cls, data, *, many=False):
    fast = present(cls, data, many=many)
    drf = cls(data, many=many).data
    assert json.dumps(fast) == json.dumps(drf)
    return fast


def test_heist_answers_render_as_drf_renders_their_declarations(guest):
    encounters = (("", "furnace"), ("overtime", "the-reader"), ("tower-blackout", "quiet-hands"))
    for encounter, rival in encounters:
        body = {"rival": rival, "difficulty": "hustler", "encounter": encounter}
        view = post(guest, "/api/v1/heists/", body).json()
        heist = Heist.objects.get(pk=view["id"])
        # At the start, then after the last night (history, result, finished phase).
        _same(present_heists.HeistViewSerializer, present_heists._view_data(heist_snapshot(heist)))
        play_out(guest, guest.get(f"/api/v1/heists/{view['id']}/").json(), seed=5)
        heist.refresh_from_db()
        snapshot = heist_snapshot(heist)
        data = present_heists._view_data(snapshot)
        _same(present_heists.HeistViewSerializer, data)
        night = present_heists._night_data(snapshot.nights[-1])
        _same(present_heists.SealOutputSerializer, {"result": night, "heist": data})
        _same(
            present_replay.ReplaySerializer,
            present_replay.replay_record(snapshot.heist, snapshot.nights),
        )


def test_catalogue_answers_render_as_drf_renders_their_declarations():
    _same(
        present_catalogue.EncounterSerializer,
        [present_catalogue.encounter_data(e) for e in catalogue_selectors.encounters()],
        many=True,
    )
    _same(present_catalogue.DeckSerializer, catalogue_selectors.ready_decks(), many=True)


class _Shape(serializers.Serializer):
    kept = serializers.IntegerField()
    renamed = serializers.CharField(source="inner.name")
    maybe = serializers.IntegerField(required=False)


def test_only_declared_fields_are_sent_and_a_missing_one_is_an_error():
    assert present(_Shape, {"kept": 1, "inner": {"name": "x"}, "secret": "s"}) == {
        "kept": 1,
        "renamed": "x",
    }
    with pytest.raises(KeyError):
        present(_Shape, {"inner": {"name": "x"}})


def test_optional_and_null_fields_render_as_drf_renders_them():
    _same(_Shape, {"kept": 1, "inner": {"name": "x"}})
    _same(_Shape, {"kept": 1, "inner": {"name": "x"}, "maybe": None})
    _same(_Shape, {"kept": "2", "inner": {"name": 3}, "maybe": 4})
    _same(_Shape, [{"kept": 1, "inner": {"name": "x"}}], many=True)
