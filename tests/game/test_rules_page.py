"""The rules page, /rules/, is generated from the active ruleset: every crew with the ruleset's
cost and power, the night step by step, Boost and Heat, the Heat->Energy table, the rulings,
hidden information and provable fairness; another ruleset makes another page."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.test import Client

from game import catalogue
from game.engine import get_ruleset, load_ruleset, text

pytestmark = pytest.mark.django_db

CHANGED = Path(__file__).parent / "fixtures" / "ruleset-changed.json"


def _page() -> str:
    response = Client().get("/rules/")
    assert response.status_code == 200
    return unescape(response.content.decode())


def _crew_rows(html: str) -> dict[str, tuple[str, int, int]]:
    rows = re.findall(
        r'<tr data-crew="([^"]+)"[^>]*>\s*<th scope="row"[^>]*>.*?'
        r'<span class="crew-name">([^<]+)</span>.*?</th>'
        r'<td class="cost"[^>]*>(\d+)</td><td class="power"[^>]*>(\d+)</td>',
        html,
        flags=re.S,
    )
    return {slug: (name, int(cost), int(power)) for slug, name, cost, power in rows}


def _energy_row(html: str) -> list[int]:
    table = html[html.index('id="energy-table"') :]
    row = table[table.index("Energy</th>") : table.index("</tr>", table.index("Energy</th>"))]
    return [int(n) for n in re.findall(r"<td>(\d+)</td>", row)]


def test_every_crew_of_the_active_ruleset_with_its_numbers():
    ruleset = get_ruleset()
    html = _page()
    assert _crew_rows(html) == {c.slug: (c.name, c.cost, c.power) for c in ruleset.crew.values()}
    assert _energy_row(html) == list(ruleset.energy_by_heat)
    for words in (
        f"holds {ruleset.loot_min} to {ruleset.loot_max} Loot",
        f"+{ruleset.boost_power} Power and adds {ruleset.boost_heat} Heat",
        "Memory Archive, Crown Vault, Signal Tower",
        "a tied vault was won by nobody",
        "Neither side sees the other's hand",
        "SHA-256",
        "python -m game.engine.replay FILE.json",
    ):
        assert words in html, words
    for title in ("Setup", "Night start", "Plan", "Seal", "Reveal", "Loot", "Heat", "Cleanup"):
        assert f"<strong>{title}.</strong>" in html


def test_the_night_market_crew_are_listed_with_their_words():
    ruleset = get_ruleset()
    market = ruleset.crew_in_set("night-market")
    assert len(market) == 7
    html = _page()
    rows = _crew_rows(html)
    for slug in market:
        crew = ruleset.crew[slug]
        assert rows[slug] == (crew.name, crew.cost, crew.power)
        row = html[html.index(f'data-crew="{slug}"') :]
        row = row[: row.index("</tr>")]
        assert crew.text in row, slug
        for effect in crew.effects:
            assert text.effect_text(slug, effect) in row, slug
    assert "the night's number and this night's Loot at the crew's vault" in html


def test_a_ruleset_with_changed_numbers_changes_the_page(monkeypatch):
    before = _page()
    changed = load_ruleset(json.loads(CHANGED.read_text("utf-8")))
    monkeypatch.setattr(catalogue, "active_ruleset", lambda: changed)
    after = _page()
    assert after != before
    rows = _crew_rows(after)
    assert rows["signal-thief"] == ("Signal Thief", 4, 6)
    assert rows["mirror-courier"][0] == "Mirror Courier Deluxe"
    assert "holds 1 to 5 Loot" in after and "holds 1 to 4 Loot" not in after
    assert "+3 Power and adds 2 Heat" in after
    assert "Ruleset test.changed" in after


@pytest.mark.parametrize("path", ["/", "/play/", "/heists/{id}/"])
def test_the_rules_are_linked_from_home_the_picker_and_the_board(guest, path):
    from tests.support.heists import start

    if "{id}" in path:
        path = path.format(id=start(guest)["id"])
    html = guest.get(path).content.decode()
    assert 'href="/rules/"' in html
