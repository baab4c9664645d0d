"""The room's chat, the moderators' house variants, their append-only log and the players' reports."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models.clubs import Club
from games.models.rooms import PRESET_CHOICES, Room


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
