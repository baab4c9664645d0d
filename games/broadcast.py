"""Messages to a room's connections, sent after commit (DESIGN.md, "Broadcast after commit, versioned").

One group message per command carries the `update` frame of every viewer, made once by the process
that committed the command (games/frames.py, `update_frames`): each seat's own, and the spectators'.
Every consumer sends the one of its viewer as it is (games/consumers.py): no consumer decodes the table
state, and a face-down card is only ever in the frame of its owner's seat. Channel layers deliver at most
once, and the messages of two senders (two sockets, two processes, a Celery worker) in no given order: each
consumer puts a table's updates back in version order and fills a lost one in from the stored events
(games/consumers.py, `TableConsumer`; docs/protocol.md, "Gaps").
"""

import asyncio
import logging
import os
import threading

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from games.engine import TableState
from games.fields import text as json_text
from games.frames import chat_json, update_frames

logger = logging.getLogger(__name__)


def group_name(room_id: int) -> str:
    return f"room.{room_id}"


def _send(room_id: int, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        _group_send(layer, group_name(room_id), message)
    except Exception:  # the layer being down must not undo a committed command; clients resync
        logger.exception("broadcast to room %s failed", room_id)


# A Celery worker (the clock's wakes, the next hand) is not inside a server's event loop: there async_to_sync would
# start a new event loop for every call, and channels_redis a new Redis connection with it, many times the cost of
# the message (docs/performance.md). So it gets one loop of its own, on a thread, for its life. In a web process, a
# database thread (inside sync_to_async) hands the call to the server's loop; the in-memory layer (`make run`,
# tests) stays on async_to_sync too, since its queues belong to the loop that reads them.
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0
_loop_lock = threading.Lock()


def _in_server_thread() -> bool:
    return getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) == os.getpid()


def _own_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():  # a forked child (Celery's pool) starts its own
            _loop, _loop_pid = asyncio.new_event_loop(), os.getpid()
            threading.Thread(target=_loop.run_forever, name="broadcast-loop", daemon=True).start()
        return _loop


# Through Redis, a socket's database thread publishes what it committed itself, at once, on an event loop of that
# thread's own (made once per thread, with its own Redis connection): two commands of one table reach Redis in the
# order they committed, whatever their processes' event loops are busy with, so the consumers seldom hold an update
# for a version still on its way (games/consumers.py; docs/performance.md, "One ordered stream per table").
_threads = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    if getattr(_threads, "pid", None) != os.getpid():
        _threads.loop, _threads.pid = asyncio.new_event_loop(), os.getpid()
    return _threads.loop


def _group_send(layer, group: str, message: dict) -> None:
    outbox = getattr(_outboxes, "current", None)
    if outbox is not None and not isinstance(layer, InMemoryChannelLayer):
        _thread_loop().run_until_complete(asyncio.wait_for(layer.group_send(group, message), 10))
        return
    if outbox is not None and outbox.add(group, message):
        return  # the socket's event loop sends it when the call returns (`Outbox`)
    if _in_server_thread() or isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, message)
    else:
        asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _own_loop()).result(timeout=10)


# On the in-memory layer (`make run`, the tests), whose queues belong to the loop that reads them, a socket's database
# call (games/consumers.py, `db`) puts its broadcasts in an outbox that the socket's event loop sends, in order and
# awaited, as soon as the call returns: from the thread, async_to_sync would take two thread hand-overs per message
# (docs/performance.md). Either way the table's update goes out before the command's ack or the next message of
# that socket.
_outboxes = threading.local()


class Outbox:
    """The broadcasts of one database call, committed and waiting for the event loop (`collecting`, `flush`).
    A call whose socket was cancelled while it ran (a server shutting down) still broadcasts: `detach` hands
    what is already here to the loop, and the thread sends the rest itself as before."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict]] = []
        self.detached = False
        self.lock = threading.Lock()

    def add(self, group: str, message: dict) -> bool:
        with self.lock:
            if self.detached:
                return False
            self.messages.append((group, message))
            return True

    def detach(self) -> list[tuple[str, dict]]:
        with self.lock:
            self.detached = True
            messages, self.messages = self.messages, []
            return messages


def collecting(func):
    """`func(outbox, *args, **kwargs)` runs `func(*args, **kwargs)` with its broadcasts kept in `outbox`.
    For a thread of a socket's database pool (games/consumers.py)."""

    def call(outbox: Outbox, *args, **kwargs):
        _outboxes.current = outbox
        try:
            return func(*args, **kwargs)
        finally:
            _outboxes.current = None

    return call


async def flush(messages: list[tuple[str, dict]]) -> None:
    """Send the broadcasts of an outbox from the event loop, in the order they were committed."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # as `_send`: the layer being down must not undo a committed command; clients resync
            logger.exception("broadcast to %s failed", group)


def table_update(room_id: int, version: int, state: TableState, events: list[dict], users: dict, is_open: bool,
                 started: bool, stalled: str | None = None, watch: dict | None = None) -> None:
    """`users` maps user ids to their seat ids: a connection finds its seat, and its frame, there.
    `watch`: the room's spectators setting ("mode"), its host's user id, the users the host removed as spectators
    ("removed") and, in TV mode, the `tv` frame every
    spectator gets after the update (games/tv.py), encoded here once (games/consumers.py, `_draw_message`)."""
    frames = update_frames(version, state, events, sorted(set(users.values())), started, stalled)
    if watch is not None and watch.get("tv") is not None:
        watch = {**watch, "tv": json_text(watch["tv"])}
    _send(room_id, {"type": "table.update", "version": version, "frames": frames, "users": users,
                    "open": is_open, "watch": watch})


def chat(room_id: int, message) -> None:
    _send(room_id, {"type": "chat.message", "message": chat_json(message)})


def presence(room_id: int, seat_id: str, connected: bool) -> None:
    _send(room_id, {"type": "presence.changed", "seat": seat_id, "connected": connected})


def chat_hidden(room_id: int, message_id: int) -> None:
    _send(room_id, {"type": "chat.hidden", "id": message_id})


def room_frame(room_id: int, frame: dict) -> None:
    """A frame of codes for every socket of the room, sent as is with the socket's version added (the consumer's
    `room_frame`): the room's notices outside the table's versions, such as a clock ask and its answer
    (games/services/clock_ask.py). `frame["type"]` is the frame's type in docs/protocol.md."""
    _send(room_id, {"type": "room.frame", "frame": frame})


def clock_asked(room_id: int, seat_id: str, user_id: int) -> None:
    """A seated player asked the host for a longer clock (games/services/clock_ask.py): codes, worded by the page."""
    room_frame(room_id, {"type": "clock_asked", "seat": seat_id, "user": user_id})


def clock_answered(room_id: int, outcome: str, seconds: int | None, seats: list[str], users: list[int]) -> None:
    """The host granted `seconds` more on each clock, or dismissed: the answer to the asks of `seats` (`users`)."""
    room_frame(room_id, {"type": "clock_answered", "outcome": outcome, "seconds": seconds, "seats": seats,
                         "users": users})


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def to_user(user_id: int, kind: str) -> None:
    """Tell every open socket of a user (any room, any process): user.banned, user.muted."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        _group_send(layer, user_group(user_id), {"type": kind})
    except Exception:
        logger.exception("message to user %s failed", user_id)

