"""Rooms, their live table and the record of every hand.

- `Room`: what the host created (code, invite link, preset and rules, beans or points, humans or AI).
- `Table`: the live engine state of a room (one row, the lock every command takes), its version and
  the next moment something is due (`wake_at`: a deadline, a bot's turn, the next hand).
- `Seat`: a user (or a bot account) at the table, with the wallet hold behind its stack.
- `Hand`, `HandEvent`, `HandSeat`: the record of each hand (frozen rules, shuffle commitment, seed
  revealed afterwards, the room's hash chain, every event in order, each seat's net result), read by its
  unguessable `key`.
- `HandShare`, `RoomVisit`: who else may read a hand record: a share link, the users who came to the room
  (docs/rules.md, "Who may read a hand record").
- `LedgerShare`: a link to a closed room's settle-up (docs/ledger.md).
- `ChatMessage`: the room's chat.

Writes go through games.services only. `Table.state` holds secrets (the stock, face-down cards):
it never leaves the server except through `engine.view`.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine import PRESETS
from games.fields import FastJSONField
from wallets.models import Currency

PRESET_CHOICES = [
    ("ten-half", _("Ten and a Half")),
    ("seven-half", _("Seven and a Half")),
    ("zhejiang-ten-half", _("Zhejiang Ten and a Half")),
    ("ban-luck", _("Chinese Blackjack")),
]
assert {slug for slug, _label in PRESET_CHOICES} == set(PRESETS)


def new_invite_token() -> str:
    """An unguessable URL token: 22 characters, 128 random bits (invites, hand keys, share links)."""
    return secrets.token_urlsafe(16)


class Club(models.Model):
    """A group of regular players: members, admins, its own rooms and variants, a leaderboard."""

    name = models.CharField(_("name"), max_length=60, unique=True)
    description = models.CharField(_("description"), max_length=500, blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_clubs")
    invite_token = models.CharField(_("invite token"), max_length=32, unique=True, default=new_invite_token)
    join_code = models.CharField(_("join code"), max_length=8, unique=True)
    open_joining = models.BooleanField(_("anyone with the link or code joins at once"), default=False)
    members_create_rooms = models.BooleanField(_("members may open club rooms"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    dissolved_at = models.DateTimeField(_("dissolved"), null=True, blank=True)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("clubs:club", kwargs={"pk": self.pk})

    @property
    def is_active(self) -> bool:
        return self.dissolved_at is None


class ClubMember(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", _("owner")
        ADMIN = "admin", _("admin")
        MEMBER = "member", _("member")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="club_memberships")
    role = models.CharField(_("role"), max_length=6, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    muted_until = models.DateTimeField(_("muted in club chat until"), null=True, blank=True)

    class Meta:
        verbose_name = _("club member")
        verbose_name_plural = _("club members")
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="games_one_membership_per_club"),
            models.UniqueConstraint(fields=["club"], condition=Q(role="owner"), name="games_one_owner_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.club_id} ({self.role})"

    @property
    def is_admin(self) -> bool:
        return self.role in (self.Role.OWNER, self.Role.ADMIN)


class ClubJoinRequest(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        DENIED = "denied", _("denied")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="join_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(_("asked"), auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)

    class Meta:
        verbose_name = _("request to join")
        verbose_name_plural = _("requests to join")
        constraints = [models.UniqueConstraint(fields=["club", "user"], condition=Q(status="pending"),
                                               name="games_one_pending_request")]

    def __str__(self) -> str:
        return f"{self.user_id} -> {self.club_id} ({self.status})"


class GameSetting(models.Model):
    """Platform switches per game, kept by moderators in the admin."""

    preset = models.CharField(_("game"), max_length=20, choices=PRESET_CHOICES, unique=True)
    available_in_clubs = models.BooleanField(_("available in clubs"), default=True)

    class Meta:
        verbose_name = _("game setting")
        verbose_name_plural = _("game settings")

    def __str__(self) -> str:
        return self.preset


class Room(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("status", "open")
        CLOSED = "closed", _("closed")

    class Kind(models.TextChoices):
        HUMANS = "humans", _("friends")
        AI = "ai", _("practice with bots")

    # Four digits, unique among open rooms (a closed room's code can be reused).
    code = models.CharField(_("code"), max_length=4)
    invite_token = models.CharField(_("invite token"), max_length=32, unique=True, default=new_invite_token)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_rooms")
    preset = models.CharField(_("game"), max_length=20, choices=PRESET_CHOICES)
    overrides = FastJSONField(_("rule overrides"), default=dict, blank=True)
    # The validated rule set (engine Rules JSON) that the next hand will use.
    rules = FastJSONField(_("rules"))
    currency = models.CharField(_("chips"), max_length=6, choices=Currency.choices)
    kind = models.CharField(_("players"), max_length=6, choices=Kind.choices, default=Kind.HUMANS)
    bot_level = models.CharField(_("bot level"), max_length=6, default="basic")
    buy_in_min = models.PositiveIntegerField(_("smallest buy-in"))
    buy_in_max = models.PositiveIntegerField(_("largest buy-in"))
    status = models.CharField(_("status"), max_length=6, choices=Status.choices, default=Status.OPEN)
    club = models.ForeignKey(Club, on_delete=models.PROTECT, null=True, blank=True, related_name="rooms")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        constraints = [
            models.UniqueConstraint(fields=["code"], condition=Q(status="open"), name="games_room_open_code_unique"),
            models.CheckConstraint(name="games_room_code_four_digits", condition=Q(code__regex=r"^[0-9]{4}$")),
            models.CheckConstraint(name="games_room_buy_in_range", condition=Q(buy_in_min__gte=1)
                                   & Q(buy_in_max__gte=models.F("buy_in_min"))),
        ]

    def __str__(self) -> str:
        return f"{self.code} ({self.preset})"

    def get_absolute_url(self) -> str:
        return reverse("games:room", kwargs={"code": self.code})

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


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


class Table(models.Model):
    """The one row every command on a room locks (select_for_update): one writer per table."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, primary_key=True, related_name="table")
    state = FastJSONField()  # engine.state_to_json: secrets included, never sent as is
    version = models.PositiveBigIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)  # the engine's current deadline
    wake_at = models.DateTimeField(null=True, blank=True, db_index=True)  # next thing due; the sweeper reads it
    # The ETA of the one wake task a worker holds for this table (games/services/save.py, `_arm`): a command that
    # moves the deadline later sends no new task; the pending one re-arms when it finds nothing due.
    wake_sent_at = models.DateTimeField(null=True, blank=True)
    # Service bookkeeping kept under the same lock (games/services/run.py, "meta"): user -> seat ids,
    # seat -> hold ids, recent action ids, timeout streaks, away marks.
    meta = FastJSONField(default=dict)
    hand = models.ForeignKey(Hand, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return f"table {self.pk} v{self.version}"


class Seat(models.Model):
    class Role(models.TextChoices):
        MAIN = "main", _("main seat")
        SIDE = "side", _("side bettor")

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    role = models.CharField(_("role"), max_length=4, choices=Role.choices)
    position = models.PositiveSmallIntegerField(_("position"))
    bot = models.CharField(_("bot level"), max_length=6, blank=True)
    hold = models.ForeignKey("wallets.Account", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    buy_in = models.PositiveIntegerField(_("buy-in"))
    connected = models.BooleanField(_("connected"), default=False)
    away = models.BooleanField(_("away"), default=False)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    left_at = models.DateTimeField(_("left"), null=True, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["room", "user"], condition=Q(left_at__isnull=True),
                                    name="games_one_seat_per_user_per_room"),
        ]

    def __str__(self) -> str:
        return f"{self.engine_id} in {self.room_id}"

    @property
    def engine_id(self) -> str:
        """The seat's id inside the engine state."""
        return f"s{self.pk}"

    @property
    def seat_ref(self) -> str:
        """The wallet hold's seat reference (one open hold per seat)."""
        return f"room{self.room_id}:s{self.pk}"


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


class ChatMessage(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.CharField(max_length=500)
    hidden = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.text[:40]}"


class HouseVariant(models.Model):
    """A named rule set (a preset plus overrides) saved by a moderator; offered in the lobby."""

    name = models.CharField(_("name"), max_length=60)
    description = models.CharField(_("description"), max_length=300, blank=True)
    preset = models.CharField(_("game"), max_length=20, choices=PRESET_CHOICES)
    overrides = models.JSONField(_("rule overrides"), default=dict, blank=True)
    active = models.BooleanField(_("offered in the lobby"), default=True)
    # A club's own variant is offered only in that club; None: a platform variant (the lobby).
    club = models.ForeignKey(Club, on_delete=models.CASCADE, null=True, blank=True, related_name="variants")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("house variant")
        verbose_name_plural = _("house variants")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["name"], condition=Q(club__isnull=True), name="games_variant_name_unique"),
            models.UniqueConstraint(fields=["club", "name"], name="games_club_variant_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class ModerationLog(models.Model):
    """Append-only: who did what to whom, why and when. Written by games.moderation only; the admin
    shows it read-only and PostgreSQL refuses UPDATE and DELETE (migration 0003)."""

    class Action(models.TextChoices):
        BAN = "ban", _("ban")
        UNBAN = "unban", _("unban")
        MUTE = "mute", _("mute")
        UNMUTE = "unmute", _("unmute")
        KICK = "kick", _("kick a seat")
        CLOSE_ROOM = "close_room", _("close a room")
        HIDE_MESSAGE = "hide_message", _("hide a chat message")
        RULES = "rules", _("change a room's rules")
        REPORT = "report", _("resolve a report")

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    target_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="moderation_received")
    room = models.ForeignKey(Room, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    message = models.ForeignKey(ChatMessage, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, null=True, blank=True, related_name="+")  # a club admin's
    reason = models.TextField(_("reason"))
    details = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")
        ordering = ["-pk"]
        permissions = [
            ("ban_user", _("Can ban and unban players")),
            ("mute_user", _("Can mute and unmute players")),
            ("moderate_room", _("Can kick seats, close rooms, hide chat and change a room's rules")),
        ]
        constraints = [models.CheckConstraint(name="games_moderation_has_reason", condition=~Q(reason=""))]

    def __str__(self) -> str:
        return f"{self.actor_id} {self.action} {self.target_user_id or self.room_id or ''}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("the moderation log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("the moderation log is append-only")


class Report(models.Model):
    """A player's report of a chat message or a player, queued for moderators."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("status", "open")
        ACTIONED = "actioned", _("actioned")
        DISMISSED = "dismissed", _("dismissed")

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports_made")
    target_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports")
    room = models.ForeignKey(Room, on_delete=models.PROTECT, null=True, blank=True, related_name="reports")
    message = models.ForeignKey(ChatMessage, on_delete=models.PROTECT, null=True, blank=True, related_name="reports")
    reason = models.CharField(_("reason"), max_length=500)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField(_("reported"), auto_now_add=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="+")
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    resolution = models.CharField(_("resolution"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["status", "-pk"]

    def __str__(self) -> str:
        return f"report {self.pk} on {self.target_user_id} ({self.status})"
