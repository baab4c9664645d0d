"""Hand records by an unguessable key, share links, and who came to a room (docs/rules.md, "Who may read a hand
record").

The key is added empty, drawn for every existing hand, then made required and unique. Every user's seats count as
their visits from the time they first sat in the room, so players keep the records of rooms they sat in; who only
watched before this migration is not known. Reversible: going back drops the keys, the share links and the
visits; going forward again draws new keys, so record URLs given out before then stop working.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.models import Min

import games.models

BATCH = 1000


def draw_keys(apps, schema_editor):
    Hand = apps.get_model("games", "Hand")
    pks = list(Hand.objects.filter(key__isnull=True).values_list("pk", flat=True))
    for start in range(0, len(pks), BATCH):
        Hand.objects.bulk_update([Hand(pk=pk, key=games.models.new_invite_token()) for pk in pks[start:start + BATCH]],
                                 ["key"])


def seats_as_visits(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    RoomVisit = apps.get_model("games", "RoomVisit")
    first = Seat.objects.filter(bot="").values("room_id", "user_id").annotate(first_at=Min("joined_at")).order_by()
    RoomVisit.objects.bulk_create([RoomVisit(**row) for row in first], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_handevent_no_single_column_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="key",
            field=models.CharField(editable=False, max_length=22, null=True, verbose_name="key"),
        ),
        migrations.RunPython(draw_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="hand",
            name="key",
            field=models.CharField(default=games.models.new_invite_token, editable=False, max_length=22, unique=True,
                                   verbose_name="key"),
        ),
        migrations.CreateModel(
            name="HandShare",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.CharField(default=games.models.new_invite_token, editable=False, max_length=22,
                                           unique=True, verbose_name="token")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="made")),
                ("revoked_at", models.DateTimeField(blank=True, null=True, verbose_name="revoked")),
                ("created_by", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                                 to=settings.AUTH_USER_MODEL)),
                ("hand", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="shares",
                                           to="games.hand")),
            ],
            options={"verbose_name": "hand share link", "verbose_name_plural": "hand share links"},
        ),
        migrations.CreateModel(
            name="RoomVisit",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("first_at", models.DateTimeField(default=django.utils.timezone.now, verbose_name="first came")),
                ("room", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to="games.room")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "verbose_name": "room visit",
                "verbose_name_plural": "room visits",
                "constraints": [models.UniqueConstraint(fields=("room", "user"), name="games_one_visit_per_room")],
            },
        ),
        migrations.RunPython(seats_as_visits, migrations.RunPython.noop),
    ]
