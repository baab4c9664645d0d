from channels.security.websocket import WebsocketDenier
from django.urls import re_path

from . import consumers

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>\d{4})/$", consumers.TableConsumer.as_asgi()),
    # Any other path is refused at the handshake (HTTP 403); unrouted, URLRouter raises and daphne answers 500.
    re_path(r"", WebsocketDenier.as_asgi()),
]
