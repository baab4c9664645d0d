"""The JSON columns every table command reads or writes (table state and meta, hand events, hand rules and
summary) go through orjson (games/fields.py; docs/performance.md, "orjson on the hot path"). The database
columns do not change.
"""

import games.fields
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_one_pending_wake'),
    ]

    operations = [
        migrations.AlterField(
            model_name='hand',
            name='rules',
            field=games.fields.FastJSONField(verbose_name='rules'),
        ),
        migrations.AlterField(
            model_name='hand',
            name='summary',
            field=games.fields.FastJSONField(blank=True, null=True, verbose_name='summary'),
        ),
        migrations.AlterField(
            model_name='handevent',
            name='data',
            field=games.fields.FastJSONField(),
        ),
        migrations.AlterField(
            model_name='table',
            name='meta',
            field=games.fields.FastJSONField(default=dict),
        ),
        migrations.AlterField(
            model_name='table',
            name='state',
            field=games.fields.FastJSONField(),
        ),
    ]
