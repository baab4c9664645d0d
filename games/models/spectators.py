"""Spectators by consent (docs/rules.md, "Spectators"): each seated player's answer to TV mode, per room.

A row is the player's answer: `given` with the hand number it shows from (`from_hand`, always a hand not yet dealt
when the answer came), or a refusal or withdrawal (`given` false). No row: the player was not asked yet. The live
tables read a copy kept in `Table.meta["tv"]` under the table's lock (games/services/spectators.py), so a command
reads no row of this table.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class TvConsent(models.Model):
    room = models.ForeignKey("games.Room", on_delete=models.CASCADE, related_name="tv_consents")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    given = models.BooleanField(_("cards shown one action late"), default=False)
    from_hand = models.PositiveIntegerField(_("from hand"), default=0)
    answered_at = models.DateTimeField(_("answered"))

    class Meta:
        verbose_name = _("TV mode consent")
        verbose_name_plural = _("TV mode consents")
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="games_tvconsent_room_user")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.room_id}: {'yes' if self.given else 'no'}"
