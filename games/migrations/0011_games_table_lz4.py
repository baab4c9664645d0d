"""Compress a table's `state` and `meta` with LZ4 instead of PostgreSQL's default pglz.

Every command rewrites its table's row, and both columns with it: the state (about 5 KB of JSON) and the meta
(about 1.8 KB, the recent action ids among them). Past the default toast threshold PostgreSQL compresses them
on every write and decompresses them on the next command's lock. LZ4 does both at a fraction of pglz's CPU;
the row's layout is unchanged (still compressed and stored out of line, several rows to a page: 0010).
`python benchmarks/command_cost.py --steps 800`, 10 alternated rounds: 0.71 to 1.15 ms of backend CPU a command
(mean 0.91) against 0.96 to 1.29 ms (mean 1.13) with pglz (docs/performance.md, Stop 22).

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
