"""The ledger's rules, kept by PostgreSQL itself (DESIGN.md section 6).

- Entries are append-only: UPDATE and DELETE are refused (TRUNCATE, an owner's whole-table
  operation that the test runner uses to empty tables, is not a row change and is not guarded).
- Transactions are never deleted, and never changed, except that ``actor_id`` may become NULL
  (a deleted staff account, Django's SET_NULL).
- At commit (deferred constraint triggers): every transaction's entries sum to zero, and there
  are at least two; a wallet's cached balance equals its last entry's ``balance_after``.
- On insert: a wallet entry's ``balance_after`` continues its wallet's chain (the previous
  entry's ``balance_after`` plus this amount); a system account's entry carries none.
- A system account's row keeps no balance (CHECK, on every database): it is derived from the
  entries, so that no one row is locked by every movement in the site.

Wallet balances >= 0 and unique transaction keys are CHECK and UNIQUE constraints (0001).
On SQLite only the constraints apply; the services keep the rest, and check_signs_ledger
checks them.
"""

from django.db import migrations, models


class PostgresSQL(migrations.RunSQL):
    """RunSQL on PostgreSQL only: on another database it does nothing, both ways."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


APPEND_ONLY = """
CREATE FUNCTION shop_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'shop: ledger entries are append-only (% of entry % refused)', TG_OP, OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER shop_entry_append_only BEFORE UPDATE OR DELETE ON shop_entry
    FOR EACH ROW EXECUTE FUNCTION shop_entry_append_only();

CREATE FUNCTION shop_transaction_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Django's SET_NULL when a staff account is deleted: the action stays, without its actor.
    -- Compared as JSON minus actor_id, so a column added later is covered too.
    IF TG_OP = 'UPDATE' AND NEW.actor_id IS NULL
       AND (to_jsonb(NEW) - 'actor_id') = (to_jsonb(OLD) - 'actor_id') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'shop: ledger transactions are fixed once written (% of transaction % refused)',
        TG_OP, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER shop_transaction_fixed BEFORE UPDATE OR DELETE ON shop_transaction
    FOR EACH ROW EXECUTE FUNCTION shop_transaction_fixed();
"""

APPEND_ONLY_REVERSE = """
DROP TRIGGER shop_transaction_fixed ON shop_transaction;
DROP FUNCTION shop_transaction_fixed();
DROP TRIGGER shop_entry_append_only ON shop_entry;
DROP FUNCTION shop_entry_append_only();
"""

BALANCED = """
CREATE FUNCTION shop_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tx bigint;
    total numeric;
    lines integer;
BEGIN
    IF TG_TABLE_NAME = 'shop_entry' THEN
        tx := NEW.transaction_id;
    ELSE
        tx := NEW.id;
    END IF;
    SELECT COALESCE(SUM(amount), 0), COUNT(*) INTO total, lines
        FROM shop_entry WHERE transaction_id = tx;
    IF total <> 0 OR lines < 2 THEN
        RAISE EXCEPTION 'shop: transaction % does not balance (% entries summing to %)',
            tx, lines, total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER shop_entry_balanced AFTER INSERT ON shop_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION shop_transaction_balanced();
CREATE CONSTRAINT TRIGGER shop_transaction_balanced AFTER INSERT ON shop_transaction
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION shop_transaction_balanced();
"""

BALANCED_REVERSE = """
DROP TRIGGER shop_transaction_balanced ON shop_transaction;
DROP TRIGGER shop_entry_balanced ON shop_entry;
DROP FUNCTION shop_transaction_balanced();
"""

WALLET_CHAIN = """
CREATE FUNCTION shop_entry_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    account_kind text;
    previous bigint;
BEGIN
    SELECT kind INTO account_kind FROM shop_account WHERE id = NEW.account_id;
    IF account_kind IS DISTINCT FROM 'wallet' THEN
        IF NEW.balance_after IS NOT NULL THEN
            RAISE EXCEPTION 'shop: an entry on system account % carries a balance_after',
                NEW.account_id USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    -- The wallet's row lock (services._lock) is held by whoever inserts its entries, so ids
    -- grow in the order entries are applied and the highest is the latest.
    SELECT balance_after INTO previous FROM shop_entry
        WHERE account_id = NEW.account_id ORDER BY id DESC LIMIT 1;
    IF NEW.balance_after IS DISTINCT FROM COALESCE(previous, 0) + NEW.amount THEN
        RAISE EXCEPTION 'shop: entry on wallet % says balance_after %, its entries come to %',
            NEW.account_id, NEW.balance_after, COALESCE(previous, 0) + NEW.amount
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER shop_entry_chain BEFORE INSERT ON shop_entry
    FOR EACH ROW EXECUTE FUNCTION shop_entry_chain();

CREATE FUNCTION shop_wallet_matches_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    account bigint;
    account_kind text;
    cached bigint;
    latest bigint;
BEGIN
    IF TG_TABLE_NAME = 'shop_entry' THEN
        account := NEW.account_id;
    ELSE
        account := NEW.id;
    END IF;
    SELECT kind, balance INTO account_kind, cached FROM shop_account WHERE id = account;
    IF account_kind IS DISTINCT FROM 'wallet' THEN
        RETURN NULL;
    END IF;
    SELECT balance_after INTO latest FROM shop_entry
        WHERE account_id = account ORDER BY id DESC LIMIT 1;
    IF cached IS DISTINCT FROM COALESCE(latest, 0) THEN
        RAISE EXCEPTION 'shop: wallet % holds a balance of %, its entries come to %',
            account, cached, COALESCE(latest, 0) USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER shop_entry_wallet_matches AFTER INSERT ON shop_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION shop_wallet_matches_entries();
CREATE CONSTRAINT TRIGGER shop_account_wallet_matches AFTER INSERT OR UPDATE OF balance
    ON shop_account DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION shop_wallet_matches_entries();
"""

WALLET_CHAIN_REVERSE = """
DROP TRIGGER shop_account_wallet_matches ON shop_account;
DROP TRIGGER shop_entry_wallet_matches ON shop_entry;
DROP FUNCTION shop_wallet_matches_entries();
DROP TRIGGER shop_entry_chain ON shop_entry;
DROP FUNCTION shop_entry_chain();
"""


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_system_accounts")]

    operations = [
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=~models.Q(kind="system") | models.Q(balance=0),
                name="shop_system_balance_not_kept",
            ),
        ),
        PostgresSQL(APPEND_ONLY, APPEND_ONLY_REVERSE),
        PostgresSQL(BALANCED, BALANCED_REVERSE),
        PostgresSQL(WALLET_CHAIN, WALLET_CHAIN_REVERSE),
    ]
