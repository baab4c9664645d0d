"""Clubs: groups of regular players with their members and their requests to join."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.models.rooms import new_invite_token


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
