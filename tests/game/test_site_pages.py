"""The pages of issue 24 without a browser: the worked night is the engine's (a ruleset with
other numbers tells the same night in its numbers), the header shows a signed-in player's
Signs and the welcome once, and no page leaks a template comment."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client

from game import catalogue
from game.engine import get_ruleset, load_ruleset
from game.presenters import lesson
from tests.support.heists import make_player

pytestmark = pytest.mark.django_db

CHANGED = Path(__file__).parent / "fixtures" / "ruleset-changed.json"


def test_the_worked_night_is_played_by_the_engine():
    night = lesson.worked_night(get_ruleset())
    by_vault = {v["slug"]: v for v in night["vaults"]}
    crown = by_vault["crown-vault"]
    # Ghost Locksmith stayed quiet (+2) against a Boosted Mirror Courier: the power is summed
    # from the ruleset's numbers, the winner and the score follow.
    ghost = next(c for c in crown["you"] if c["slug"] == "ghost-locksmith")
    base = get_ruleset().crew["ghost-locksmith"].power
    assert ghost["sum"].startswith(f"{base} + ") and ghost["total"] == crown["you_power"]
    for v in night["vaults"]:
        expected = (
            "you" if v["you_power"] > v["rival_power"] else
            "rival" if v["rival_power"] > v["you_power"] else None
        )  # fmt: skip
        assert v["winner"] == expected
    assert night["score"] == {
        "you": sum(v["loot"] for v in night["vaults"] if v["winner"] == "you"),
        "rival": sum(v["loot"] for v in night["vaults"] if v["winner"] == "rival"),
    }
    assert night["spent"] <= night["energy"]
    assert [s["title"] for s in night["steps"]] == ["Plan", "Seal", "Reveal", "Heat"]


def test_another_ruleset_tells_the_same_night_in_its_numbers(monkeypatch):
    before = Client().get("/how-to-play/").content.decode()
    changed = load_ruleset(json.loads(CHANGED.read_text("utf-8")))
    monkeypatch.setattr(catalogue, "active_ruleset", lambda: changed)
    after = Client().get("/how-to-play/").content.decode()
    assert after != before
    assert lesson.worked_night(changed) != lesson.worked_night(get_ruleset())


def test_the_header_shows_the_signs_of_a_signed_in_player_only():
    from shop.services import signs_grant

    guest = Client().get("/").content.decode()
    assert 'id="header-signs"' not in guest
    user, client = make_player()
    signs_grant(user=user, amount=42, reason_text="test")
    page = client.get("/rules/").content.decode()
    from shop.selectors import wallet_balance

    balance = wallet_balance(user=user)
    assert re.search(rf'id="header-signs" href="/shop/" data-balance="{balance}"', page)
    assert f'<span class="signs-value">{balance}</span>' in page


@pytest.mark.parametrize(
    "path", ["/", "/how-to-play/", "/rules/", "/deck/", "/shop/", "/featured/", "/accounts/login/"]
)
def test_no_page_shows_a_template_comment(path):
    html = Client().get(path).content.decode()
    assert "{#" not in html and "{%" not in html
