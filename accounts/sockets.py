"""Personal tokens on WebSockets (docs/protocol.md, "Connecting"): `Authorization: Bearer <token>`, never the URL.

config/asgi.py stacks them as `token_origin_validator(AuthMiddlewareStack(TokenAuthMiddleware(router)))`.
"""

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser

from .tokens import bearer_secret, token_user


def _header(scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None


def _bearer(scope) -> str | None:
    header = _header(scope, b"authorization")
    return bearer_secret(header.decode("latin1")) if header is not None else None


def token_origin_validator(inner):
    """AllowedHostsOriginValidator, except that a handshake with a bearer token and no Origin passes: browsers
    send Origin with every socket and cannot set Authorization, so such a client is no page of another site.
    A foreign Origin is refused whatever else the handshake holds."""
    checked = AllowedHostsOriginValidator(inner)

    async def app(scope, receive, send):
        if _header(scope, b"origin") is None and _bearer(scope) is not None:
            return await inner(scope, receive, send)
        return await checked(scope, receive, send)

    return app


def _token_user(secret: str):
    found = token_user(secret)
    return found[0] if found is not None else AnonymousUser()


class TokenAuthMiddleware(BaseMiddleware):
    """Inside AuthMiddlewareStack: with no session user and a bearer token, the token's user is the scope's user
    (an unknown or revoked token leaves it anonymous, and the table socket closes with 4401)."""

    async def __call__(self, scope, receive, send):
        secret = _bearer(scope)
        if secret is not None and not scope["user"].is_authenticated:
            scope = {**scope, "user": await database_sync_to_async(_token_user)(secret)}
        return await super().__call__(scope, receive, send)
