"""The bare-Channels baseline: `daphne benchmarks.bare_asgi:application`, driven by `loadtest --bare`.

The same server (daphne), the same channel layer (Django settings, so REDIS_URL picks the same
backend as HalfPoint) and the same clients as the real tables, with nothing behind the socket: no
session, no database, no engine. A command `{"type": "action", "action_id", "version", "args"}` is
relayed to the table's group, and every seat receives `{"type": "update", "version", "view": args}`, the
sender's with its `ack` (the `action_id`), as HalfPoint's. What HalfPoint costs above this is our own code.
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
        await self.channel_layer.group_send(self.group, {"type": "relay", "version": message["version"],
                                                         "payload": message.get("args"), "by": self.channel_name,
                                                         "ack": message["action_id"]})

    async def relay(self, event: dict) -> None:
        update = {"type": "update", "version": event["version"], "view": event["payload"], "events": []}
        if event["by"] == self.channel_name:  # the sender's ack rides in its update, as HalfPoint's does
            update["ack"] = event["ack"]
        await self.send(text_data=json.dumps(update))


application = ProtocolTypeRouter({
    "websocket": URLRouter([re_path(r"^ws/rooms/(?P<code>\w+)/$", Relay.as_asgi())]),
})
