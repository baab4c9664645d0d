"""PostgreSQL: games_table's toast_tuple_target at its maximum (8160 bytes), so a row of up to 8 KB, state
included, stays uncompressed in its heap page instead of going to the TOAST table.

Undone by 0010: with one row per page no update stays on its page and the table grows 8 times as fast
(docs/performance.md, "Tried and rejected"). Other databases have no such setting: nothing to do there.
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
