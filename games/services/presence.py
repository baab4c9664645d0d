"""Who is at the table: the open sockets of each seat's owner (`presence_set`, which the table socket calls as each
of its sockets opens and closes) and the seats whose owner has none (`_absent`, read before a hand starts:
moves.py). Above run.py and store.py.

A user may have several sockets on one room (tabs, devices), each on any daphne process. Each socket is kept in
`Table.meta["sockets"]` under the table's row lock, so the opens and closes of several processes never undo one
another (with one flag per seat, the first of two tabs to close would mark the seat disconnected). A process that dies
takes its sockets with it without closing them, so every socket names its process, and a process that serves
sockets says it is alive in the cache (Redis in production, shared by every process) every PROCESS_BEAT seconds
(`process_beat`, from a task of the table socket's, games/consumers.py): a socket of a process not heard of for
PROCESS_TTL seconds counts as closed.
"""

import time
import uuid

from django.core.cache import cache
from django.db import transaction

from games.models import Seat, Table
from games.services import run as runs
from games.services.run import _meta_defaults
from games.services.store import _lock_table_row

PROCESS = uuid.uuid4().hex[:16]  # this process, in the sockets it opens
PROCESS_BEAT = 30.0
PROCESS_TTL = 120  # seconds: four beats missed
_beaten: list[float] = []  # when this process last said it is alive (time.monotonic)


def _process_key(process: str) -> str:
    return f"games:process:{process}"


def process_beat() -> None:
    """Say in the cache that this process is alive, unless it did less than PROCESS_BEAT seconds ago."""
    now = time.monotonic()
    if _beaten and now - _beaten[0] < PROCESS_BEAT:
        return
    cache.set(_process_key(PROCESS), 1, PROCESS_TTL)
    _beaten[:] = [now]


def _alive(processes: set[str]) -> set[str]:
    """The processes of `processes` that are alive: this one, and those heard of within PROCESS_TTL (one cache read,
    none when every socket is this process's)."""
    others = sorted(processes - {PROCESS})
    found = cache.get_many([_process_key(p) for p in others]) if others else {}
    return (processes & {PROCESS}) | {p for p in others if _process_key(p) in found}


def _absent(run: runs._Run) -> dict[str, float]:
    """The seats whose owner has no open socket now, with since when (0.0 when not known: their process died).
    A seat whose owner never opened a socket here is not absent: nothing says so (a script, a test)."""
    meta = run.meta
    absent = dict(meta["absent"])
    tracked = {seat_id: sockets for seat_id, sockets in meta["sockets"].items() if sockets}
    processes = {p for sockets in tracked.values() for p in sockets.values()}
    if processes:
        alive = _alive(processes)
        for seat_id, sockets in tracked.items():
            if not alive.intersection(sockets.values()):
                absent.setdefault(seat_id, 0.0)
    return absent


def presence_set(*, room_id: int, user, connected: bool, socket: str = "") -> str | None:
    """One of `user`'s sockets on the room opened or closed (`socket`: its channel name). Returns the user's seat id
    when the seat's presence changed (its first open socket, or its last one closed): what the room is told; None
    otherwise, and for a user without a seat (nothing is kept for a spectator: a seat taken later is set from the
    sockets then open, games/consumers.py). The sockets of a process that died are dropped here.
    Locks: the table row, for its meta; no version, no broadcast (the caller sends the presence frame)."""
    if not Seat.objects.filter(room_id=room_id, user=user, left_at__isnull=True).exists():
        return None  # a spectator: no lock
    if connected:
        process_beat()
    with transaction.atomic():
        table = _lock_table_row(room_id)
        if table is None:
            return None
        meta = _meta_defaults(table.meta)
        seat_id = meta["users"].get(str(user.pk))
        if seat_id is None:
            return None
        was = dict(meta["sockets"].get(seat_id) or {})
        alive = _alive(set(was.values()))
        sockets = {key: p for key, p in was.items() if p in alive}
        if connected:
            sockets[socket] = PROCESS
            meta["absent"].pop(seat_id, None)
        else:
            sockets.pop(socket, None)
            if not sockets:
                meta["absent"].setdefault(seat_id, runs._now())
        if sockets:
            meta["sockets"][seat_id] = sockets
        else:
            meta["sockets"].pop(seat_id, None)
        Table.objects.filter(pk=room_id).update(meta=meta)
        if bool(was) == bool(sockets):
            return None
        Seat.objects.filter(pk=int(seat_id[1:])).update(connected=bool(sockets))
        return seat_id
