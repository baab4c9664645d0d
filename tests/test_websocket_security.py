"""The socket door: a foreign Origin is refused, an anonymous visitor is closed."""

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.consumers import CLOSE_UNAUTHENTICATED

pytestmark = pytest.mark.usefixtures("fresh_layer")


async def test_websocket_from_a_foreign_origin_is_refused():
    comm = WebsocketCommunicator(application, "/ws/rooms/1234/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await comm.connect()
    assert connected is False
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_websocket_from_an_anonymous_visitor_is_closed():
    comm = WebsocketCommunicator(application, "/ws/rooms/1234/", headers=[(b"origin", b"http://127.0.0.1:8000")])
    await comm.connect()
    message = await comm.receive_output(timeout=5)
    assert message == {"type": "websocket.close", "code": CLOSE_UNAUTHENTICATED}
    await comm.disconnect()
