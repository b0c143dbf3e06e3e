"""The ledger in the admin: read-only lists; grants and refunds only through the services, asked
first on a form, with the staff member recorded as the actor."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from shop import services
from shop.models import Transaction
from tests.support.ledger import balance, new_user, wallet
from tests.support.staff import give_second_factor, sign_in_with_second_factor

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    user = get_user_model().objects.create_superuser(
        username="boss", email="boss@example.com", password="a long enough password 42"
    )
    give_second_factor(user)  # the admin asks staff for one (accounts/admin.py)
    return user


@pytest.fixture
def staff_client(staff) -> Client:
    client = Client()
    sign_in_with_second_factor(client, staff)
    return client


def test_the_ledger_is_listed_and_cannot_be_edited(staff_client, user):
    services.signs_welcome(user=user)
    tx = Transaction.objects.get()
    for path in ("/admin/shop/account/", "/admin/shop/transaction/", "/admin/shop/heistearning/"):
        assert staff_client.get(path).status_code == 200, path
    page = staff_client.get(f"/admin/shop/transaction/{tx.pk}/change/").content.decode()
    assert f"welcome:{user.pk}" in page and "grants" in page
    assert staff_client.get("/admin/shop/transaction/add/").status_code == 403
    assert staff_client.get(f"/admin/shop/transaction/{tx.pk}/delete/").status_code == 403
    changed = staff_client.post(f"/admin/shop/transaction/{tx.pk}/change/", {"memo": "edited"})
    assert changed.status_code == 403
    tx.refresh_from_db()
    assert tx.memo == "Welcome to VEYLTAK"


def test_grant_action_asks_then_grants_once_with_the_actor(staff_client, staff, user):
    other = new_user()
    services.signs_welcome(user=user)
    services.signs_welcome(user=other)
    ids = [wallet(user).pk, wallet(other).pk]
    asked = staff_client.post(
        "/admin/shop/account/", {"action": "grant_signs", "_selected_action": ids}
    )
    assert asked.status_code == 200 and "Grant Signs" in asked.content.decode()
    key = asked.context["form"].initial["key"]
    form = {
        "action": "grant_signs",
        "_selected_action": ids,
        "apply": "1",
        "amount": "30",
        "reason": "Server outage on Tuesday",
        "key": key,
    }
    assert staff_client.post("/admin/shop/account/", form).status_code == 302
    assert staff_client.post("/admin/shop/account/", form).status_code == 302  # sent twice
    assert balance(user) == balance(other) == 130
    grants = Transaction.objects.filter(reason="grant")
    assert grants.count() == 2
    assert {(g.actor, g.memo) for g in grants} == {(staff, "Server outage on Tuesday")}
    bad = staff_client.post("/admin/shop/account/", {**form, "amount": "0", "key": "k2"})
    assert bad.status_code == 200 and grants.count() == 2  # the form again, with its error


def test_refund_action_refunds_purchases_once_with_the_actor(staff_client, staff, user):
    services.signs_welcome(user=user)
    purchase = services.signs_debit(user=user, amount=80, key="purchase:admin").transaction
    welcome = Transaction.objects.get(reason="welcome")
    ids = [purchase.pk, welcome.pk]
    asked = staff_client.post(
        "/admin/shop/transaction/", {"action": "refund_purchases", "_selected_action": ids}
    )
    assert asked.status_code == 200
    assert list(asked.context["queryset"]) == [purchase]  # only purchases are offered
    form = {"action": "refund_purchases", "_selected_action": ids, "apply": "1", "note": "Bug"}
    assert (
        staff_client.post("/admin/shop/transaction/", {**form, "amount": "81"}).status_code == 302
    )
    assert balance(user) == 20  # more than was paid: refused, nothing written
    assert (
        staff_client.post("/admin/shop/transaction/", {**form, "amount": "60"}).status_code == 302
    )
    assert staff_client.post("/admin/shop/transaction/", form).status_code == 302  # again: refused
    assert balance(user) == 80
    refund = Transaction.objects.get(reason="refund")
    assert (refund.refund_of, refund.actor, refund.memo) == (purchase, staff, "Bug")


def test_staff_without_the_permission_get_no_grant_or_refund(user):
    clerk = get_user_model().objects.create_user(
        username="clerk", email="clerk@example.com", is_staff=True
    )
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_account", "view_transaction"])
    )
    give_second_factor(clerk)
    client = Client()
    sign_in_with_second_factor(client, clerk)
    services.signs_welcome(user=user)
    page = client.get("/admin/shop/account/")
    assert page.status_code == 200 and "grant_signs" not in page.content.decode()
    client.post(
        "/admin/shop/account/",
        {"action": "grant_signs", "_selected_action": [wallet(user).pk], "apply": "1",
         "amount": "5", "reason": "sneaky", "key": "x"},
    )  # fmt: skip
    assert balance(user) == 100


def test_refunding_a_shop_purchase_in_the_admin_takes_the_item_back_once(staff_client, user):
    import json

    from shop.models import Ownership, Purchase

    services.shop_catalogue_load()
    services.signs_welcome(user=user)
    player = Client()
    player.force_login(user)
    bought = player.post(
        "/api/v1/shop/purchases/",
        data=json.dumps({"item": "back-brass", "price": 80}),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="admin-refund",
    )
    assert bought.status_code == 201
    player.put(
        "/api/v1/collection/equipped/",
        data=json.dumps({"kind": "card_back", "item": "back-brass"}),
        content_type="application/json",
    )
    purchase = Purchase.objects.get(user=user)
    for path in ("shopitem", "purchase", "ownership", "equipped"):
        assert staff_client.get(f"/admin/shop/{path}/").status_code == 200, path
    form = {"action": "refund_purchases", "_selected_action": [purchase.transaction_id],
            "apply": "1", "note": "Changed my mind"}  # fmt: skip
    assert staff_client.post("/admin/shop/transaction/", form).status_code == 302
    assert balance(user) == 100
    assert not Ownership.objects.filter(user=user).exists()
    assert player.get("/api/v1/collection/").json()["equipped"]["card_back"] is None
    assert staff_client.post("/admin/shop/transaction/", form).status_code == 302  # refused
    assert balance(user) == 100 and Transaction.objects.filter(reason="refund").count() == 1
