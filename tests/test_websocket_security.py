"""The socket door: a foreign Origin is refused, and so is one that is not an origin; an anonymous visitor is
closed. (What a real daphne answers to each: tests/games/test_socket_daphne.py.)"""

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.consumers import CLOSE_UNAUTHENTICATED

pytestmark = pytest.mark.usefixtures("fresh_layer")

# Each would be read as 127.0.0.1 by a check of the host alone (Channels' AllowedHostsOriginValidator), or names
# another site: the handshake is refused before anything runs.
REFUSED_ORIGINS = [
    b"http://evil.example",
    b"http://127.0.0.1.evil.example:8000",
    b"http://127.0.0.1:8000.evil.example",  # a port that is no number
    b"http://127.0.0.1:99999",  # a port out of range
    b"http://evil.example@127.0.0.1:8000",  # a user part
    b"http://user:pw@127.0.0.1:8000",
    b"http://127.0.0.1:8000/path",
    b"http://127.0.0.1:8000?q=1",
    b"http://127.0.0.1:8000#f",
    b"127.0.0.1:8000",  # no scheme
    b"null",
    b"",
    b"\xff\xfe",
]


@pytest.mark.parametrize("origin", REFUSED_ORIGINS)
@pytest.mark.parametrize("token", [False, True])
async def test_websocket_from_a_foreign_or_malformed_origin_is_refused(origin, token):
    headers = [(b"origin", origin)] + ([(b"authorization", b"Bearer hpt_whatever")] if token else [])
    comm = WebsocketCommunicator(application, "/ws/rooms/1234/", headers=headers)
    connected, _ = await comm.connect()
    assert connected is False
    await comm.disconnect()


async def test_two_origin_headers_are_refused_even_when_both_are_ours():
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")]
    comm = WebsocketCommunicator(application, "/ws/rooms/1234/", headers=headers)
    connected, _ = await comm.connect()
    assert connected is False
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("origin", [b"http://127.0.0.1:8000", b"http://localhost:8000", b"http://127.0.0.1:8000/",
                                    b"https://localhost", b"http://127.0.0.1"])
async def test_websocket_from_an_anonymous_visitor_is_closed(origin):
    comm = WebsocketCommunicator(application, "/ws/rooms/1234/", headers=[(b"origin", origin)])
    connected, _ = await comm.connect()
    assert connected is True  # past the Origin check: the consumer accepts, then closes with a readable code
    message = await comm.receive_output(timeout=5)
    assert message == {"type": "websocket.close", "code": CLOSE_UNAUTHENTICATED}
    await comm.disconnect()
