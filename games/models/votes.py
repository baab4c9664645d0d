"""A vote at a table (games/services/votes.py): a seated player calls it, the seated players at the table answer
within VOTE_SECONDS. Two kinds: ending the room (解散房间) after the current hand, and skipping an away player's
timers for the rest of the hand. Every vote stays, with its ballots and its outcome: the room's ledger page lists
them (games/ledger_views.py), and the time of each player's last call is read from here."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class RoomVote(models.Model):
    class Kind(models.TextChoices):
        CLOSE = "close", pgettext_lazy("vote", "end the room")
        SKIP = "skip", pgettext_lazy("vote", "skip an away player's timers")

    class Outcome(models.TextChoices):
        PASSED = "passed", pgettext_lazy("vote", "passed")
        FAILED = "failed", pgettext_lazy("vote", "failed")
        # An open vote whose time ran out is "expired" when read (`result`): no timer writes it.

    room = models.ForeignKey("games.Room", on_delete=models.CASCADE, related_name="votes")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")  # who called it
    seat = models.CharField(max_length=20)  # the caller's seat id in the engine state
    target = models.CharField(max_length=20, blank=True)  # skip: the away seat
    hand_no = models.PositiveIntegerField(default=0)  # the hand under way at the call (skip: the hand it is for)
    voters = models.JSONField(default=list)  # the seat ids that may answer, fixed at the call
    ballots = models.JSONField(default=dict)  # seat id -> true (yes) / false (no); the caller's yes is the first
    opened_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    outcome = models.CharField(max_length=6, choices=Outcome.choices, blank=True)  # blank while open or expired
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("vote at a table")
        verbose_name_plural = _("votes at a table")
        indexes = [models.Index(fields=["room", "user", "opened_at"], name="games_roomvote_room_user")]

    def __str__(self) -> str:
        return f"{self.kind} in {self.room_id} by {self.user_id} at {self.opened_at:%Y-%m-%d %H:%M:%S}"

    def result(self, now=None) -> str:
        """passed, failed, expired (no outcome and its time is over) or open."""
        if self.outcome:
            return self.outcome
        return "expired" if (now or timezone.now()) >= self.ends_at else "open"

    @property
    def yes(self) -> int:
        return sum(1 for v in self.ballots.values() if v)

    @property
    def no(self) -> int:
        return sum(1 for v in self.ballots.values() if not v)
