from django.contrib.auth.models import AbstractUser
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone
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

# How the 40-card Spanish-suited deck (Seven and a Half) is drawn on this user's screens (static/js/cards.js; the
# cards' names follow the language): empty follows the page's language (Spanish: the baraja; Italian: the Napoletane;
# any other: plain letters, docs/glossary.md "Cards"). The card codes, records and protocol never change.
DECK_ART = [
    ("", _("By my language")),
    ("baraja", _("Spanish (baraja)")),
    ("napoletane", _("Italian (Napoletane)")),
    ("letters", _("Plain letters")),
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
    # A bot's account: it holds the stacks of the bots of AI rooms in the ledger like any player,
    # never logs in (no usable password, inactive) and receives no welcome grant.
    is_bot = models.BooleanField(_("bot"), default=False)
    # The language chosen in the language menu (a code of settings.LANGUAGES), applied on every device the user
    # logs in on and to the e-mails sent to them (accounts/language.py). Empty: the browser's Accept-Language.
    language = models.CharField(_("language"), max_length=10, blank=True)
    deck_art = models.CharField(_("deck art"), max_length=12, blank=True, default="", choices=DECK_ART)
    # The table's screen-reader mode (docs/accessibility.md): the table told as a document, announcements and one-key
    # commands, on every device the player logs in on. Nothing about the game changes, for them or anyone else.
    screen_reader = models.BooleanField(_("screen reader mode"), default=False)
    # Moderation state, read on every socket; games/moderation.py sets it and logs who did and why.
    muted_until = models.DateTimeField(_("muted until"), null=True, blank=True)
    banned_until = models.DateTimeField(_("banned until"), null=True, blank=True)

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        """The name other players see: the display name, or the username."""
        return self.display_name or self.username

    @property
    def initial(self) -> str:
        return (self.public_name[:1] or "?").upper()

    @property
    def is_muted(self) -> bool:
        return self.muted_until is not None and self.muted_until > timezone.now()

    @property
    def is_banned(self) -> bool:
        return self.banned_until is not None and self.banned_until > timezone.now()


class ApiToken(models.Model):
    """A personal API token (docs/api.md): the secret is shown once at creation and only its SHA-256 is kept,
    so a copy of the database holds no usable token. Created and revoked on the profile page or by signing
    in through the API (accounts/tokens.py)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=60)
    secret_hash = models.CharField(_("SHA-256 of the secret"), max_length=64, unique=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.user_id})"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (accounts/push.py): where its push service takes messages for it, and
    the keys its messages are encrypted to. Deleted when the player turns notifications off on that device or the
    push service answers that it is gone."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.CharField(_("endpoint"), max_length=1000, unique=True)
    p256dh = models.CharField(_("public key"), max_length=100)  # base64url of a 65-byte P-256 point
    auth = models.CharField(_("auth secret"), max_length=40)  # base64url of 16 bytes
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"{self.user_id} {self.endpoint[:60]}"


class PushPreferences(models.Model):
    """Which moments a player is notified of, on every device they turned notifications on (accounts/push.py,
    KINDS). No row: the defaults."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="push_preferences")
    your_turn = models.BooleanField(_("my turn at a table"), default=True)
    next_hand = models.BooleanField(_("a new hand at my table while I am away"), default=False)
    club_room = models.BooleanField(_("a new room in one of my clubs"), default=False)
    night_again = models.BooleanField(_("an invitation to play a night again"), default=True)

    class Meta:
        verbose_name = _("notification preferences")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        return str(self.user_id)
