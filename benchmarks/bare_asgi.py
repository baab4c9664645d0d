"""The bare-Channels baseline: `daphne benchmarks.bare_asgi:application`, driven by `loadtest --bare`.

The same server (daphne), the same channel layer (Django settings, so REDIS_URL picks the same
backend as HalfPoint) and the same clients as the real tables, with nothing behind the socket: no
session, no database, no engine. A command `{"type": "action", "action_id", "version", "args"}` is
acked to its sender and relayed to the table's group, and every seat receives
`{"type": "update", "version", "view": args}`. What HalfPoint costs above this is our own code.
"""

import json
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402


class Relay(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = "bare." + self.scope["url_route"]["kwargs"]["code"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data='{"type":"snapshot","version":0}')

    async def disconnect(self, code) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        message = json.loads(text_data)
        version = message["version"]
        await self.channel_layer.group_send(self.group, {"type": "relay", "version": version,
                                                         "payload": message.get("args")})
        await self.send(text_data=json.dumps({"type": "ack", "action_id": message["action_id"], "version": version}))

    async def relay(self, event: dict) -> None:
        await self.send(text_data=json.dumps({"type": "update", "version": event["version"],
                                              "view": event["payload"], "events": []}))


application = ProtocolTypeRouter({
    "websocket": URLRouter([re_path(r"^ws/rooms/(?P<code>\w+)/$", Relay.as_asgi())]),
})
