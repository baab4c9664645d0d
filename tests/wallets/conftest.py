"""The cast: alice, bob, chen and dara, each with 1000 welcome beans and 500 points."""

import itertools

import pytest
from django.contrib.auth import get_user_model

WELCOME = 1000
CEILING = 500
BONUS = 100

_keys = itertools.count()


def key(prefix: str = "k") -> str:
    """A fresh idempotency key."""
    return f"test:{prefix}:{next(_keys)}"


@pytest.fixture(autouse=True)
def _small_wallet_numbers(settings):
    # The ledger on its own: holds here have no game seat behind them (the games tests audit with it).
    del settings.WALLETS_LIVE_SEAT_REFS
    settings.WELCOME_BEANS = WELCOME
    settings.PRACTICE_POINTS_CEILING = CEILING
    settings.DAILY_BONUS_BEANS = BONUS


def make_player(name: str, **extra):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw-long-enough-1", **extra)


@pytest.fixture
def alice(db):
    return make_player("alice")


@pytest.fixture
def bob(db):
    return make_player("bob")


@pytest.fixture
def chen(db):
    return make_player("chen")


@pytest.fixture
def dara(db):
    return make_player("dara")


@pytest.fixture
def admin_user(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw-long-enough-1")
