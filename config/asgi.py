"""ASGI entry point: HTTP goes to Django, WebSockets to the game consumers.

WebSockets pass the Origin check (a page on another site cannot open a socket with our cookies; a client
with a bearer token and no Origin passes, accounts/sockets.py) and AuthMiddlewareStack (the session user
is on the scope), then TokenAuthMiddleware (else the user of an `Authorization: Bearer` token).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.sockets import TokenAuthMiddleware, token_origin_validator  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": token_origin_validator(AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))),
    }
)


def _tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's full passes rare in a web process: a full pass stops every table the
    process serves, and those pauses were most of the tail latency under load (docs/performance.md, "Garbage
    collection in the web process").

    Objects that live as long as the process are frozen out of every pass, and a full pass waits for
    WEB_GC_FULL_AFTER younger passes (Python's default is 10). Cyclic garbage is freed later, never kept."""
    import gc

    from django.urls import get_resolver

    get_resolver().check()  # imports every view now, so that it is frozen with the rest
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, int(os.environ.get("WEB_GC_FULL_AFTER", "1000")))


_tune_garbage_collector()
