from django.contrib.auth.models import AbstractUser
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

AVATAR_COLOURS = [
    ("#e4572e", _("Vermilion")),
    ("#f3a712", _("Amber")),
    ("#29335c", _("Ink")),
    ("#669bbc", _("Sky")),
    ("#2a9d8f", _("Jade")),
    ("#8e44ad", _("Plum")),
    ("#6c757d", _("Slate")),
]


class User(AbstractUser):
    """A player, host or moderator. Created in the first migration so it can grow."""

    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    avatar_colour = models.CharField(
        _("avatar colour"),
        max_length=7,
        default=AVATAR_COLOURS[0][0],
        validators=[RegexValidator(r"^#[0-9a-fA-F]{6}$", _("A colour like #29335c."))],
    )

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        """The name other players see: the display name, or the username."""
        return self.display_name or self.username

    @property
    def initial(self) -> str:
        return (self.public_name[:1] or "?").upper()
