"""Who watches a room without a seat (games/services/watchers.py): each process keeps its spectators in memory and
publishes them in a cache slot of the room that it alone writes; two processes never overwrite each other's, and a
process that stops beating loses its spectators when its slot expires. Two processes are played here by swapping
the module's process name and memory."""

import pytest
from django.core.cache import cache

from games.services import watchers

pytestmark = pytest.mark.django_db  # the defaults' cache is a table of the database

ROOM = 987_654  # a room id no test creates: the slots are the cache's alone


@pytest.fixture
def processes(monkeypatch):
    """Two processes, "A" and "B": `switch(name)` makes the module run as that one (its own memory and slots)."""
    memory = {name: ({}, {}) for name in ("A", "B")}

    def switch(name: str) -> None:
        local, slots = memory[name]
        monkeypatch.setattr(watchers, "PROCESS", name)
        monkeypatch.setattr(watchers, "_local", local)
        monkeypatch.setattr(watchers, "_slots", slots)

    switch("A")
    yield switch
    for slot in range(watchers.SLOTS):
        cache.delete(watchers._slot_key(ROOM, slot))


def slots() -> dict[int, dict]:
    found = cache.get_many([watchers._slot_key(ROOM, s) for s in range(watchers.SLOTS)])
    return {int(key.rsplit(":", 1)[1]): value for key, value in found.items()}


def test_two_processes_publish_in_slots_of_their_own(processes):
    assert watchers.watch_add(ROOM, "a1", 1) == (set(), {1})
    assert watchers.watch_add(ROOM, "a2", 1) == ({1}, {1})  # a second tab of the same user changes nothing
    processes("B")
    assert watchers.watch_add(ROOM, "b1", 2) == ({1}, {1, 2})
    assert watchers.watch_add(ROOM, "b2", 3) == ({1, 2}, {1, 2, 3})
    assert slots() == {0: {"p": "A", "u": [1]}, 1: {"p": "B", "u": [2, 3]}}
    processes("A")
    assert watchers.watch_drop(ROOM, "a1") == ({1, 2, 3}, {1, 2, 3})  # user 1's other tab still watches
    assert watchers.watch_drop(ROOM, "b1") is None  # not this process's socket: nothing read or written
    assert watchers.watch_drop(ROOM, "a2") == ({1, 2, 3}, {2, 3})
    assert slots() == {1: {"p": "B", "u": [2, 3]}}  # A gave its slot up; B's untouched
    processes("B")
    assert watchers.watching(ROOM) == {2, 3}
    watchers.watch_beat()
    assert slots() == {1: {"p": "B", "u": [2, 3]}}


def test_a_process_that_stops_beating_loses_its_spectators_when_its_slot_expires(processes):
    watchers.watch_add(ROOM, "a1", 1)
    processes("B")
    watchers.watch_add(ROOM, "b1", 2)
    assert watchers.watching(ROOM) == {1, 2}
    cache.delete(watchers._slot_key(ROOM, 0))  # A's slot, PROCESS_TTL after A's last beat
    assert watchers.watching(ROOM) == {2}
    processes("A")  # A was only slow: its next beat takes a free slot again, and overwrites nobody's
    watchers.watch_beat()
    assert slots() == {0: {"p": "A", "u": [1]}, 1: {"p": "B", "u": [2]}}


def test_a_process_whose_slot_another_took_takes_another(processes):
    watchers.watch_add(ROOM, "a1", 1)
    cache.delete(watchers._slot_key(ROOM, 0))
    processes("B")
    watchers.watch_add(ROOM, "b1", 2)  # slot 0 was free: B's now
    processes("A")
    watchers.watch_beat()
    assert slots() == {0: {"p": "B", "u": [2]}, 1: {"p": "A", "u": [1]}}
