"""Bots are named by their name alone ("Ada"): the table shows a translated "bot" badge beside it, where an English
" (bot)" in the name itself reached every language. The seats keep the name they sat down with until they next sit."""

from django.db import migrations


def drop_suffix(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for bot in User.objects.filter(is_bot=True, display_name__endswith=" (bot)"):
        bot.display_name = bot.display_name.removesuffix(" (bot)")
        bot.save(update_fields=["display_name"])


class Migration(migrations.Migration):
    dependencies = [("games", "0014_hand_chain"), ("accounts", "0004_user_language")]
    operations = [migrations.RunPython(drop_suffix, migrations.RunPython.noop)]
