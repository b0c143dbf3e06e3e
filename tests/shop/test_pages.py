"""The wallet on the profile page (through accounts.extensions): the balance and the latest
entries, newest first, the player's own only."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from shop import services
from tests.support.ledger import award, new_user

pytestmark = pytest.mark.django_db


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_profile_shows_the_balance_and_the_wallet_history(user):
    other = new_user()
    services.signs_welcome(user=user)
    services.signs_welcome(user=other)
    award(user.pk, outcome="win", difficulty="kingpin")
    services.signs_grant(user=user, amount=7, reason_text="Found a typo")
    services.signs_debit(user=user, amount=150, key="purchase:p")
    services.signs_grant(user=other, amount=999, reason_text="Someone else's")
    client = Client()
    client.force_login(user)
    page = text(client.get("/accounts/profile/").content.decode())
    assert "You hold 17 Signs." in page
    rows = re.findall(r"(Purchase|Grant: Found a typo|Heist finished: Won at Kingpin|Welcome: "
                      r"Welcome to VEYLTAK) ([+-]\d+) (\d+)", page)  # fmt: skip
    assert rows == [
        ("Purchase", "-150", "17"),
        ("Grant: Found a typo", "+7", "167"),
        ("Heist finished: Won at Kingpin", "+60", "160"),
        ("Welcome: Welcome to VEYLTAK", "+100", "100"),
    ]
    assert "Someone else" not in page and "999" not in page


def test_a_long_history_lists_the_latest_and_points_to_the_export(user):
    for i in range(25):
        services.signs_grant(user=user, amount=1, reason_text=f"gift {i}")
    client = Client()
    client.force_login(user)
    page = text(client.get("/accounts/profile/").content.decode())
    assert "You hold 25 Signs." in page
    assert "gift 24" in page and "gift 5 " in page and "gift 4 " not in page
    assert "Only the latest 20 are listed here; your data download holds them all." in page
    assert len(client.get("/accounts/export/").json()["wallet"]["entries"]) == 25


def test_a_player_without_signs_is_told_how_to_earn_them(user):
    client = Client()
    client.force_login(user)
    page = text(client.get("/accounts/profile/").content.decode())
    assert "You hold 0 Signs." in page and "Finish a heist while signed in to earn Signs." in page
