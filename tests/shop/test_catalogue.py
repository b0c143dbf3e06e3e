"""The shop's catalogue as data (shop/data/catalogue.json): what it must hold, what the loader
refuses, and that loading it twice changes nothing."""

from __future__ import annotations

import copy
import io
import json
from importlib import resources

import pytest
from django.core.management import call_command

from game.engine import available_versions, get_ruleset
from shop import services
from shop.catalogue import CatalogueError, get_catalogue, night_market_crew, parse
from shop.models import ShopItem

NM_CREW = {
    "fence",
    "insider",
    "night-owl",
    "cold-reader",
    "double-agent",
    "lone-wolf",
    "smoke-runner",
}


def raw() -> dict:
    text = resources.files("shop").joinpath("data", "catalogue.json").read_text()
    return json.loads(text)


def test_the_catalogue_holds_what_design_prices():
    items = get_catalogue().items
    by_kind: dict[str, list] = {}
    for item in items:
        by_kind.setdefault(item.kind, []).append(item)
    assert {i.slug for i in by_kind["crew"]} >= NM_CREW
    assert all(150 <= i.price <= 250 for i in by_kind["crew"])
    assert len(by_kind["card_back"]) >= 4 and {i.price for i in by_kind["card_back"]} == {80}
    assert len(by_kind["board_theme"]) >= 3 and {i.price for i in by_kind["board_theme"]} == {200}
    assert len(by_kind["title"]) >= 5 and all(50 <= i.price <= 120 for i in by_kind["title"])
    assert all(i.art for i in items if i.kind != "crew")
    assert all(not i.art for i in by_kind["crew"])


def test_every_night_market_type_of_the_rulesets_is_on_sale_and_nothing_else():
    newest = get_ruleset(available_versions()[-1])
    assert set(newest.crew_in_set("night-market")) == NM_CREW, "RULES.md's seven"
    assert night_market_crew() == NM_CREW
    sold = {i.slug for i in get_catalogue().items if i.kind == "crew"}
    assert sold == NM_CREW


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["items"][0].update(price=100), "costs 150 to 250"),
        (lambda d: d["items"][0].update(price=True), "costs 150 to 250"),
        (lambda d: d["items"][7].update(price=81), "costs 80 to 80"),
        (lambda d: d["items"][0].update(kind="hat"), "kind"),
        (lambda d: d["items"][0].update(art="x"), "unknown fields ['art']"),
        (lambda d: d["items"][7].pop("art"), "art"),
        (lambda d: d["items"][1].update(slug=d["items"][0]["slug"]), "appears twice"),
        (lambda d: d["items"][0].update(slug="Not A Slug"), "slug"),
        (lambda d: d["items"][0].update(active="yes"), "active"),
        (lambda d: d["items"][0].pop("description"), "missing ['description']"),
        (lambda d: d["items"][0].update(name=""), "name"),
        (lambda d: d["items"][0].update(slug="spark"), "base-set crew type"),
        (lambda d: d.update(extra=1), "exactly 'version' and 'items'"),
    ],
)
def test_the_loader_refuses_a_malformed_file_saying_where(change, says):
    data = copy.deepcopy(raw())
    assert parse(data)  # the file as shipped is good
    change(data)
    with pytest.raises(CatalogueError, match=says.replace("[", r"\[").replace("]", r"\]")):
        parse(data)


@pytest.mark.django_db
def test_load_catalogue_loads_the_shop_idempotently_and_retires_what_left_the_file():
    out = io.StringIO()
    call_command("load_catalogue", stdout=out)
    count = len(get_catalogue().items)
    assert f"Shop: {count} items" in out.getvalue()
    first = list(ShopItem.objects.order_by("pk").values())
    assert len(first) == count and all(r["active"] for r in first)
    assert services.shop_catalogue_load() == count
    assert list(ShopItem.objects.order_by("pk").values()) == first
    gone = ShopItem.objects.create(slug="old-back", kind="card_back", name="Old", description="d",
                                   price=80, art="old")  # fmt: skip
    services.shop_catalogue_load()
    gone.refresh_from_db()
    assert gone.active is False
    assert ShopItem.objects.filter(active=True).count() == count
