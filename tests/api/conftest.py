"""The API's tests: a JSON call with a token (or a session), and the table cast of tests/games (alice, bob, chen and
dara, with its table settings: Celery inline, no bot pause) and its daphne process (`web`)."""

import json

import pytest
from django.core.cache import cache

from accounts.tokens import token_create
from tests.games.conftest import _table_settings, cast, clock, no_resync, web  # noqa: F401  (fixtures for this folder too)


@pytest.fixture(autouse=True)
def _no_rate_limits_left():
    cache.clear()  # the sign-in limit counts in the cache
    yield
    cache.clear()


def token_of(user, name: str = "test") -> str:
    return token_create(user=user, name=name)[1]


def call(client, method: str, path: str, *, token: str | None = None, body=None, raw: bytes | None = None):
    """One API request: (status, the JSON answer). `body` is sent as JSON, `raw` as it is."""
    data = raw if raw is not None else (json.dumps(body) if body is not None else "")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = client.generic(method, path, data, content_type="application/json", headers=headers)
    assert response["Content-Type"] == "application/json", response.content[:300]
    return response.status_code, response.json()
