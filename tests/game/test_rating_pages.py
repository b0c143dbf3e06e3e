"""Where the rating shows (issue 26): /api/v1/me/ (null for a guest, as its schema says), the
profile, the result page (before -> after, provisional said in words, or why a heist did not
rate), the rules page (the formula and the anchors) and the data export."""

from __future__ import annotations

import re
from html import unescape

import pytest
from drf_spectacular.generators import SchemaGenerator

from game.models import PlayerRating, RatingChange
from game.rating.anchors import current
from game.services.abandon import heist_abandon
from tests.support.heists import age_checked_client, make_player, play_out, post, start
from tests.support.schema import check_response

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    """The page's words as a screen reader gets them: what is hidden from it and the tags
    dropped, spaces folded."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<span aria-hidden="true">[^<]*</span>', "", html)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return _text(html[start : html.index("</section>", start)])


def test_me_rating_is_null_for_a_guest_the_start_then_each_heists_after(player):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    guest = age_checked_client()
    answer = guest.get("/api/v1/me/")
    check_response(schema, "/api/v1/me/", "get", 200, answer)
    assert answer.json()["rating"] is None
    _user, client = player
    answer = client.get("/api/v1/me/")
    check_response(schema, "/api/v1/me/", "get", 200, answer)
    assert answer.json()["rating"] == {"value": 1500, "deviation": 350, "provisional": True}
    view = play_out(client, start(client, difficulty="safecracker"), seed=1)
    change = RatingChange.objects.get(heist_id=view["id"])
    answer = client.get("/api/v1/me/")
    check_response(schema, "/api/v1/me/", "get", 200, answer)
    assert answer.json()["rating"] == {
        "value": round(change.after_value),
        "deviation": round(change.after_deviation),
        "provisional": True,
    }
    me = schema["components"]["schemas"]["Me"]["properties"]["rating"]
    assert me.get("nullable") is True and "null for a guest" in me["description"]


def test_the_result_page_shows_before_and_after_and_says_provisional(player):
    _user, client = player
    view = play_out(client, start(client, difficulty="hustler"), seed=2)
    change = RatingChange.objects.get(heist_id=view["id"])
    before, after = round(change.before_value), round(change.after_value)
    html = client.get(f"/heists/{view['id']}/result/").content.decode()
    said = _section(html, "rating-result")
    delta = f"{after - before:+d}"
    assert f"Rating {before} to {after} ({delta})" in said
    outcome = {"win": "A win", "loss": "A loss", "draw": "A draw"}[view["result"]["outcome"]]
    assert f"{outcome} against Hustler (rated {current().anchor('hustler').rating})" in said
    assert "Provisional: the site is still finding your level" in said


def test_the_result_page_says_an_abandoned_heist_was_a_loss_and_why_others_did_not_rate(player):
    _user, client = player
    left = start(client, difficulty="kingpin")
    heist_abandon(heist_id=left["id"])
    html = client.get(f"/heists/{left['id']}/result/").content.decode()
    assert "Left unfinished, so counted as a loss against Kingpin" in _section(
        html, "rating-result"
    )
    first = play_out(client, start(client), seed=3)
    retry = post(client, f"/api/v1/heists/{first['id']}/retry/", {"night": 5}).json()
    practice = play_out(client, retry, seed=3)
    html = client.get(f"/heists/{practice['id']}/result/").content.decode()
    assert "A practice retry never changes your rating." in _section(html, "rating-result")
    guest = age_checked_client()
    played = play_out(guest, start(guest), seed=4)
    html = guest.get(f"/heists/{played['id']}/result/").content.decode()
    assert "Guests have no rating" in _section(html, "rating-result")
    # The same browser signs in: the heist it finished as a guest is its player's now, unrated.
    guest.force_login(make_player("signs-in-later@example.com")[0])
    html = guest.get(f"/heists/{played['id']}/result/").content.decode()
    assert "it closed before you were signed in" in _section(html, "rating-result")


def test_the_profile_shows_the_rating_its_range_its_state_and_the_levels(player):
    user, client = player
    html = client.get("/accounts/profile/").content.decode()
    said = _section(html, "rating")
    assert "1500 likely between 800 and 2200" in said
    assert "Provisional: the site is still finding your level" in said
    for level in current().levels.values():
        assert f"{level.rating}" in said
    view = play_out(client, start(client), seed=5)
    change = RatingChange.objects.get(heist_id=view["id"])
    said = _section(client.get("/accounts/profile/").content.decode(), "rating")
    assert f"{round(change.before_value)} to {round(change.after_value)}" in said
    assert "From 1 rated heist." in said
    # Settled once the deviation is down to the bound: said so, not provisional.
    PlayerRating.objects.filter(user=user).update(deviation=current().provisional_above)
    said = _section(client.get("/accounts/profile/").content.decode(), "rating")
    assert "Settled" in said and "Provisional" not in said
    assert client.get("/api/v1/me/").json()["rating"]["provisional"] is False


def test_the_rules_page_publishes_the_formula_and_the_anchors(client):
    said = _section(client.get("/rules/").content.decode(), "rating")
    anchors = current()
    assert "anchor = 1500 + 173.7178 \u00d7 (s \u2212 s\u2080)" in said
    assert f"s\u2080 = {anchors.zero:g}" in said
    assert "abandoned) counts as a loss" in said
    for name, slug in (("Rookie", "rookie"), ("Kingpin", "kingpin")):
        a = anchors.anchor(slug)
        assert f"{name} {a.rating} \u00b1{a.deviation}" in said
    assert f"version {anchors.version}" in said


def test_the_export_holds_the_rating_and_every_rated_heist(player):
    _user, client = player
    view = play_out(client, start(client, difficulty="rookie"), seed=6)
    exported = client.get("/accounts/export/").json()["rating"]
    change = RatingChange.objects.get(heist_id=view["id"])
    assert exported["heists"] == 1 and exported["value"] == round(change.after_value, 2)
    assert exported["changes"] == [
        {
            "heist": view["id"],
            "number": 1,
            "result": change.result,
            "level": "rookie",
            "opponent": current().anchor("rookie").rating,
            "anchors": current().version,
            "before": {"value": 1500, "deviation": 350},
            "after": {
                "value": round(change.after_value, 2),
                "deviation": round(change.after_deviation, 2),
            },
            "rated_at": change.rated_at.isoformat(),
        }
    ]
