"""A command leaves no cyclic garbage: what it loads (the table row, its room, the parsed state and meta) is freed
by reference counting as soon as the command returns. Garbage in cycles waits for the collector, and every pass
of it stops the web process serving the table's sockets (docs/performance.md, "Garbage collection in the web
process"); a cycle formed on the hot path is a pass every few commands."""

import gc
import weakref
from contextlib import contextmanager

import pytest

from games import services
from games.engine import bot_decide, state_from_json, view
from games.services.store import _lock_table_row
from tests.games.conftest import table, ten_half_table, user_of

# Committed as in play: the broadcast and the next hand's wake (Celery eager) run on commit, inside the command.
pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def collector_off():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_the_locked_row_and_its_room_are_freed_without_the_collector(cast, django_assert_num_queries):
    room = ten_half_table(cast)
    with collector_off():
        locked = _lock_table_row(room.pk)
        with django_assert_num_queries(0):
            assert locked.room.pk == room.pk  # the room came with the row
        row, its_room = weakref.ref(locked), weakref.ref(locked.room)
        del locked
        assert row() is None
        assert its_room() is None


def test_a_whole_hand_of_commands_leaves_no_cyclic_garbage(cast):
    room = ten_half_table(cast)
    found, commands, hands = {}, 0, table(room).state["hand_no"]
    while table(room).state["hand_no"] < hands + 2 and commands < 80:  # bets, turns, settlement, the next hand
        s = state_from_json(table(room).state)
        move = next(((seat, d) for seat in table(room).meta["users"].values()
                     if (d := bot_decide(view(s, seat), "basic", s.rules)) is not None), None)
        assert move is not None, "every seat waits: the next hand did not start"
        seat, (action, args) = move
        user = user_of(room, seat)
        del s
        with collector_off():
            services.action_submit(room_id=room.pk, user=user, action=action, args=args)
            found[(commands, action)] = gc.collect()
        commands += 1
    assert table(room).state["hand_no"] >= hands + 2, "two hands did not end within 80 commands"
    assert {k: n for k, n in found.items() if n} == {}
