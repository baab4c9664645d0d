"""Personal API tokens (docs/api.md, "Authentication"): create, revoke, and the user a secret belongs to.

A secret is `hpt_` and 43 URL-safe characters (256 random bits); only its SHA-256 is stored, and a secret is
found by that hash (a unique index), so nothing compares secrets character by character.
"""

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from .models import ApiToken, User
from .text import storable_text

PREFIX = "hpt_"
LIVE_TOKENS_MAX = 20  # per user: a client that signs in on every run must sign out too (docs/api.md)
NAME_MAX = 60
# last_used_at is written at most this often per token: a client's every request would otherwise be a write.
TOUCH_EVERY = timedelta(minutes=1)


class TokenError(Exception):
    """A refused token operation: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = str(message)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new live token for `user` and its secret, which is not kept anywhere: show it once."""
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > NAME_MAX or not storable_text(name):
        raise TokenError("bad_name", _("A token's name is 1 to 60 characters."))
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= LIVE_TOKENS_MAX:
        raise TokenError("too_many_tokens", _("You have 20 live tokens: revoke one on your profile page first."))
    secret = PREFIX + secrets.token_urlsafe(32)
    return ApiToken.objects.create(user=user, name=name, secret_hash=secret_hash(secret)), secret


def token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's live tokens at once (its next request gets 401). False when there is none."""
    return bool(ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True)
                .update(revoked_at=timezone.now()))


def token_user(secret: str) -> tuple[User, ApiToken] | None:
    """The active user of a live token with this secret, and the token; None for anything else."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(secret_hash=secret_hash(secret), revoked_at__isnull=True, user__is_active=True).first())
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token


def bearer_secret(header: str) -> str | None:
    """The secret of an `Authorization: Bearer <secret>` header value; None when it is not one."""
    scheme, _space, secret = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()
