"""Share links of a closed room's settle-up (games.models.LedgerShare, docs/ledger.md)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import games.models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_bot_names"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LedgerShare",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.CharField(default=games.models.new_invite_token, editable=False, max_length=22,
                                           unique=True, verbose_name="token")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="made")),
                ("revoked_at", models.DateTimeField(blank=True, null=True, verbose_name="revoked")),
                ("created_by", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                                 to=settings.AUTH_USER_MODEL)),
                ("room", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="ledger_shares",
                                           to="games.room")),
            ],
            options={"verbose_name": "settle-up share link", "verbose_name_plural": "settle-up share links"},
        ),
    ]
