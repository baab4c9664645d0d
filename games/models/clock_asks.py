"""A seated player's ask for a longer clock (games/services/clock_ask.py): pending until the host grants or dismisses
it, so that a host who connects later still sees it; kept afterwards, as the time of the asker's last ask."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class ClockAsk(models.Model):
    class Outcome(models.TextChoices):
        GRANTED = "granted", pgettext_lazy("clock ask", "granted")
        DISMISSED = "dismissed", pgettext_lazy("clock ask", "dismissed")  # a report's "dismissed" is another word

    room = models.ForeignKey("games.Room", on_delete=models.CASCADE, related_name="clock_asks")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.CharField(max_length=20)  # the asker's seat id in the engine state when they asked
    asked_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)  # null while pending
    outcome = models.CharField(max_length=9, choices=Outcome.choices, blank=True)
    seconds = models.PositiveSmallIntegerField(null=True, blank=True)  # what a grant added to each clock

    class Meta:
        verbose_name = _("ask for a longer clock")
        verbose_name_plural = _("asks for a longer clock")
        indexes = [models.Index(fields=["room", "user", "asked_at"], name="games_clockask_room_user")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.room_id} at {self.asked_at:%Y-%m-%d %H:%M:%S}"
