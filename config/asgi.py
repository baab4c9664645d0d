"""ASGI entry point: HTTP goes to Django, WebSockets to the game consumers.

WebSockets pass AllowedHostsOriginValidator (a page on another site cannot open a socket
with our cookies) and AuthMiddlewareStack (the session user is on the scope).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)


def _tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's full passes rare and short in a web process.

    A full pass stops the process: it held up every table of the process for 85 to 200 ms of CPU every 10
    to 15 s at 200 tables, and those pauses were most of the p99 latency (docs/performance.md, "Pauses").
    Objects that live as long as the process (modules, the URL conf, Django's caches; about 105,000) are
    frozen out of every pass, and a full pass waits for 1,000 younger passes instead of 10: at 500 tables
    about one every 10 minutes instead of one a minute, when it still took 110 to 160 ms in both processes at
    once, each time within a 30 s window (docs/performance.md, Stop 22). Memory held by cyclic garbage is freed
    later, never kept (about 9,000 objects a minute a process at 500 tables); young passes still run at the
    standard pace. WEB_GC_FULL_AFTER sets the number of younger passes (10 is Python's own default)."""
    import gc

    from django.urls import get_resolver

    get_resolver().check()  # imports every view now, so that it is frozen with the rest
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, int(os.environ.get("WEB_GC_FULL_AFTER", "1000")))


_tune_garbage_collector()
