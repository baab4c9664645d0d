"""The socket's edges as a real daphne process serves them (docs/protocol.md, "Connecting"): the close code of a frame
too big and the refusal of an unrouted path. WebsocketCommunicator does not see what daphne does with either (a close
code daphne will not send, an exception in the routing), so these tests run daphne itself."""

import json

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from games import services
from games.consumers import CLOSE_TOO_BIG
from tests.games.conftest import make_player
from tests.games.processes import Player

pytestmark = pytest.mark.django_db(transaction=True)


def close_code(player: Player, text: str) -> int:
    """Send `text` and read until the server closes the socket; the close code the client received."""
    player.ws.send(text)
    with pytest.raises(ConnectionClosed) as closed:
        player.drain(10)
    return closed.value.rcvd.code


def test_a_frame_over_16_kib_closes_the_socket_with_the_documented_code(web):
    alice, bob = make_player("alice"), make_player("bob")
    room = services.room_create(host=alice, preset="ten-half")
    player = Player(bob)
    try:
        player.connect(web.base, room.code)
        code = close_code(player, json.dumps({"type": "ping", "pad": "x" * 17 * 1024}))
        assert code == CLOSE_TOO_BIG == 4409  # docs/protocol.md, "Connecting"
        # 6,000 characters of CJK chat are 18,000 bytes of UTF-8: over the limit too, though under 16 Ki characters.
        player.connect(web.base, room.code)
        chat = json.dumps({"type": "chat", "text": "十" * 6000}, ensure_ascii=False)
        code = close_code(player, chat)
        assert code == CLOSE_TOO_BIG == 4409  # docs/protocol.md, "Connecting"
    finally:
        player.close()
    assert "Traceback" not in web.log(), web.log()


def test_an_unrouted_socket_path_is_refused_at_the_handshake(web):
    cookie = Player(make_player("bob")).cookie  # a logged-in user: the path alone is refused
    for path in ("/ws/rooms/12345/", "/abcd/", "/ws/rooms/1234", "/ws/rooms/abcd/"):
        with pytest.raises(InvalidStatus) as refused:
            connect(web.base.replace("http://", "ws://") + path, origin=web.base, open_timeout=10,
                    additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"})
        assert refused.value.response.status_code == 403, path
    assert "Traceback" not in web.log(), web.log()
