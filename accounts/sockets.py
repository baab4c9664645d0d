"""Personal tokens on WebSockets (docs/protocol.md, "Connecting"): `Authorization: Bearer <token>`, never the URL.

config/asgi.py stacks them as `token_origin_validator(AuthMiddlewareStack(TokenAuthMiddleware(router)))`.
"""

from urllib.parse import urlsplit

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier
from django.contrib.auth.models import AnonymousUser

from .tokens import bearer_secret, token_user


def _header(scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None


def _well_formed_origin(scope) -> bool:
    """The handshake's one Origin is `scheme://host[:port]`, as browsers write it. Channels' check compares the host
    alone, and would take `http://127.0.0.1:8000.evil.example` (a port that is no number) or
    `http://evil.example@127.0.0.1` (a user part) for 127.0.0.1."""
    origins = [value for key, value in scope.get("headers", []) if key == b"origin"]
    if len(origins) != 1:
        return False
    try:
        parts = urlsplit(origins[0].decode("latin1"))
        parts.port  # noqa: B018  (ValueError when the port is no number from 0 to 65535)
    except ValueError:
        return False
    return (bool(parts.scheme and parts.hostname) and parts.username is None and parts.password is None
            and parts.path in ("", "/") and not parts.query and not parts.fragment)


def _bearer(scope) -> str | None:
    header = _header(scope, b"authorization")
    return bearer_secret(header.decode("latin1")) if header is not None else None


def token_origin_validator(inner):
    """AllowedHostsOriginValidator, except that a handshake with a bearer token and no Origin passes: browsers
    send Origin with every socket and cannot set Authorization, so such a client is no page of another site.
    A foreign Origin, or one that is not an origin (`_well_formed_origin`), is refused whatever else the handshake
    holds."""
    checked = AllowedHostsOriginValidator(inner)
    denied = WebsocketDenier.as_asgi()

    async def app(scope, receive, send):
        if _header(scope, b"origin") is None:
            if _bearer(scope) is not None:
                return await inner(scope, receive, send)
        elif not _well_formed_origin(scope):
            return await denied(scope, receive, send)
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
