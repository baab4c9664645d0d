"""Who watches a room without a seat, counted without writing the table (docs/rules.md, "Spectators"). Below
spectators.py, beside presence.py.

Each web process keeps its own spectators' sockets in memory (`_local`: {room id: {socket: user id}}), from the table
socket's open, stand-up, sit-down and close (games/watching.py). For every room it has spectators in, it publishes the
sorted user ids in one cache key that it alone writes: a *slot* of the room, `games:watch:<room>:<n>` holding
{"p": process, "u": [user ids]}, for PROCESS_TTL seconds, written again at every change and every process beat
(`watch_beat`). A process takes the first free slot of a room with the cache's `add` (Redis's SET NX: two processes
never take the same slot, so they never overwrite each other's spectators), and gives it up when its last spectator
of the room leaves. A process that dies stops refreshing its slots: its spectators vanish within PROCESS_TTL.

Who watches = the union of the room's slots (one `get_many` of SLOTS keys), minus the seated users and the users the
host removed (both in `Table.meta`, read without a lock). No row lock and no write of the table row: the table row is
the contended one of every command, and a socket's close that wrote it raced PostgreSQL's flush between tests.

The room's `spectators` frame goes out when a change made here changes who watches; a process that died leaves the
count shown until the room's next change.
"""

import logging
import threading

from django.core.cache import cache

from games.services.presence import PROCESS, PROCESS_TTL

logger = logging.getLogger(__name__)

SLOTS = 32  # processes with spectators in one room at once; a further one's spectators go uncounted (logged)

_local: dict[int, dict[str, int]] = {}  # this process's spectators: {room id: {socket channel name: user id}}
_slots: dict[int, int] = {}  # room id -> the slot this process holds in it
# The database threads of one process (games/socket_db.py) change `_local` and write the slots in turn: a slot
# written out of order would publish an older set of spectators.
_lock = threading.Lock()


def _slot_key(room_id: int, slot: int) -> str:
    return f"games:watch:{room_id}:{slot}"


def _users(room_id: int) -> list[int]:
    return sorted(set((_local.get(room_id) or {}).values()))


def _publish(room_id: int) -> None:
    """Write this process's slot of the room from `_local` (holding `_lock`), taking a slot first if needed, or give
    the slot up when the process has no spectator there any more."""
    users = _users(room_id)
    slot = _slots.get(room_id)
    if not users:
        _local.pop(room_id, None)
        if slot is not None:
            del _slots[room_id]
            if (cache.get(_slot_key(room_id, slot)) or {}).get("p") == PROCESS:  # ours until it expires
                cache.delete(_slot_key(room_id, slot))
        return
    value = {"p": PROCESS, "u": users}
    if slot is not None:
        key = _slot_key(room_id, slot)
        held = cache.get(key)
        # Written within PROCESS_BEAT, so ours for PROCESS_TTL - PROCESS_BEAT seconds more: `set` overwrites nobody.
        if held is not None and held.get("p") == PROCESS:
            cache.set(key, value, PROCESS_TTL)
            return
        if held is None and cache.add(key, value, PROCESS_TTL):  # expired (the cache was cleared): ours again
            return
    for slot in range(SLOTS):
        if cache.add(_slot_key(room_id, slot), value, PROCESS_TTL):
            _slots[room_id] = slot
            return
    _slots.pop(room_id, None)
    logger.warning("room %s: every spectators' slot is taken; this process's spectators go uncounted", room_id)


def _others(room_id: int) -> set[int]:
    """The users of the other processes' slots of the room."""
    found = cache.get_many([_slot_key(room_id, slot) for slot in range(SLOTS)])
    return {u for value in found.values() if value.get("p") != PROCESS for u in value.get("u", ())}


def watch_add(room_id: int, socket: str, user_id: int) -> tuple[set[int], set[int]]:
    """A socket of `user_id`, without a seat, watches the room from now on. Returns the users of every process's
    slots before and after (seated and removed users not taken out yet)."""
    with _lock:
        others = _others(room_id)
        before = others | set(_users(room_id))
        _local.setdefault(room_id, {})[socket] = user_id
        _publish(room_id)
        return before, others | set(_users(room_id))


def watch_drop(room_id: int, socket: str) -> tuple[set[int], set[int]] | None:
    """The socket closed, or its user sat down: it watches no more. Returns as `watch_add`; None when the socket
    was not watching (a seat's socket), which reads and writes nothing."""
    with _lock:
        sockets = _local.get(room_id)
        if not sockets or socket not in sockets:
            return None
        others = _others(room_id)
        before = others | set(_users(room_id))
        del sockets[socket]
        _publish(room_id)
        return before, others | set(_users(room_id))


def watching(room_id: int) -> set[int]:
    """The users of every process's slots of the room (seated and removed users not taken out)."""
    with _lock:
        return _others(room_id) | set(_users(room_id))


def watch_beat() -> None:
    """Write this process's slots again, before they expire (from the table socket's process beat)."""
    with _lock:
        for room_id in list(_local):
            try:
                _publish(room_id)
            except Exception:  # the cache away: the next beat tries again
                logger.exception("spectators' slot of room %s", room_id)
