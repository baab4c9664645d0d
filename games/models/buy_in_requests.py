"""A buy-in or top-up waiting for the host's approval, in a room that asks for it (`Room.approve_buy_ins`;
games/services/approvals.py). Nothing is held while it waits: approving runs the sit or the top-up then.

Pending while `outcome` is empty and `deadline` is ahead; past the deadline it has lapsed, with no write: nothing
has to run at the deadline, and every check reads the deadline."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class BuyInRequest(models.Model):
    class Kind(models.TextChoices):
        SIT = "sit", pgettext_lazy("buy-in request", "buy-in")
        TOP_UP = "top_up", pgettext_lazy("buy-in request", "top-up")

    class Outcome(models.TextChoices):
        APPROVED = "approved", pgettext_lazy("buy-in request", "approved")
        REFUSED = "refused", pgettext_lazy("buy-in request", "refused")

    room = models.ForeignKey("games.Room", on_delete=models.CASCADE, related_name="buy_in_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=6, choices=Kind.choices)
    amount = models.PositiveIntegerField()
    role = models.CharField(max_length=4, blank=True)  # a buy-in's seat: main or side
    position = models.PositiveSmallIntegerField(null=True, blank=True)  # a buy-in's seat position, fixed when asked
    seat = models.CharField(max_length=20, blank=True)  # a top-up's seat id in the engine state
    asked_at = models.DateTimeField()
    deadline = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)

    class Meta:
        verbose_name = _("buy-in waiting for approval")
        verbose_name_plural = _("buy-ins waiting for approval")
        indexes = [models.Index(fields=["room", "outcome", "deadline"], name="games_buyinrequest_pending")]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount} by {self.user_id} in {self.room_id}"
