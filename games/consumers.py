"""The table socket, `/ws/rooms/<code>/` (docs/protocol.md). Parse and authenticate only: every
write goes through games.services, every read of the table through games.selectors.

Limits: a frame over 16 KiB closes the socket (4409); more than 20 messages in one second are
refused with a `rate_limited` error; banned users cannot connect, muted users cannot chat. Both limits are judged
as a frame arrives (games/arrivals.py), not when its turn comes after the commands before it.
"""

import asyncio
import json
import logging
import weakref
from collections import deque

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.utils.translation import gettext as _

from accounts.api import not_json
from games import hand_records, moderation, notify, selectors, services
from games.arrivals import Arrivals
from games.broadcast import group_name, presence, user_group
from games.fields import text as json_text
from games.models import Table
from games.socket_db import db
from games.watching import Watching

logger = logging.getLogger(__name__)

# Close codes (docs/protocol.md).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NO_ROOM = 4404
CLOSE_ROOM_CLOSED = 4410
CLOSE_TOO_BIG = 4409  # not 1009: an application may close only with 1000 or 3000-4999 (daphne sends 1011 instead)

MAX_FRAME = 16 * 1024
RATE_LIMIT = 20  # messages per second per connection
# How long an update that came ahead of a missing version waits for it before the stored events fill the gap
# (docs/protocol.md, "Gaps"): two senders' messages arrive out of order by milliseconds; a lost one never arrives.
GAP_SECONDS = 0.5

_filling: set[asyncio.Task] = set()  # the gap fills under way (`_gap_due`), kept until done



class TableConsumer(Watching, AsyncWebsocketConsumer):
    """One socket's stream of the table: every frame that draws a version (an update, a gap filled from the stored
    events, a snapshot) goes out under `stream`, in version order, whichever process or coroutine made it."""

    room = None
    version = -1  # the newest version this socket was sent
    seen = -1  # the table's version at the watcher's last pass (`_watch_loop`)
    seat_id: str | None = None
    gap: asyncio.TimerHandle | None = None  # the wait for a missing version (`_gap_watch`)
    filling: asyncio.Task | None = None
    present = False  # this socket counts in its user's presence at the room (`_presence_off` when it ends)
    push_visible = False  # this socket told the cache its page is in view (`on_visibility`)
    closing = False  # this end closed the socket: nothing more is sent

    async def connect(self) -> None:
        user = self.scope.get("user")
        await self.accept()  # accept then close with a code the client can read; a bare reject says nothing
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        room = await db(selectors.open_room_by_code)(self.scope["url_route"]["kwargs"]["code"])
        if room is None:
            await self.close(code=CLOSE_NO_ROOM)
            return
        try:
            await db(services.room_check_access)(room=room, user=user)
            await db(services.watch_check)(room=room, user=user)  # spectators by consent (games/watching.py)
        except services.GameError as e:
            await self.send_json({"type": "error", "code": e.code, "message": e.message, "version": self.version})
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Who watched may read the room's later hand records (docs/rules.md, "Who may read a hand record").
        await db(hand_records.room_visit_record)(room=room, user=user)
        self.room = room
        self.acks: deque[tuple[str, int, bool]] = deque()  # (action id, version, duplicate) not yet acked (`on_action`)
        self.held: dict[int, dict] = {}  # version -> its group message, come ahead of a missing version
        self.stream = asyncio.Lock()
        await self.channel_layer.group_add(group_name(room.pk), self.channel_name)
        await self.channel_layer.group_add(user_group(user.pk), self.channel_name)
        seat_id = await db(services.presence_set)(room_id=room.pk, user=user, connected=True,
                                                  socket=self.channel_name)
        self.present = True
        await self.send_snapshot()
        _watch(self)  # from the snapshot's version on, before anything else is awaited (tests/games/test_faults.py)
        if room.host_id == user.pk:  # the asks for a longer clock still waiting for the host (nobody else's page)
            for frame in await db(services.clock_asks_pending)(room_id=room.pk, user=user):
                await self.send_json({**frame, "version": self.version})
        if room.approve_buy_ins:  # the buy-ins waiting for the host: the host's page all of them, a player's their own
            for frame in await db(services.buy_in_requests_pending)(room_id=room.pk, user=user):
                await self.send_json({**frame, "version": self.version})
        for frame in await db(services.votes_open)(room_id=room.pk, user=user):  # a vote under way
            await self.send_json({**frame, "version": self.version})
        await self.watch_opened()
        if seat_id:
            await db(presence)(room.pk, seat_id, True)

    async def __call__(self, scope, receive, send) -> None:
        arrivals = Arrivals(receive, max_frame=MAX_FRAME, rate_limit=RATE_LIMIT)  # judged on arrival, in order
        try:
            await super().__call__(scope, arrivals.receive, send)
        finally:
            arrivals.stop()
            # A consumer whose channel layer failed (Redis restarted under its receive) ends here without
            # `disconnect`; left in the watcher it would be resynced, for nobody, on every move of its room.
            if self.room is not None:
                _unwatch(self)
                self._gap_stop()
                if self.present:  # its sockets are the seat's presence (games/services/presence.py): this one is gone
                    try:
                        await self._presence_off()
                    except Exception:
                        logger.exception("table socket: presence of a socket that ended without closing")

    async def disconnect(self, code) -> None:
        if self.room is None:
            return
        _unwatch(self)
        self._gap_stop()
        await self.channel_layer.group_discard(group_name(self.room.pk), self.channel_name)
        await self.channel_layer.group_discard(user_group(self.scope["user"].pk), self.channel_name)
        if self.push_visible:  # a closed socket shows nothing
            await db(notify.visibility_set)(user_id=self.scope["user"].pk, channel=self.channel_name, visible=False)
        await self._presence_off()

    async def _presence_off(self) -> None:
        self.present = False
        await db(services.watch_close)(room_id=self.room.pk, user=self.scope["user"], socket=self.channel_name)
        seat_id = await db(services.presence_set)(room_id=self.room.pk, user=self.scope["user"], connected=False,
                                                  socket=self.channel_name)
        if seat_id:
            await db(presence)(self.room.pk, seat_id, False)

    async def dispatch(self, message) -> None:
        # Channels' own dispatch first closes stale database connections, on asgiref's one shared thread, for every
        # message: a thread hop that showed in a web process's profile (docs/performance.md). This consumer reaches
        # the database only through `db`, whose threads close their own connections after every call.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    # --- from the client --------------------------------------------------------------------------------

    async def websocket_receive(self, message: dict) -> None:
        if self.room is None:
            return
        refused = message.get("refused")
        if refused == "too_big":
            await self.close(code=CLOSE_TOO_BIG)
        elif refused == "rate_limited":
            await self.error("rate_limited", "Too many messages: at most 20 a second.")
        else:
            await self.receive(text_data=message.get("text"), bytes_data=message.get("bytes"))

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if text_data is None:
            await self.error("bad_frame", "Frames are JSON text.")
            return
        try:
            message = json.loads(text_data, parse_constant=not_json)
        except (ValueError, RecursionError):  # deep nesting ([[[[...) fits in 16 KiB and exhausts the stack
            await self.error("bad_json", "A frame is one JSON object.")
            return
        if not isinstance(message, dict):
            await self.error("bad_json", "A frame is one JSON object.")
            return
        kind = message.get("type")
        try:
            if kind == "action":
                await self.on_action(message)
            elif kind == "snapshot":
                await self.send_snapshot()
            elif kind == "since":
                await self.on_since(message.get("version"))
            elif kind == "chat":
                await db(services.chat_post)(
                    room_id=self.room.pk, user=self.scope["user"], text=message.get("text"))
            elif kind == "report":
                await db(moderation.report_create)(
                    reporter=self.scope["user"], room_id=self.room.pk, reason=message.get("reason"),
                    target_user_id=message.get("user"), message_id=message.get("message"),
                    seat_id=message.get("seat"))
                await self.send_json({"type": "reported", "version": self.version})
            elif isinstance(kind, str) and kind in services.MESSAGES:  # the room's other messages: answered by room frames
                call, names = services.MESSAGES[kind]
                await db(call)(room_id=self.room.pk, user=self.scope["user"], **{n: message.get(n) for n in names})
            elif kind == "visibility":
                await self.on_visibility(message.get("visible"))
            elif kind == "ping":
                await self.send_json({"type": "pong", "version": self.version})
            else:
                await self.error("unknown_type", "Unknown message type.")
        except services.GameError as e:
            await self.error(e.code, e.message, message.get("action_id"))
        except Exception:  # never let one bad frame kill the connection; the table is unchanged (rolled back)
            logger.exception("table socket: unexpected error on %r", text_data[:200])
            await self.error("server_error", "Something went wrong; nothing was changed.", message.get("action_id"))

    async def on_action(self, message: dict) -> None:
        action_id = message.get("action_id", "")
        if not isinstance(action_id, str):
            raise services.GameError("bad_action_id", _("An action id is a text of at most 64 characters."))
        result = await db(services.action_submit)(
            room_id=self.room.pk, user=self.scope["user"], action=message.get("action"),
            args=message.get("args"), action_id=action_id)
        async with self.stream:
            if result.version <= self.version:
                # Drawn already (a gap's fill or a snapshot went first, or the first of a duplicate): answered now.
                await self.send_ack(action_id, result.version, result.duplicate)
            else:
                # Answered by the frame that draws the version (`_draw`): the ack rides in this socket's own update,
                # one frame fewer a command for the server and every client (docs/protocol.md, "The ack";
                # docs/performance.md); a duplicate's ack follows that frame, after the first one's.
                self.acks.append((action_id, result.version, result.duplicate))

    async def on_visibility(self, visible) -> None:
        """Whether this socket's page is in view (docs/protocol.md, `visibility`): a player none of whose pages is
        in view is notified of their turn (games/notify.py). Kept only while notifications are set up."""
        if not isinstance(visible, bool):
            raise services.GameError("bad_visibility", _("\"visible\" is true or false."))
        if notify.push_enabled() and (visible or self.push_visible):
            self.push_visible = visible
            await db(notify.visibility_set)(user_id=self.scope["user"].pk, channel=self.channel_name, visible=visible)

    async def on_since(self, after) -> None:
        if not isinstance(after, int) or isinstance(after, bool) or after < 0:
            raise services.GameError("bad_version", _("A version is a whole number from 0."))
        async with self.stream:
            # Beyond what this socket was sent, the table's version decides (one read, only then): a version the
            # table has not reached is a client's mistake, answered rather than met with silence.
            if after > self.version:
                current = (await db(_versions)([self.room.pk])).get(self.room.pk, -1)
                if after > current:
                    raise services.GameError("bad_version", _(
                        "There is no version %(version)s yet: the table is at version %(current)s.")
                        % {"version": after, "current": current})
            await self._fill(after)

    async def send_ack(self, action_id: str, version: int, duplicate: bool = False) -> None:
        await self.send_json({"type": "ack", "action_id": action_id, "version": version, "duplicate": duplicate})

    def take_acks(self, version: int) -> list[tuple[str, int, bool]]:
        """The pending acks (action id, version, duplicate) up to `version`, in the order the actions were answered:
        the frame that draws `version` answers them all."""
        taken = []
        while self.acks and self.acks[0][1] <= version:
            taken.append(self.acks.popleft())
        return taken

    async def error(self, code: str, message: str, action_id=None) -> None:
        frame = {"type": "error", "code": code, "message": message, "version": self.version}
        if isinstance(action_id, str):
            frame["action_id"] = action_id
        await self.send_json(frame)

    # --- to the client ----------------------------------------------------------------------------------

    async def send_json(self, content: dict) -> None:
        await self.send(text_data=json_text(content))

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        if not self.closing:  # a room's frame may still come between this end's close and the disconnect
            await super().send(text_data, bytes_data, close)

    async def close(self, code=None, reason=None) -> None:
        self.closing = True
        await super().close(code, reason)

    async def send_snapshot(self) -> None:
        async with self.stream:
            await self._snapshot()

    async def _snapshot(self) -> None:
        frame = await db(selectors.snapshot)(self.room, self.scope["user"])
        tv = frame.pop("tv", None)  # TV mode's cards, after the snapshot (games/tv.py)
        acks = self.take_acks(frame["version"]) if self.acks else []
        self.version = frame["version"]
        self.seat_id = frame["me"]["seat"]
        for action_id, version, duplicate in acks:  # acked before the snapshot that shows them
            await self.send_ack(action_id, version, duplicate)
        await self.send_json(frame)
        await self.watch_tv(tv)
        await self._held_next()

    async def table_update(self, event: dict) -> None:
        async with self.stream:
            version = event["version"]
            if version <= self.version:
                return  # drawn already: by a gap's fill or a snapshot, which sent the acks up to its version
            if version > self.version + 1:
                # Another sender's message of the missing version is usually a few milliseconds behind this one.
                self.held[version] = event
                self._gap_watch()
                return
            await self._draw_message(event)
            await self._held_next()

    async def _draw_message(self, event: dict) -> None:
        seat_id = event["users"].get(str(self.scope["user"].pk))
        frame = event["frames"].get(seat_id or "", event["frames"][""])  # made once per command (broadcast.py)
        await self._draw(event["version"], frame, seat_id, event["open"])
        await self.watch_update(event, seat_id)

    async def _draw(self, version: int, frame: str, seat_id: str | None, is_open: bool) -> None:
        """Send the update `frame` of `version` (holding `stream`). The ack of this socket's own action that made the
        version rides in it; the acks of duplicates of versions up to it follow it."""
        sat_down = seat_id is not None and seat_id != self.seat_id
        seated_before, self.seat_id = self.seat_id, seat_id
        acks = self.take_acks(version) if self.acks else []
        self.version = max(self.version, version)  # a version asked for again (`since`) leaves it
        own = next((a for a in acks if a[1] == version and not a[2]), None)
        if own is not None:
            acks.remove(own)
            frame = '{"ack":' + json_text(own[0]) + "," + frame[1:]
        await self.send(text_data=frame)
        for action_id, acked, duplicate in acks:
            await self.send_ack(action_id, acked, duplicate)
        if sat_down:
            # presence_set ran at connect, before this seat existed: the new seat is connected (this socket).
            seat_id = await db(services.presence_set)(
                room_id=self.room.pk, user=self.scope["user"], connected=True, socket=self.channel_name)
            if seat_id:
                await db(presence)(self.room.pk, seat_id, True)
        await self.watch_seat(seated_before, seat_id)
        if not is_open:
            await self.send_json({"type": "closed", "version": self.version})
            await self.close(code=CLOSE_ROOM_CLOSED)

    async def _held_next(self) -> None:
        """Draw the held messages that follow on now, forget those drawn already, wait for a version still missing."""
        while self.version + 1 in self.held:
            await self._draw_message(self.held.pop(self.version + 1))
        for version in [v for v in self.held if v <= self.version]:
            del self.held[version]
        self._gap_watch()

    def _gap_watch(self) -> None:
        if self.held and self.gap is None:
            self.gap = asyncio.get_running_loop().call_later(GAP_SECONDS, self._gap_due)
        elif not self.held and self.gap is not None:
            self.gap.cancel()
            self.gap = None

    def _gap_due(self) -> None:
        self.filling = asyncio.get_running_loop().create_task(self._gap_fill())
        _filling.add(self.filling)
        self.filling.add_done_callback(_filling.discard)

    async def _gap_fill(self) -> None:
        async with self.stream:
            self.gap = None
            if self.held:
                try:
                    await self._fill(self.version)
                except Exception:  # the database away: the watcher's next pass tries again
                    logger.exception("table socket: filling a gap after v%s", self.version)

    def _gap_stop(self) -> None:
        if self.gap is not None:
            self.gap.cancel()
        if self.filling is not None:
            self.filling.cancel()

    async def _fill(self, after: int) -> None:
        """Draw the versions after `after` up to the table's (holding `stream`): the held messages of those versions as
        they came, the others rebuilt from the stored events; a snapshot when they begin before the current hand."""
        found = await db(selectors.updates_since)(self.room.pk, self.scope["user"], after)
        if found is None:
            await self._snapshot()
            return
        last = found.frames[-1][0] if found.frames else None
        for version, frame in found.frames:
            event = self.held.pop(version, None)
            if event is not None:
                await self._draw_message(event)
            else:
                await self._draw(version, frame, found.seat, found.open or version != last)
        await self.watch_filled(found.tv, last)
        await self._held_next()

    async def chat_message(self, event: dict) -> None:
        await self.send_json({"type": "chat", "message": event["message"], "version": self.version})

    async def chat_hidden(self, event: dict) -> None:
        await self.send_json({"type": "chat_hidden", "id": event["id"], "version": self.version})

    async def room_frame(self, event: dict) -> None:
        await self.send_json({**event["frame"], "version": self.version})
        await self.watch_frame(event["frame"])

    async def user_banned(self, event: dict) -> None:
        # A moderator banned this user: every open socket closes at once (games/moderation.py).
        await self.send_json({"type": "error", "code": "banned", "message": _("Your account is banned."),
                              "version": self.version})
        await self.close(code=CLOSE_FORBIDDEN)

    async def user_muted(self, event: dict) -> None:
        await self.send_json({"type": "notice", "code": "muted", "message": _("You are muted and cannot chat."),
                              "version": self.version})

    async def presence_changed(self, event: dict) -> None:
        await self.send_json({"type": "presence", "seat": event["seat"], "connected": event["connected"],
                              "version": self.version})

    async def resync_if_behind(self, version: int) -> None:
        async with self.stream:
            if version > self.version:
                await self._fill(self.version)


# --- the safety net: a lost group message is repaired within two GAMES_RESYNC_SECONDS ----------------------
# One query per process per interval reads the versions of the rooms this process serves; a connection
# that is behind gets the versions it missed (`_fill`). It also carries the in-memory channel layer of `make run`,
# where a Celery worker's broadcasts cannot reach the web process.

_watched: dict[int, set[TableConsumer]] = {}
_tasks: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task]" = weakref.WeakKeyDictionary()


def _watch(consumer: TableConsumer) -> None:
    consumer.loop = loop = asyncio.get_running_loop()
    _watched.setdefault(consumer.room.pk, set()).add(consumer)
    task = _tasks.get(loop)
    if task is None or task.done():
        _tasks[loop] = loop.create_task(_watch_loop(loop))
    task = _beats.get(loop)
    if task is None or task.done():
        _beats[loop] = loop.create_task(_beat_loop(loop))


# While a loop serves sockets, its process says in the cache that it is alive: a socket of a process that died counts
# as closed (games/services/presence.py).
_beats: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task]" = weakref.WeakKeyDictionary()


async def _beat_loop(loop) -> None:
    while any(c.loop is loop for consumers in list(_watched.values()) for c in consumers):
        try:
            await db(services.process_beat)()
            await db(services.watch_beat)()  # its spectators' slots (games/services/watchers.py)
        except Exception:  # the cache away: the next beat tries again
            logger.exception("table socket: the process's beat")
        await asyncio.sleep(services.PROCESS_BEAT)


def _unwatch(consumer: TableConsumer) -> None:
    consumers = _watched.get(consumer.room.pk)
    if consumers is not None:
        consumers.discard(consumer)
        if not consumers:
            del _watched[consumer.room.pk]


def _versions(room_ids: list[int]) -> dict[int, int]:
    return dict(Table.objects.filter(pk__in=room_ids).values_list("pk", "version"))


async def _watch_loop(loop) -> None:
    while True:
        await asyncio.sleep(settings.GAMES_RESYNC_SECONDS)
        mine = {room_id: [c for c in consumers if c.loop is loop] for room_id, consumers in list(_watched.items())}
        mine = {room_id: consumers for room_id, consumers in mine.items() if consumers}
        if not mine:
            if not any(c.loop is loop for consumers in _watched.values() for c in consumers):
                return
            continue
        # Through Redis a connection is resynced only for a version the table already had one interval ago:
        # an update committed a moment ago is usually still on its way, and a snapshot for each of those
        # (hundreds a pass at 500 busy tables) cost more than the messages it stood in for. The in-memory
        # layer cannot carry a Celery worker's updates at all: there every version behind is fetched at once.
        at_once = isinstance(get_channel_layer(), InMemoryChannelLayer)
        try:
            versions = await db(_versions)(list(mine))
            for room_id, consumers in mine.items():
                latest = versions.get(room_id, -1)
                for consumer in consumers:
                    due = latest if at_once else consumer.seen
                    consumer.seen = latest
                    if due > consumer.version:
                        await consumer.resync_if_behind(due)
        except Exception:
            logger.exception("table watcher")
