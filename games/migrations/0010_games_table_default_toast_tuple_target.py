"""Give games_table back PostgreSQL's default toast_tuple_target: 0009 run backwards.

With the default a table's state is compressed and stored out of line, so several rows share a page and an
update can stay on its page (HOT). Under load that gave a lower p99, the same PostgreSQL CPU and a table an
eighth of the size (docs/performance.md, "The table row: LZ4, default toast_tuple_target").
"""

from importlib import import_module

from django.db import migrations

# The same two steps as 0009, swapped (a module name starting with a digit cannot be imported with `from`).
_0009 = import_module("games.migrations.0009_table_rows_inline")


class Migration(migrations.Migration):
    dependencies = [("games", "0009_table_rows_inline")]

    operations = [migrations.RunPython(_0009.backwards, _0009.forwards)]
