"""A read replica for the pages that only read (docs/deploy.md, "A read replica").

With DATABASE_REPLICA_URL set, the `replica` alias is a streaming replica of the primary. A view marked
`reads_from_replica` reads there; every other view, every write and every read inside a transaction (the table's
locked path, a check before a write) use the primary. A browser that has just written (any unsafe request) reads
from the primary for PIN_SECONDS, so its own write is on its next page however far the replica lags.
"""

import contextvars
import functools
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import Http404

REPLICA = "replica"
PIN_COOKIE = "primary_reads"  # until when (Unix time) this browser reads from the primary
PIN_SECONDS = 5
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")

_on_replica = contextvars.ContextVar("on_replica", default=False)


def pinned(request) -> bool:
    """This request reads from the primary: it writes, or its browser wrote less than PIN_SECONDS ago."""
    if request.method not in SAFE_METHODS:
        return True
    try:
        return float(request.COOKIES.get(PIN_COOKIE, 0)) > time.time()
    except ValueError:
        return False


def reads_from_replica(view):
    """`view` reads from the replica, unless there is none or the browser is pinned to the primary. The session
    and the user are read from the primary first (a logout or a ban counts at once), and a page the replica does
    not have yet (a hand that ended a moment ago) is read again from the primary."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if REPLICA not in connections.settings or pinned(request):
            return view(request, *args, **kwargs)
        _ = request.user.is_authenticated  # loads the lazy user and the session now, from the primary
        token = _on_replica.set(True)
        try:
            return view(request, *args, **kwargs)
        except Http404:
            pass
        finally:
            _on_replica.reset(token)
        return view(request, *args, **kwargs)

    return wrapped


class ReplicaRouter:
    """Reads inside `reads_from_replica` go to the replica, outside any transaction; everything else goes to the
    primary. Migrations run on the primary only: the replica copies them."""

    def db_for_read(self, model, **hints):
        if _on_replica.get() and not connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return REPLICA
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # the same rows on both

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


class PrimaryPinMiddleware:
    """After an unsafe request (a form that writes), the browser's next PIN_SECONDS of pages read from the primary.
    Installed by config/settings.py when there is a replica."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method not in SAFE_METHODS:
            response.set_cookie(PIN_COOKIE, str(int(time.time()) + PIN_SECONDS + 1), max_age=PIN_SECONDS + 1,
                                secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax")
        return response
