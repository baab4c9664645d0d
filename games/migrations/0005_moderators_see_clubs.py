"""Moderators read clubs and keep the per-game platform switches (games/roles.py)."""

from django.db import migrations


def update_group(apps, schema_editor):
    from games.roles import ensure_moderators_group

    ensure_moderators_group(apps, strict=False)


class Migration(migrations.Migration):
    dependencies = [("games", "0004_clubs")]

    operations = [migrations.RunPython(update_group, migrations.RunPython.noop)]
