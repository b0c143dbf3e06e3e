"""Operators' commands: check_signs_ledger passes a sound ledger and, on a row someone changed
behind the services' back, exits non-zero naming the account; signs_grant grants by email."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection

from shop import services
from shop.models import Entry, Transaction
from tests.support.ledger import award, balance, new_user, wallet


def check() -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("check_signs_ledger", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def check_fails() -> str:
    err = StringIO()
    with pytest.raises(CommandError, match=r"the Signs ledger has \d+ problem"):
        call_command("check_signs_ledger", stdout=StringIO(), stderr=err)
    return err.getvalue()


def tamper(statement: str, params=()) -> None:
    """Change a row the way a hand in the database would. PostgreSQL's triggers refuse that,
    so they are switched off for this one statement (as a superuser can); SQLite's CHECK
    constraints are switched off the same way."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The checks deferred to commit run now, on the rows as the services left them
            # (the test's transaction never commits; Django runs them at its end).
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            cursor.execute("SET LOCAL session_replication_role = replica")
            cursor.execute(statement, params)
            cursor.execute("SET LOCAL session_replication_role = origin")
        else:
            cursor.execute("PRAGMA ignore_check_constraints = 1")
            cursor.execute(statement, params)
            cursor.execute("PRAGMA ignore_check_constraints = 0")


@pytest.fixture
def ledger(db):
    alice, bob = new_user("alice@example.com"), new_user("bob@example.com")
    for user in (alice, bob):
        services.signs_welcome(user=user)
        award(user.pk, outcome="win", difficulty="hustler")
    services.signs_debit(user=alice, amount=70, key="purchase:a")
    return alice, bob


def test_a_sound_ledger_passes(ledger):
    out, err = check()
    assert err == ""
    assert "the Signs ledger balances" in out
    assert "grants -200" in out and "rewards -40" in out and "shop 70" in out


def test_a_changed_wallet_balance_is_reported_by_account(ledger):
    alice, _ = ledger
    tamper("UPDATE shop_account SET balance = balance + 5 WHERE id = %s", [wallet(alice).pk])
    err = check_fails()
    assert f"wallet {wallet(alice).pk} (alice@example.com): balance 55" in err
    assert "entries sum to 50" in err
    assert "bob@example.com" not in err


def test_a_changed_entry_is_reported_with_its_wallet_and_transaction(ledger):
    _, bob = ledger
    entry = Entry.objects.filter(account=wallet(bob)).order_by("id").first()
    tamper("UPDATE shop_entry SET amount = amount + 1 WHERE id = %s", [entry.pk])
    err = check_fails()
    assert (
        f"wallet {wallet(bob).pk} (bob@example.com): balance 120, but its entries sum to 121"
        in (err)
    )
    assert f"entry {entry.pk} says balance_after 100" in err
    assert f"transaction {entry.transaction_id} (welcome:{bob.pk}): 2 entries summing to 1" in err
    assert "all entries sum to 1, not 0" in err


def test_a_deleted_entry_is_reported(ledger):
    tx = Transaction.objects.get(key="purchase:a")
    shop_line = tx.entries.get(account__slug="shop")
    tamper("DELETE FROM shop_entry WHERE id = %s", [shop_line.pk])
    err = check_fails()
    assert f"transaction {tx.pk} (purchase:a): 1 entries summing to -70" in err


def test_a_balance_kept_on_a_system_row_is_reported(ledger):
    if connection.vendor == "postgresql":
        # A CHECK holds even with triggers off: drop it, inside the test's transaction only.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending trigger events
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            cursor.execute("ALTER TABLE shop_account DROP CONSTRAINT shop_system_balance_not_kept")
    tamper("UPDATE shop_account SET balance = 7 WHERE slug = 'grants'")
    assert "system account grants" in check_fails()


@pytest.mark.postgres(reason="it breaks a balance behind the ledger's triggers")
@pytest.mark.django_db(transaction=True)
def test_the_command_exits_non_zero_naming_the_account():
    """As an operator runs it: `manage.py check_signs_ledger`, a real process and exit code."""
    user = new_user("carol@example.com")
    services.signs_welcome(user=user)
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("DATABASE_TEST_NAME", None)

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", "check_signs_ledger"],
            cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    sound = run()
    assert sound.returncode == 0, sound.stderr
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE shop_account SET balance = 90 WHERE id = %s", [wallet(user).pk])
        cursor.execute("COMMIT")
    broken = run()
    assert broken.returncode == 1
    assert f"wallet {wallet(user).pk} (carol@example.com): balance 90" in broken.stderr


@pytest.mark.django_db
def test_signs_grant_grants_by_email_once_per_key():
    user = new_user("dave@example.com")
    staff = get_user_model().objects.create_user(
        username="ops", email="ops@example.com", is_staff=True
    )
    out = StringIO()
    call_command(
        "signs_grant", "DAVE@example.com", "25", "--reason", "Thanks for the bug report",
        "--key", "bug-17", "--actor", "ops@example.com", stdout=out,
    )  # fmt: skip
    assert "granted 25 Signs to DAVE@example.com" in out.getvalue()
    assert balance(user) == 25
    tx = Transaction.objects.get()
    assert (tx.reason, tx.memo, tx.actor, tx.key) == (
        "grant", "Thanks for the bug report", staff, "grant:bug-17"
    )  # fmt: skip
    again = StringIO()
    call_command("signs_grant", "dave@example.com", "25", "--reason", "Thanks for the bug report",
                 "--key", "bug-17", stdout=again)  # fmt: skip
    assert "already granted" in again.getvalue() and balance(user) == 25


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobody@example.com", "5", "--reason", "x"], "no player has the email"),
        (["erin@example.com", "0", "--reason", "x"], "above zero"),
        (["erin@example.com", "-5", "--reason", "x"], "above zero"),
        (["erin@example.com", "5", "--reason", "  "], "Say why"),
        (["erin@example.com", "5", "--reason", "x", "--actor", "erin@example.com"], "not a staff"),
        (["erin@example.com", "5"], "--reason"),
    ],
)
def test_signs_grant_refuses_bad_input_and_grants_nothing(args, message):
    new_user("erin@example.com")
    with pytest.raises(CommandError, match=message):
        call_command("signs_grant", *args, stdout=StringIO(), stderr=StringIO())
    assert not Transaction.objects.exists()
