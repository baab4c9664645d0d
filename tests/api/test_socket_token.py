"""The table socket with a personal token (docs/protocol.md, "Connecting"): `Authorization: Bearer <token>` makes
the token's user the socket's, with or without the site's Origin; a foreign Origin is refused whatever the
handshake holds; a bad token is closed with 4401; a token in the URL counts for nothing."""

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.tokens import token_create, token_revoke
from config.asgi import application
from games import services
from games.consumers import CLOSE_UNAUTHENTICATED
from tests.api.conftest import token_of
from tests.games.sockets import ORIGIN, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

db = database_sync_to_async


def bearer(token: str) -> tuple[bytes, bytes]:
    return (b"authorization", f"Bearer {token}".encode())


async def first_frame(path: str, headers: list) -> tuple[bool, dict | int | None]:
    """Connect; (False, the refusal's code) at the handshake, else (True, the first frame as JSON, or the close
    code when the server closes first)."""
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect(timeout=10)
    if not connected:
        return False, code
    out = await comm.receive_output(timeout=10)
    await comm.disconnect(timeout=10)
    return True, json.loads(out["text"]) if out["type"] == "websocket.send" else out.get("code")


def revoked_token(user) -> str:
    token, secret = token_create(user=user, name="old")
    token_revoke(user=user, token_id=token.pk)
    return secret


@pytest.fixture
def room(cast):
    return services.room_create(host=cast["alice"], preset="ten-half")


async def test_a_token_without_an_origin_opens_the_table_as_its_user(cast, room):
    token = await db(token_of)(cast["bob"])
    for headers in ([bearer(token)], [bearer(token), ORIGIN]):
        connected, frame = await first_frame(f"/ws/rooms/{room.code}/", headers)
        assert connected and frame["type"] == "snapshot" and frame["me"]["user"] == cast["bob"].pk, headers


async def test_a_foreign_origin_is_refused_even_with_a_token(cast, room):
    token = await db(token_of)(cast["bob"])
    connected, _code = await first_frame(f"/ws/rooms/{room.code}/", [bearer(token), (b"origin", b"http://evil.example")])
    assert connected is False


async def test_without_an_origin_only_a_token_passes_the_handshake(cast, room):
    cookie = await db(session_cookie)(cast["bob"])
    for headers in ([], [(b"cookie", cookie)], [(b"authorization", b"Basic Ym9iOnB3")]):
        connected, _code = await first_frame(f"/ws/rooms/{room.code}/", headers)
        assert connected is False, headers


async def test_an_unknown_or_revoked_token_is_closed_as_anonymous(cast, room):
    revoked = await db(revoked_token)(cast["bob"])
    for secret in (revoked, "hpt_" + "x" * 43, "nothing"):
        connected, code = await first_frame(f"/ws/rooms/{room.code}/", [bearer(secret)])
        assert (connected, code) == (True, CLOSE_UNAUTHENTICATED), secret


async def test_a_token_in_the_url_counts_for_nothing(cast, room):
    token = await db(token_of)(cast["bob"])
    connected, _code = await first_frame(f"/ws/rooms/{room.code}/?token={token}", [])
    assert connected is False
    connected, code = await first_frame(f"/ws/rooms/{room.code}/?token={token}", [ORIGIN])
    assert (connected, code) == (True, CLOSE_UNAUTHENTICATED)


async def test_the_session_user_comes_before_a_token(cast, room):
    token = await db(token_of)(cast["bob"])
    cookie = await db(session_cookie)(cast["chen"])
    connected, frame = await first_frame(f"/ws/rooms/{room.code}/", [ORIGIN, (b"cookie", cookie), bearer(token)])
    assert connected and frame["me"]["user"] == cast["chen"].pk
