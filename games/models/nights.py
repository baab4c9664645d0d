"""The same night again (games/nights.py): a room opened from a closed room's settle-up with its rules, its players
invited. The link makes the two ledgers point at each other: "continued from" and "continued in"."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class NightLink(models.Model):
    # One to one both ways: a night is played again once (a second "again" is refused, games/nights.py), and a room
    # continues at most one night.
    previous = models.OneToOneField("games.Room", on_delete=models.CASCADE, related_name="continued_in")
    room = models.OneToOneField("games.Room", on_delete=models.CASCADE, related_name="continued_from")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("night played again")
        verbose_name_plural = _("nights played again")

    def __str__(self) -> str:
        return f"{self.previous_id} -> {self.room_id}"
