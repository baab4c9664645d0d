"""The database emptied after a transactional test with DELETE, without Django's flush.

Django's flush (`TransactionTestCase._fixture_teardown`) empties every table (one TRUNCATE on PostgreSQL, a DELETE
each on SQLite), then sends the post_migrate signal, which puts back the content types, the permissions and the
site: 200 to 270 ms a test on either database, of which post_migrate is 80 to 250 ms, after each of the 600-odd
transactional tests of each pass. Here the tables post_migrate fills are left as they are, and every other table's
rows are deleted: 7 to 11 ms (docs/testing.md has the figures and the command).

- The first teardown runs Django's flush and notes which tables hold rows right after it: those are post_migrate's,
  kept from then on. Every other table is emptied, so each test starts from what Django's flush would leave.
- PostgreSQL: `DELETE` with `session_replication_role = replica` (no triggers, so no foreign-key checks, and the
  order does not matter). TRUNCATE would take an ACCESS EXCLUSIVE lock on every table, which a daphne process still
  closing a test's sockets could deadlock against; DELETE takes row locks only.
- SQLite: the DELETEs Django's flush itself runs (`sql_flush`), in one transaction (its foreign keys are checked at
  the commit).

This machine's PostgreSQL runs without autovacuum, and DELETE leaves dead rows: VACUUM every VACUUM_EVERY teardowns
keeps the tables and their indexes small.
"""

from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connections
from django.test import TransactionTestCase

VACUUM_EVERY = 100

_kept: dict[str, frozenset[str]] = {}  # database alias: the tables post_migrate fills
_teardowns = [0]


def _tables_with_rows(connection, tables: list[str]) -> frozenset[str]:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"EXISTS (SELECT 1 FROM {quote(t)})" for t in tables))
        has_rows = cursor.fetchone()
    return frozenset(t for t, rows in zip(tables, has_rows, strict=True) if rows)


def _empty(alias: str) -> None:
    connection = connections[alias]
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    if alias not in _kept:
        call_command("flush", verbosity=0, interactive=False, database=alias, reset_sequences=False)
        _kept[alias] = _tables_with_rows(connection, tables)
        return
    emptied = [t for t in tables if t not in _kept[alias]]
    if connection.vendor != "postgresql":
        connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), emptied))
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute("; ".join(f"DELETE FROM {quote(t)}" for t in emptied))
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")
    _teardowns[0] += 1
    if _teardowns[0] % VACUUM_EVERY == 0:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM")


def _fixture_teardown(self) -> None:
    for alias in self._databases_names(include_mirrors=False):
        if connections[alias].vendor in ("postgresql", "sqlite") and self.available_apps is None \
                and not self.serialized_rollback:
            _empty(alias)
        else:
            _django_fixture_teardown(self)
            return


_django_fixture_teardown = TransactionTestCase._fixture_teardown


def install() -> None:
    """From the test session's start (tests/conftest.py): every transactional test's teardown empties the database
    this way."""
    TransactionTestCase._fixture_teardown = _fixture_teardown
