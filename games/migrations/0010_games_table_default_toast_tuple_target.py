"""Give games_table back PostgreSQL's default toast_tuple_target: 0009 run backwards.

0009 kept a table's 5 KB state whole in its row: one row per 8 KB page. A loop of lock-and-update
transactions measured less backend CPU that way, but the live stack did not: in three pairs of 500-table
runs the default gave a lower p99 each time, the same PostgreSQL CPU and a table an eighth of the size
(13 to 17 MB against 122 to 132 MB after a run). With one row per page no update can stay on its page
(a HOT update), and the table outgrew shared_buffers. With the default the state is compressed (about
2.2 KB for a 5.2 KB state in the bench database) and several rows share a page (docs/performance.md, Stop 18).
"""

from importlib import import_module

from django.db import migrations

# The same two steps as 0009, swapped (a module name starting with a digit cannot be imported with `from`).
_0009 = import_module("games.migrations.0009_table_rows_inline")


class Migration(migrations.Migration):
    dependencies = [("games", "0009_table_rows_inline")]

    operations = [migrations.RunPython(_0009.backwards, _0009.forwards)]
