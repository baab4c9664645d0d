from django.urls import re_path

from . import consumers

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>\d{4})/$", consumers.TableConsumer.as_asgi()),
]
