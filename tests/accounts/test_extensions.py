"""accounts.extensions: the seam where the apps above accounts add their parts, so accounts
imports neither game nor shop (the import contract in `make lint` holds it to that)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts import extensions

pytestmark = pytest.mark.django_db


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(extensions, "_export_sections", dict(extensions._export_sections))


def test_game_fills_the_profile_and_the_export_before_the_wallet():
    user = get_user_model().objects.create_user(username="x@example.com", password="pw-12345678")
    # Jobs first on the profile: what there is to do today.
    assert [s["key"] for s in extensions.profile_sections(user)] == [
        "jobs",
        "rating",
        "heists",
        "wallet",
    ]
    assert list(extensions.export_sections(user)) == [
        "heists",
        "decks",
        "rating",
        "jobs",
        "collection",
        "wallet",
    ]


def test_export_sections_come_in_order_then_by_key_and_a_key_is_replaced(clean_registry):
    user = get_user_model().objects.create_user(username="y@example.com", password="pw-12345678")
    extensions.register_export_section("zz-first", data=lambda u: 1, order=0)
    extensions.register_export_section("zz-first", data=lambda u: 2, order=0)
    sections = extensions.export_sections(user)
    assert next(iter(sections)) == "zz-first" and sections["zz-first"] == 2
