"""The room's hash chain on each hand record (docs/fairness.md, "The hash chain"), and hands under way at the upgrade
dealt the new way.

A hand now shuffles its stock at the deal, from the deal key (the server seed with the players' seeds), instead
of when it starts. A hand still betting at the upgrade gets its unshuffled cards back, so that it is dealt and
recorded like any other; a hand already dealt keeps its stock and counts as dealt with no player seed (its deal
key is its seed, as it was). Finished hands keep an empty chain: a room's chain starts at its next hand.
Reversible: going back drops the two columns, and a hand under way keeps what it was given.
"""

from django.db import migrations, models

BATCH = 200


def deal_hands_under_way(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    pks = list(Table.objects.values_list("pk", flat=True))
    for start in range(0, len(pks), BATCH):
        changed = []
        for table in Table.objects.filter(pk__in=pks[start:start + BATCH]):
            state, hand = table.state, (table.state or {}).get("hand")
            if not hand or hand.get("over") or "top" in hand:
                continue
            hand["top"] = []
            if state.get("phase") == "betting":
                hand["stock"] = list(hand["source"])
            else:
                hand.update(seeds=[], prev="0" * 64, key=hand["seed"])
            changed.append(table)
        Table.objects.bulk_update(changed, ["state"])


class Migration(migrations.Migration):
    dependencies = [("games", "0013_hand_keys_shares_visits")]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="chain",
            field=models.CharField(blank=True, max_length=64, verbose_name="chain hash"),
        ),
        migrations.AddField(
            model_name="hand",
            name="prev_chain",
            field=models.CharField(blank=True, max_length=64, verbose_name="previous hand's hash"),
        ),
        migrations.RunPython(deal_hands_under_way, migrations.RunPython.noop),
    ]
