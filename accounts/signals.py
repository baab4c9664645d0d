"""Account lifecycle hooks: a new account receives its welcome beans and practice points."""

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_welcome_grant")
def grant_welcome_chips(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    if not created or raw or instance.is_bot:
        return
    from wallets.services import welcome_grant  # imported here: the wallets app loads after accounts

    welcome_grant(user=instance)
