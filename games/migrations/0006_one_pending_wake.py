"""Table.wake_sent_at: the ETA of the one wake task a worker holds for the table.

A command sends a new Celery wake only when it is due before the pending one, instead of one task per command
(docs/performance.md, "One pending wake per table; Celery on threads").
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_moderators_see_clubs'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='wake_sent_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
