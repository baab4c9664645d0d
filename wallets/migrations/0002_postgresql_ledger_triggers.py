"""PostgreSQL-only ledger guards that a CHECK constraint cannot express.

- A deferred constraint trigger checks, at commit, that every transaction touched has two
  or more entries, all in the transaction's currency, summing to zero. Deferred so the
  services can insert the transaction row first and its entries after it.
- The ledger is append-only: UPDATE and DELETE of entries and transactions are refused.
  (TRUNCATE, used by test database flushes, is not a row operation and stays possible.)
SQLite relies on the service-level checks and on wallet_audit.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION wallets_check_transaction_balanced(txn_id bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
    n integer;
    foreign_currency integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM wallets_transaction WHERE id = txn_id) THEN
        RETURN;
    END IF;
    SELECT coalesce(sum(e.amount), 0), count(e.id), count(e.id) FILTER (WHERE a.currency <> t.currency)
      INTO total, n, foreign_currency
      FROM wallets_transaction t
      LEFT JOIN wallets_entry e ON e.transaction_id = t.id
      LEFT JOIN wallets_account a ON a.id = e.account_id
     WHERE t.id = txn_id;
    IF total <> 0 OR n < 2 OR foreign_currency > 0 THEN
        RAISE EXCEPTION 'wallets: transaction % is unbalanced (sum %, % entries, % in another currency)',
            txn_id, total, n, foreign_currency
            USING ERRCODE = 'check_violation';
    END IF;
END $$;

CREATE FUNCTION wallets_entry_balanced_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM wallets_check_transaction_balanced(NEW.transaction_id);
    RETURN NULL;
END $$;

CREATE FUNCTION wallets_transaction_balanced_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM wallets_check_transaction_balanced(NEW.id);
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER wallets_entry_balanced
    AFTER INSERT ON wallets_entry DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallets_entry_balanced_trigger();

CREATE CONSTRAINT TRIGGER wallets_transaction_balanced
    AFTER INSERT ON wallets_transaction DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallets_transaction_balanced_trigger();

CREATE FUNCTION wallets_append_only_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'wallets: % is append-only (% refused)', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER wallets_entry_append_only
    BEFORE UPDATE OR DELETE ON wallets_entry
    FOR EACH ROW EXECUTE FUNCTION wallets_append_only_trigger();

CREATE TRIGGER wallets_transaction_append_only
    BEFORE UPDATE OR DELETE ON wallets_transaction
    FOR EACH ROW EXECUTE FUNCTION wallets_append_only_trigger();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS wallets_transaction_append_only ON wallets_transaction;
DROP TRIGGER IF EXISTS wallets_entry_append_only ON wallets_entry;
DROP TRIGGER IF EXISTS wallets_transaction_balanced ON wallets_transaction;
DROP TRIGGER IF EXISTS wallets_entry_balanced ON wallets_entry;
DROP FUNCTION IF EXISTS wallets_append_only_trigger();
DROP FUNCTION IF EXISTS wallets_transaction_balanced_trigger();
DROP FUNCTION IF EXISTS wallets_entry_balanced_trigger();
DROP FUNCTION IF EXISTS wallets_check_transaction_balanced(bigint);
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("wallets", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
