"""Drop the single-column indexes of HandEvent's two foreign keys (Django's automatic ones).

Every command inserts its events here, and each insert updated four indexes. The unique constraint's
(room, version, seq) and the index (hand, version, seq) already serve every lookup and cascade by room or by
hand, since they lead with those columns (docs/performance.md, "HandEvent without single-column indexes").

Only the indexes go: Django's own AlterField would also drop and re-add both foreign keys, which checks every
row of the table again under a lock. The index names are the ones Django gave them (0001), on every database.
"""

import django.db.models.deletion
from django.db import migrations, models

INDEXES = [("games_handevent_hand_id_d48ec1bd", "hand_id"), ("games_handevent_room_id_ab0adf3b", "room_id")]


class Migration(migrations.Migration):
    dependencies = [("games", "0011_games_table_lz4")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="handevent",
                    name="hand",
                    field=models.ForeignKey(blank=True, db_index=False, null=True,
                                            on_delete=django.db.models.deletion.CASCADE, related_name="events",
                                            to="games.hand"),
                ),
                migrations.AlterField(
                    model_name="handevent",
                    name="room",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="events", to="games.room"),
                ),
            ],
            database_operations=[
                migrations.RunSQL(f'DROP INDEX IF EXISTS "{name}"', f'CREATE INDEX "{name}" ON "games_handevent" ("{column}")')
                for name, column in INDEXES
            ],
        ),
    ]
