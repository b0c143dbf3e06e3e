"""GET /api/v1/wallet/ (DESIGN.md section 5): the balance and the entries newest first, cursor
pagination that does not shift when new entries arrive, guests refused with the standard error
shape, and every answer as the OpenAPI schema declares it."""

from __future__ import annotations

import pytest
from django.test import Client

from shop import services
from shop.models import Entry
from tests.support.ledger import award, new_user, wallet
from tests.support.schema import check_response

pytestmark = pytest.mark.django_db

WALLET = "/api/v1/wallet/"
ENTRY_KEYS = {"id", "at", "amount", "balance_after", "reason", "ref"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_guests_are_refused_with_sign_in_required(schema):
    response = Client().get(WALLET)
    assert response.status_code == 403
    assert response.json() == {
        "error": {"code": "sign_in_required", "message": "Sign in to earn, keep and spend Signs."}
    }
    check_response(schema, WALLET, "get", 403, response)


def test_the_wallet_shape_newest_first(schema, user):
    client = signed_in(user)
    empty = client.get(WALLET)
    assert empty.json() == {"balance": 0, "entries": [], "next": None}
    check_response(schema, WALLET, "get", 200, empty)

    services.signs_welcome(user=user)
    heist = award(user.pk, outcome="draw", difficulty="safecracker")
    assert heist.amount == 17
    services.signs_debit(user=user, amount=50, key="purchase:shape", reference="purchase:7")
    response = client.get(WALLET)
    check_response(schema, WALLET, "get", 200, response)
    body = response.json()
    assert body["balance"] == 67 and body["next"] is None
    assert all(set(e) == ENTRY_KEYS for e in body["entries"])
    rows = [(e["reason"], e["amount"], e["balance_after"]) for e in body["entries"]]
    assert rows == [("purchase", -50, 67), ("heist", 17, 117), ("welcome", 100, 100)]
    assert body["entries"][0]["ref"] == "purchase:7"
    assert body["entries"][1]["ref"].startswith("heist:")
    ids = [e["id"] for e in body["entries"]]
    assert ids == sorted(ids, reverse=True)
    # Only the player's own wallet, never a system account's or another player's lines.
    other = new_user()
    services.signs_welcome(user=other)
    assert len(client.get(WALLET).json()["entries"]) == 3
    assert Entry.objects.count() == 8


def test_pages_follow_the_cursor_to_the_end_without_gaps_or_repeats(schema, user):
    for i in range(45):
        services.signs_grant(user=user, amount=i + 1, reason_text=f"grant {i}")
    client = signed_in(user)
    expected = list(
        Entry.objects.filter(account=wallet(user)).order_by("-id").values_list("id", flat=True)
    )
    seen, url, pages = [], WALLET, 0
    while url:
        response = client.get(url)
        check_response(schema, WALLET, "get", 200, response)
        body = response.json()
        assert len(body["entries"]) <= 20
        assert body["balance"] == sum(range(1, 46)) + (1000 if pages else 0)
        seen += [e["id"] for e in body["entries"]]
        url = body["next"]
        pages += 1
        if pages == 1:
            # Signs that arrive while the player reads older pages do not shift them.
            services.signs_grant(user=user, amount=1000, reason_text="meanwhile")
            assert "cursor=" in url
    assert pages == 3 and seen == expected
    small = client.get(WALLET + "?limit=5").json()
    assert len(small["entries"]) == 5 and small["entries"][0]["amount"] == 1000


def test_a_cursor_the_api_did_not_give_out_is_refused(schema, user):
    client = signed_in(user)
    # Not base64; an offset that is not a number (o=x).
    for cursor in ("nonsense!", "bz14"):
        response = client.get(f"{WALLET}?cursor={cursor}")
        assert response.status_code == 400, cursor
        assert response.json()["error"]["code"] == "invalid_cursor"
        check_response(schema, WALLET, "get", 400, response)


def test_me_shows_the_real_balance(user):
    client = signed_in(user)
    assert client.get("/api/v1/me/").json()["signs"] == 0
    services.signs_welcome(user=user)
    award(user.pk, outcome="win", difficulty="kingpin")
    assert client.get("/api/v1/me/").json()["signs"] == 160
    assert Client().get("/api/v1/me/").json()["signs"] == 0  # a guest


def test_a_cursor_whose_position_is_no_entry_id_is_refused(schema, user, caplog):
    # Base64 of p=x, of a negative, of a number past any id (past PostgreSQL's bigint), of a
    # position with spaces: each decodes, none is a position the API gave out (issue 27, S5).
    import base64
    import logging

    services.signs_welcome(user=user)
    client = signed_in(user)
    positions = ("x", "-1", "1e3", " 7", "99999999999999999999", "7\u0660")
    with caplog.at_level(logging.ERROR):
        for position in positions:
            cursor = base64.b64encode(f"p={position}".encode()).decode()
            response = client.get(WALLET, {"cursor": cursor})
            assert response.status_code == 400, position
            assert response.json()["error"]["code"] == "invalid_cursor"
            check_response(schema, WALLET, "get", 400, response)
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    # A position the API could give out still pages.
    cursor = base64.b64encode(b"p=999999").decode()
    assert client.get(WALLET, {"cursor": cursor}).json()["entries"][0]["amount"] == 100
