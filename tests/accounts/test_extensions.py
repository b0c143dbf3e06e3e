"""accounts.extensions: the seam where the apps above accounts add their parts, so accounts
imports neither game nor shop (the import contract in `make lint` holds it to that)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework import serializers

from accounts import extensions

pytestmark = pytest.mark.django_db


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(extensions, "_profile", dict(extensions._profile))
    monkeypatch.setattr(extensions, "_export", dict(extensions._export))
    monkeypatch.setattr(extensions, "_me", dict(extensions._me))


def test_game_fills_the_profile_and_the_export():
    user = get_user_model().objects.create_user(username="x@example.com", password="pw-12345678")
    assert [s["key"] for s in extensions.profile_sections(user)] == ["heists"]
    assert list(extensions.export_sections(user)) == ["heists", "decks"]


def test_sections_come_in_the_order_registered_and_a_key_is_replaced(clean_registry):
    user = get_user_model().objects.create_user(username="y@example.com", password="pw-12345678")
    extensions.register_export_section("wallet", lambda u: {"balance": 1})
    extensions.register_export_section("wallet", lambda u: {"balance": 2})
    assert list(extensions.export_sections(user))[-1] == "wallet"
    assert extensions.export_sections(user)["wallet"] == {"balance": 2}
    extensions.register_me_field(
        "title", value=lambda request: "Safecracker", declare=serializers.CharField
    )
    assert extensions.me_fields(request=None) == {"title": "Safecracker"}
    assert isinstance(extensions.me_declared()["title"], serializers.CharField)
