"""Compress a table's `state` and `meta` with LZ4 instead of PostgreSQL's default pglz.

Every command rewrites its table's row, and both columns with it: PostgreSQL compresses them on every write
and decompresses them on the next command's lock. LZ4 does both for less CPU than pglz; the row's layout is
unchanged (still compressed and stored out of line, several rows to a page: 0010). docs/performance.md,
"The table row: LZ4, default toast_tuple_target", has the figures.

Only where the server was built with LZ4 (PostgreSQL 14 and later; Debian's and the official images are):
elsewhere, and on other databases, nothing changes. Values already stored keep their compression until the
next command rewrites them.
"""

from django.db import migrations

TABLE, COLUMNS = "games_table", ("state", "meta")


def _set(schema_editor, method: str) -> None:
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND %s = ANY(enumvals)",
                       [method])
        if cursor.fetchone() is None:
            return  # a server built without LZ4, or older than 14
    quote = schema_editor.quote_name
    schema_editor.execute(f"ALTER TABLE {quote(TABLE)} "
                          + ", ".join(f"ALTER COLUMN {quote(c)} SET COMPRESSION {method}" for c in COLUMNS))


def forwards(apps, schema_editor):
    _set(schema_editor, "lz4")


def backwards(apps, schema_editor):
    _set(schema_editor, "pglz")


class Migration(migrations.Migration):
    dependencies = [("games", "0010_games_table_default_toast_tuple_target")]

    operations = [migrations.RunPython(forwards, backwards)]
