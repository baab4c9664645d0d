"""Keep a table's row, state included, in its heap page instead of PostgreSQL's TOAST table.

Every command reads and rewrites its table's row. With the default toast_tuple_target (about 2 KB) a state of
5 KB was compressed and stored out of line: each command wrote new TOAST chunks and their index entries, and
read them back on the next lock. With the target at its maximum (8160 bytes) a row of up to 8 KB stays in its
page uncompressed; a larger one (an 8-seat table late in a hand) is compressed and moved out as before.
Measured with 3,000 lock-and-update transactions of a real 5.2 KB state: 400 to 410 µs of backend CPU each,
against 480 to 527 µs (docs/performance.md). Other databases have no such setting: nothing to do there.
"""

from django.db import migrations

TABLE = "games_table"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(TABLE)} SET (toast_tuple_target = 8160)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(TABLE)} RESET (toast_tuple_target)")


class Migration(migrations.Migration):
    dependencies = [("games", "0008_room_rules_through_orjson")]

    operations = [migrations.RunPython(forwards, backwards)]
