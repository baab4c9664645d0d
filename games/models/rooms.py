"""Rooms and their live tables: what the host created, the one row every command locks, and the seats."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
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
    ("ten-half-auction", _("Ten and a Half, bid for the bank")),
    ("seven-half-matta", _("Seven and a Half with the matta")),
    ("ban-luck-opens", _("Chinese Blackjack, the banker opens")),
]
assert {slug for slug, _label in PRESET_CHOICES} == set(PRESETS)


def is_room_code(text: str) -> bool:
    """Whether `text` can be a room's code: four ASCII digits (the `games_room_code_four_digits` constraint below).
    A path or a query that cannot be one is answered without a query ("²" is a digit to str.isdigit, not to int)."""
    return len(text) == 4 and text.isascii() and text.isdigit()


def new_invite_token() -> str:
    """An unguessable URL token: 22 characters, 128 random bits (invites, hand keys, share links)."""
    return secrets.token_urlsafe(16)


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
        CLOSED = "closed", pgettext_lazy("status", "closed")  # not the time a room or account closed: "closed"

    class Kind(models.TextChoices):
        HUMANS = "humans", _("friends")
        AI = "ai", _("practice with bots")

    class Spectators(models.TextChoices):
        # docs/rules.md, "Spectators": who may watch the table without a seat, and what they see.
        NONE = "none", _("no spectators")
        PUBLIC = "public", _("spectators see what is face up")
        TV = "tv", _("TV mode: also the cards of players who agree, one action late")

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
    spectators = models.CharField(_("spectators"), max_length=6, choices=Spectators.choices,
                                  default=Spectators.PUBLIC)
    buy_in_min = models.PositiveIntegerField(_("smallest buy-in"))
    buy_in_max = models.PositiveIntegerField(_("largest buy-in"))
    # Each buy-in and top-up of a player other than the host waits for the host's approval (games/services/approvals.py).
    approve_buy_ins = models.BooleanField(_("the host approves buy-ins"), default=False)
    status = models.CharField(_("status"), max_length=6, choices=Status.choices, default=Status.OPEN)
    club = models.ForeignKey("games.Club", on_delete=models.PROTECT, null=True, blank=True,
                             related_name="rooms")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    # The seated players may call a vote to end the room at any time, not only once the host is away (services/votes.py).
    vote_anytime = models.BooleanField(_("votes to end the room at any time"), default=False)

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


class Table(models.Model):
    """The one row every command on a room locks (select_for_update): one writer per table."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, primary_key=True, related_name="table")
    state = FastJSONField()  # engine.state_to_json: secrets included, never sent as is
    version = models.PositiveBigIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)  # the engine's current deadline
    wake_at = models.DateTimeField(null=True, blank=True, db_index=True)  # next thing due; the sweeper reads it
    # The ETA of the one wake task a worker holds for this table (games/services/save.py, `_arm`): a command that
    # moves the deadline later sends no new task; the pending one re-arms when it finds nothing due. A wake beyond
    # GAMES_WAKE_HORIZON_SECONDS has none until beat's sweeper sends it (games/services/clock.py, `arm_near`).
    wake_sent_at = models.DateTimeField(null=True, blank=True)
    # Service bookkeeping kept under the same lock (games/services/run.py, "meta"): user -> seat ids,
    # seat -> hold ids, recent action ids, timeout streaks, away marks.
    meta = FastJSONField(default=dict)
    hand = models.ForeignKey("games.Hand", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
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
