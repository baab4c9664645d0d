"""Suite-wide test setup.

Tests marked `services` need the real PostgreSQL and Redis. They run only when
DATABASE_URL points at PostgreSQL and REDIS_URL is set (the second pass of .ci/run);
in the default SQLite pass they are reported as skipped, never as passed.
"""

import os

import pytest

from tests import flush

ON_SERVICES = os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(os.environ.get("REDIS_URL"))


# Tests that read no database, cache or channel layer: the engine's (it imports only the standard library, a
# lint-imports contract), the offline verifier's and the engine's simulations. They run in the defaults' pass; the
# services' pass leaves them out, since PostgreSQL and Redis would run the very same code again (docs/testing.md).
SERVICE_FREE = ("tests/engine/", "tests/test_verifier.py", "tests/games/test_simulate_each_knob.py")


def pytest_configure(config):
    flush.install()  # PostgreSQL emptied with DELETE after a transactional test (tests/flush.py)


def pytest_collection_modifyitems(config, items):
    if ON_SERVICES:
        free = [item for item in items if item.nodeid.startswith(SERVICE_FREE)]
        if free:
            config.hook.pytest_deselected(items=free)
            items[:] = [item for item in items if not item.nodeid.startswith(SERVICE_FREE)]
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (see .ci/run)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _socket_db_threads_stopped(django_db_setup, django_db_blocker):
    """After the last test, before pytest-django drops the test database (this fixture depends on it, so it
    ends first): the sockets' database threads (games/consumers.py) end, and their connections with them;
    PostgreSQL refuses to drop a database that a connection still uses."""
    yield
    from games import socket_db

    socket_db.db_threads_stop()
    with django_db_blocker.unblock():
        _other_sessions_ended()


def _other_sessions_ended() -> None:
    """PostgreSQL: the test database's sessions but this one are ended before pytest-django drops it. A server process
    a test killed can leave one behind for a moment (its socket forward, or a backend not yet told), and PostgreSQL
    refuses to drop a database in use, which leaves it for the next run to trip on. Each one ended is printed, so a
    session that outlives its test can still be traced."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, client_port, backend_start, left(query, 120), pg_terminate_backend(pid) "
                       "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        for pid, port, started, query, _ended in cursor.fetchall():
            print(f"\nended a session left on the test database: pid {pid}, client port {port}, since {started}: "
                  f"{query}")
    connection.close()


@pytest.fixture
def service():
    """A push service of the test's own (tests/pushservice.py): what the site sends to a browser's endpoint."""
    from tests.pushservice import PushService

    s = PushService()
    yield s
    s.stop()


@pytest.fixture
async def fresh_layer():
    """For every test that opens sockets: a channel layer of the test's own event loop (channels_redis binds its
    locks to the first loop that uses them; daphne has one loop for its life, each test here has its own, and a
    layer left from an earlier test fails with "bound to a different event loop"), and afterwards the sockets'
    database connection closed, so that the test database can be dropped at the end of the session."""
    from channels.db import database_sync_to_async
    from channels.layers import channel_layers
    from django.db import connections

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
    await database_sync_to_async(connections.close_all)()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # Real hashing is slow and not what these tests are about.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
