"""Give games_table back PostgreSQL's default toast_tuple_target (undoes 0009).

0009 kept a table's 5 KB state whole in its row: one row per 8 KB page. A loop of lock-and-update
transactions measured less backend CPU that way, but the live stack did not: in three pairs of 500-table
runs the default gave a lower p99 each time, the same PostgreSQL CPU and a table an eighth of the size
(13 to 17 MB against 122 to 132 MB after a run). With one row per page no update can stay on its page
(a HOT update), and the table outgrew shared_buffers. With the default the state is compressed to about
1.5 KB and stays in its row (docs/performance.md, Stop 18).
"""

from django.db import migrations

TABLE = "games_table"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(TABLE)} RESET (toast_tuple_target)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(TABLE)} SET (toast_tuple_target = 8160)")


class Migration(migrations.Migration):
    dependencies = [("games", "0009_table_rows_inline")]

    operations = [migrations.RunPython(forwards, backwards)]
