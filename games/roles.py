"""The Moderators group: exactly the permissions moderation needs (created by migration games 0003).

Moderators may ban, mute, kick seats, close rooms, hide chat, change a room's rules, work the
report queue, keep house variants, and read rooms, hands, seats, chat, users and the ledger.
They may not adjust a wallet (superusers only, wallets/admin.py), change any ledger row (the
ledger admin is read-only for everyone) or edit users' other fields.
"""

MODERATORS = "Moderators"

MODERATOR_PERMISSIONS = {
    "games": [
        "ban_user", "mute_user", "moderate_room",
        "view_room", "view_table", "view_seat", "view_hand", "view_handevent", "view_handseat",
        "view_chatmessage", "view_moderationlog", "view_report", "change_report",
        "view_housevariant", "add_housevariant", "change_housevariant", "delete_housevariant",
        "view_club", "view_clubmember", "view_clubjoinrequest",
        "view_gamesetting", "add_gamesetting", "change_gamesetting",
    ],
    "accounts": ["view_user"],
    "wallets": ["view_account", "view_transaction", "view_entry"],
}


def ensure_moderators_group(apps, *, strict: bool = True):
    """Create (or reset) the group with exactly MODERATOR_PERMISSIONS. `apps` is a migration's app
    registry or django.apps.apps. Idempotent. Migrations pass strict=False: at an early migration
    some models (and so their permissions) do not exist yet, and a later migration runs this again."""
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after all migrations; this group needs them now.
    for label in MODERATOR_PERMISSIONS:
        config = apps.get_app_config(label)
        had_module = getattr(config, "models_module", None)
        config.models_module = had_module or True  # create_permissions skips apps without models
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = had_module
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=MODERATORS)
    wanted = []
    for label, codenames in MODERATOR_PERMISSIONS.items():
        found = list(Permission.objects.filter(content_type__app_label=label, codename__in=codenames))
        missing = set(codenames) - {p.codename for p in found}
        if missing and strict:
            raise RuntimeError(f"missing permissions {sorted(missing)} in {label}")
        wanted += found
    group.permissions.set(wanted)
    return group
