"""The record of every hand, and who else may read it: share links and the users who came to the room."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.fields import FastJSONField
from games.models.rooms import Room, new_invite_token


class Hand(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="hands")
    # The record's URL names the hand by this key, never by its sequential pk (migration 0013 filled old rows).
    key = models.CharField(_("key"), max_length=22, unique=True, default=new_invite_token, editable=False)
    number = models.PositiveIntegerField(_("hand"))
    rules = FastJSONField(_("rules"))
    commitment = models.CharField(_("shuffle commitment"), max_length=64)
    seed = models.CharField(_("seed"), max_length=64, blank=True)  # revealed when the hand is over
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True, db_index=True)
    summary = FastJSONField(_("summary"), null=True, blank=True)  # the engine's last_hand, all cards
    # The room's hash chain (docs/fairness.md, "The hash chain"): the previous hand's hash and this one's.
    prev_chain = models.CharField(_("previous hand's hash"), max_length=64, blank=True)
    chain = models.CharField(_("chain hash"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        constraints = [models.UniqueConstraint(fields=["room", "number"], name="games_hand_number_unique")]
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"{self.room.code} #{self.number}"

    def get_absolute_url(self) -> str:
        return reverse("games:hand", kwargs={"key": self.key})

    @property
    def is_over(self) -> bool:
        return self.ended_at is not None


class HandEvent(models.Model):
    """Every engine event in order, unredacted (cards included): shown to players only once the
    hand is over (games/selectors.py). Events between hands (seats, the bank) have no hand."""

    # No index of their own: the constraint's (room, version, seq) and the index's (hand, version, seq) lead with
    # them, and every command inserts a row here (migration 0012).
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="events", db_index=False)
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, null=True, blank=True, related_name="events",
                             db_index=False)
    version = models.PositiveBigIntegerField()
    seq = models.PositiveSmallIntegerField()
    type = models.CharField(max_length=40)
    data = FastJSONField()
    actor = models.CharField(max_length=20, blank=True)  # the seat whose command it was, or "system"
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["room", "version", "seq"], name="games_event_order_unique")]
        indexes = [models.Index(fields=["hand", "version", "seq"], name="games_event_hand_order")]
        ordering = ["version", "seq"]

    def __str__(self) -> str:
        return f"{self.room_id} v{self.version}.{self.seq} {self.type}"


class HandSeat(models.Model):
    """Who played a hand and how it went for them (the records page reads this)."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hand_seats")
    seat_id = models.CharField(max_length=20)
    role = models.CharField(max_length=10)  # banker, challenger, side
    delta = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hand", "user"], name="games_handseat_unique")]
        indexes = [models.Index(fields=["user", "-hand"], name="games_handseat_user")]

    def __str__(self) -> str:
        return f"{self.seat_id} in hand {self.hand_id}: {self.delta:+d}"


class ShareLink(models.Model):
    """A link that a reader of a record made for others: its unguessable token, who made it and when, and when it
    was revoked (a revoked link stays, with its time, for the admin)."""

    token = models.CharField(_("token"), max_length=22, unique=True, default=new_invite_token, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("made"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        abstract = True


class HandShare(ShareLink):
    """A link to one hand record: anyone logged in reads the hand through it until its maker revokes it
    (games/hand_records.py)."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="shares")

    class Meta:
        verbose_name = _("hand share link")
        verbose_name_plural = _("hand share links")

    def __str__(self) -> str:
        return f"share of hand {self.hand_id} by {self.created_by_id}"

    def get_absolute_url(self) -> str:
        return reverse("games:hand_shared", kwargs={"token": self.token})


class LedgerShare(ShareLink):
    """A link to a closed room's settle-up (games/ledger.py), made by a person who sat there: anyone who has it, logged
    in or not, sees the room's nets and its transfers until the maker or the room's host revokes it."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="ledger_shares")

    class Meta:
        verbose_name = _("settle-up share link")
        verbose_name_plural = _("settle-up share links")

    def __str__(self) -> str:
        return f"share of room {self.room_id}'s settle-up by {self.created_by_id}"

    def get_absolute_url(self) -> str:
        return reverse("games:ledger_shared", kwargs={"token": self.token})


class RoomVisit(models.Model):
    """A user came to a room's table (its page): from then on they watched it, so its hands that end afterwards
    are theirs to read. One row per user and room, with the first time."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    first_at = models.DateTimeField(_("first came"), default=timezone.now)

    class Meta:
        verbose_name = _("room visit")
        verbose_name_plural = _("room visits")
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="games_one_visit_per_room")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.room_id} since {self.first_at:%Y-%m-%d %H:%M}"
