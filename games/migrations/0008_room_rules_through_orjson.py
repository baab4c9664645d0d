"""A room's rules and rule overrides go through orjson too, as the table's columns (0007). The database
columns do not change.
"""

import games.fields
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_fast_json_fields'),
    ]

    operations = [
        migrations.AlterField(
            model_name='room',
            name='overrides',
            field=games.fields.FastJSONField(blank=True, default=dict, verbose_name='rule overrides'),
        ),
        migrations.AlterField(
            model_name='room',
            name='rules',
            field=games.fields.FastJSONField(verbose_name='rules'),
        ),
    ]
