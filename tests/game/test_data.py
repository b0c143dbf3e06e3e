"""Encounters and ready-made decks are data (game/data/*.json), validated against the ruleset,
and served as the API documents them; the admin shows heists read-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from game.engine import Encounter, get_ruleset, validate_deck
from game.presenters import catalogue as present
from game.selectors.catalogue import encounter_get, encounters, ready_decks


def encounter_list():
    return present.encounter_list(encounters())


pytestmark = [pytest.mark.django_db]


def test_encounters_cover_the_kinds_of_scenario():
    ruleset = get_ruleset()
    encounters = {e["slug"]: e for e in encounter_list()}
    assert len(encounters) >= 4
    for slug in encounters:
        encounter_get(slug).validate(ruleset)
    mods = {
        (m["vault"], m["kind"], tuple(m["nights"]))
        for e in encounters.values()
        for m in e["modifiers"]["vault_mods"]
    }
    assert encounters["hot-start"]["modifiers"]["start_heat"] == {"rival": 3}
    assert ("crown-vault", "double", (ruleset.nights,)) in mods
    assert ("signal-tower", "closed", (1, 2)) in mods
    assert any(kind == "fixed" for _, kind, _ in mods)


def test_the_encounter_route_serves_the_data_file_in_full(client):
    written = json.loads(
        (Path(settings.BASE_DIR) / "game" / "data" / "encounters.json").read_text("utf-8")
    )["encounters"]
    served = client.get("/api/v1/encounters/").json()
    assert [e["slug"] for e in served] == [e["slug"] for e in written]
    for entry, data in zip(served, written, strict=True):
        assert set(entry) == {"slug", "name", "description", "modifiers"}
        assert (entry["name"], entry["description"]) == (data["name"], data["description"])
        # Disclosed in full: every modifier the file gives, as written...
        assert entry["modifiers"] == {
            "start_heat": data["start_heat"],
            "vault_mods": data["vault_mods"],
        }
        # ...and they rebuild the very encounter the engine plays.
        rebuilt = Encounter.from_dict(
            {k: entry[k] for k in ("slug", "name", "description")} | entry["modifiers"]
        )
        assert rebuilt == encounter_get(entry["slug"])


def test_ready_made_decks_are_legal():
    decks = ready_decks()
    assert len(decks) >= 3 and "starter" in {d.slug for d in decks}
    for deck in decks:
        validate_deck(get_ruleset(), deck.deck)


def test_rivals_route(client):
    rivals = client.get("/api/v1/rivals/").json()
    assert len(rivals) >= 4
    for rival in rivals:
        assert set(rival) == {"slug", "name", "tagline", "deck", "difficulties"}
        assert len(rival["deck"]) == 12
        assert [d["slug"] for d in rival["difficulties"]] == [
            "rookie", "hustler", "safecracker", "kingpin",
        ]  # fmt: skip


def test_admin_lists_heists_read_only(admin_client, guest):
    from tests.support.heists import start

    view = start(guest)
    page = admin_client.get("/admin/game/heist/")
    assert page.status_code == 200 and view["id"] in page.content.decode()
    from game.models import Heist

    heist = Heist.objects.get(pk=view["id"])
    detail = admin_client.get(f"/admin/game/heist/{heist.pk}/change/")
    assert detail.status_code == 200
    assert heist.server_seed not in detail.content.decode()
    response = admin_client.post(
        "/admin/game/heist/", {"action": "abandon_selected", "_selected_action": [heist.pk]}
    )
    assert response.status_code == 302
    heist.refresh_from_db()
    assert heist.status == "abandoned"


def test_the_catalogue_names_each_crews_set():
    """Game and shop ask the catalogue which crew are Night Market; no slug list in code."""
    from game import catalogue

    active = catalogue.active()
    market = active.night_market_crew()
    assert market == catalogue.night_market_crew() == active.crew_in_set(catalogue.NIGHT_MARKET)
    assert len(market) == 7 and "fence" in market and "spark" not in market
    assert {active.crew_set(s) for s in market} == {catalogue.NIGHT_MARKET}
    assert catalogue.crew_set("spark") == active.crew_set("spark") == catalogue.BASE_SET
    assert catalogue.crew_set("fence", "2026.11") is None and catalogue.crew_set("nobody") is None
    assert catalogue.night_market_crew("2026.11") == ()
    assert set(active.crew_in_set(catalogue.BASE_SET)) | set(market) == set(active.ruleset.crew)
