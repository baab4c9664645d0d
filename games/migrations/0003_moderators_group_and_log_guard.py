"""The Moderators group (games/roles.py says what it may do), and on PostgreSQL a guard that makes the
moderation log append-only even against raw SQL."""

from django.db import migrations

GUARD = r"""
CREATE FUNCTION games_moderation_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'games: the moderation log is append-only (% refused)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER games_moderationlog_append_only
    BEFORE UPDATE OR DELETE ON games_moderationlog
    FOR EACH ROW EXECUTE FUNCTION games_moderation_log_append_only();
"""

UNGUARD = r"""
DROP TRIGGER IF EXISTS games_moderationlog_append_only ON games_moderationlog;
DROP FUNCTION IF EXISTS games_moderation_log_append_only();
"""


def create_group(apps, schema_editor):
    from games.roles import ensure_moderators_group

    ensure_moderators_group(apps, strict=False)


def drop_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Moderators").delete()


def guard(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(GUARD, params=None)


def unguard(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UNGUARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_moderation"),
        ("accounts", "0002_moderation_and_bots"),
        ("wallets", "0003_bot_float"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(create_group, drop_group),
        migrations.RunPython(guard, unguard),
    ]
