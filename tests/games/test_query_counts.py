"""Exact query counts of the table's paths other than a hit or a stand (tests/games/test_services.py pins those):
a count that grows is a query added to a path every player takes, so it must be a decision, not an accident."""

import pytest
from django.db import connection

from games import selectors, services
from tests.games.conftest import bet_all, expire, seat_of, table, ten_half_table

# Commits matter: the broadcast and the next wake run on commit, as in play.
pytestmark = pytest.mark.django_db(transaction=True)


def pg(postgresql: int, sqlite: int) -> int:
    """On PostgreSQL the events' insert and the row's update are one statement (games/services/store.py)."""
    return postgresql if connection.vendor == "postgresql" else sqlite


def test_a_timeout_is_one_locked_run_and_its_wake(cast, clock, django_assert_num_queries):
    room = ten_half_table(cast)
    # Betting times out: the default stakes, then the deal. The wake's read of the row, then begin, lock, the
    # events and the row (one statement on PostgreSQL, two on SQLite), commit; no ledger write (a stake stays in
    # its seat's hold until settlement); then the wake it arms, run inline: begin, lock, commit.
    with django_assert_num_queries(pg(8, 9)):
        assert expire(room, clock) == "timeout"


def test_a_chat_message_is_a_few_queries(cast, django_assert_num_queries):
    room = ten_half_table(cast)
    with django_assert_num_queries(3):
        services.chat_post(room_id=room.pk, user=cast["bob"], text="good luck")


def test_a_snapshot_for_a_connecting_socket_is_a_few_queries(cast, django_assert_num_queries):
    room = ten_half_table(cast)
    bet_all(room, cast)
    # The table row, the seats' presence, the chat, and the current hand's events (the rebuilt table log).
    with django_assert_num_queries(4):
        frame = selectors.snapshot(room, cast["bob"])
    assert frame["version"] == table(room).version


def test_sitting_down_is_a_few_queries(cast, django_assert_num_queries):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["alice"], buy_in=500)
    with django_assert_num_queries(pg(15, 17)):
        services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    assert seat_of(room, cast["bob"]) is not None
