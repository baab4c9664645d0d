"""Suite-wide test setup.

Tests marked `services` need the real PostgreSQL and Redis. They run only when
DATABASE_URL points at PostgreSQL and REDIS_URL is set (the second pass of .ci/run);
in the default SQLite pass they are reported as skipped, never as passed.
"""

import os

import pytest

ON_SERVICES = os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(os.environ.get("REDIS_URL"))


def pytest_collection_modifyitems(config, items):
    if ON_SERVICES:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (see .ci/run)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # Real hashing is slow and not what these tests are about.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
