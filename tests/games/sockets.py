"""The table socket's test harness (docs/protocol.md): browser tabs on /ws/rooms/<code>/ with a real session cookie
and the allowed Origin, JSON frames both ways, against config.asgi.application; and players that choose their moves
from the view their socket received. Helpers only: the socket's tests are tests/games/test_socket_*.py."""

import asyncio
import faulthandler
import json
import sys
import time
from collections import deque

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.asgi import application
from games import services
from games.consumers import RATE_LIMIT
from games.consumers import _watched as consumers_watched  # the table sockets, by room
from games.models import Table
from tests.games.conftest import acked, answers

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
WAIT = 10  # seconds for one frame: generous for PostgreSQL + Redis on a busy machine

db = database_sync_to_async


# --- browser tabs ---------------------------------------------------------------------------------------


def session_cookie(user) -> bytes:
    """The cookie a browser holds after logging in."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


def table_version(room) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=room.pk)


def dump_tasks() -> None:
    """In stderr: every task of the running loop with its chain of awaits to the line it waits at (a task's own stack
    shows its outermost coroutine only), the in-memory layer's channels and groups, and the loop's table sockets:
    where a consumer that sends nothing is."""
    loop = asyncio.get_running_loop()
    for task in asyncio.all_tasks(loop):
        print(f"task {task.get_name()}:", file=sys.stderr)
        coro = task.get_coro()
        while coro is not None:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                print(f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}", file=sys.stderr)
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    layer = channel_layers.backends.get("default")
    if isinstance(layer, InMemoryChannelLayer):  # what waits unread in each socket's channel, and who is in each group
        print("channels:", {name: queue.qsize() for name, queue in layer.channels.items()}, file=sys.stderr)
        print("groups:", {group: sorted(members) for group, members in layer.groups.items()}, file=sys.stderr)
    # Each table socket of this loop: what it drew, what it holds back, and whether it listens on the layer that the
    # broadcasts go to (a second layer made under a first one would take the room's messages from it).
    for room_id, consumers in list(consumers_watched.items()):
        for c in consumers:
            if c.loop is loop:
                print(f"room {room_id} socket {c.channel_name} of user {c.scope['user'].pk}: v{c.version}, "
                      f"seat {c.seat_id}, acks {list(c.acks)}, held {sorted(c.held)}, stream "
                      f"{'held' if c.stream.locked() else 'free'}, the current layer: {c.channel_layer is layer}",
                      file=sys.stderr)


class Closed(Exception):
    def __init__(self, code):
        super().__init__(f"the socket was closed with {code}")
        self.code = code


# The room's count of spectators (docs/protocol.md, "spectators") comes whenever who watches without a seat changes,
# which the tabs of a test do as they open, sit and close: a tab keeps it in `frames` but passes over it where a
# test waits for a frame or for quiet, unless the test asks for it by name (`reply("spectators")`).
PASSED_OVER = ("spectators",)


class Tab:
    """One connection of `user` to a room, keeping every frame it received: (raw text, JSON)."""

    def __init__(self, user, code: str, *, cookie: bytes | None = None):
        self.user = user
        self.code = code
        self.cookie = cookie
        self.frames: list[tuple[str, dict]] = []
        self.version = -1  # the newest table version drawn (snapshot or update)
        self.view: dict | None = None
        self.closed: int | None = None
        self.comm: WebsocketCommunicator | None = None
        self.sent = 0
        self.ahead: list[dict] = []  # what `quiet` read ahead of a passed-over frame, for `next`
        self.sent_at: deque[float] = deque(maxlen=RATE_LIMIT)  # when the latest frames were sent (`act` keeps pace)

    async def open(self) -> dict:
        """Connect; returns the first frame (the snapshot). Raises Closed when the server closes."""
        if self.cookie is None and self.user is not None:
            self.cookie = await db(session_cookie)(self.user)
        headers = [ORIGIN] + ([(b"cookie", self.cookie)] if self.cookie else [])
        self.comm = WebsocketCommunicator(application, f"/ws/rooms/{self.code}/", headers=headers)
        connected, code = await self.comm.connect(timeout=WAIT)
        if not connected:
            self.closed = code
            raise Closed(code)
        return await self.next()

    async def next(self, timeout: float = WAIT, *, keep: tuple[str, ...] = ()) -> dict:
        """The next frame; a frame of PASSED_OVER only when its type is in `keep`."""
        while True:
            out = self.ahead.pop(0) if self.ahead else await self._receive(timeout)
            if out["type"] == "websocket.close":
                self.closed = out.get("code", 1000)
                raise Closed(self.closed)
            frame = self._read(out["text"])
            if frame["type"] not in PASSED_OVER or frame["type"] in keep:
                return frame

    async def _receive(self, timeout: float) -> dict:
        """The socket's next output. A wait that runs out dumps every thread's stack (in the test's captured stderr):
        a frame that never comes is a server stuck somewhere: a database thread waiting on a lock, or a consumer's
        coroutine waiting on one of the loop's own (`dump_tasks`)."""
        try:
            # The wait runs out here, not in the communicator, which would cancel the consumer before its stack is
            # printed.
            async with asyncio.timeout(timeout):
                return await self.comm.receive_output(timeout + 60)
        except TimeoutError as e:
            if self.comm.future.done():
                self.comm.future.result()  # the consumer ended on an exception: that is the failure, raised here
            faulthandler.dump_traceback(all_threads=True)
            dump_tasks()
            last = [f.get("type") for _t, f in self.frames[-5:]]
            raise TimeoutError(f"{self.user}'s socket: nothing for {timeout} s after frames {last}") from e

    def _read(self, text: str) -> dict:
        frame = json.loads(text)
        self.frames.append((text, frame))
        if frame["type"] in ("snapshot", "update") and frame["version"] > self.version:
            self.version = frame["version"]
            self.view = frame["view"] or self.view  # a filled past version has no view
        return frame

    async def send(self, data) -> None:
        self.sent_at.append(time.monotonic())
        await self.comm.send_to(text_data=data if isinstance(data, str) else json.dumps(data))

    async def _keep_pace(self) -> None:
        """Wait, as a page would, until one more frame keeps within the server's RATE_LIMIT frames a second. A test that
        walks a table at random could otherwise spend its whole budget of moves on `rate_limited` answers, which come
        at once: the faster the machine, the more. Floods that test the limit go through `send`, unpaced."""
        if len(self.sent_at) == RATE_LIMIT:
            wait = self.sent_at[0] + 1.05 - time.monotonic()  # a margin: the server judges on arrival
            if wait > 0:
                await asyncio.sleep(wait)

    async def reply(self, *kinds: str) -> dict:
        """The next frame of one of `kinds` (the frames on the way are kept)."""
        while True:
            frame = await self.next(keep=kinds)
            if frame["type"] in kinds:
                return frame

    async def act(self, action: str, action_id: str | None = None, **args) -> dict:
        """Send one action; return its answer: the update that carries its ack, an `ack` frame, or an error."""
        if action_id is None:
            self.sent += 1
            action_id = f"{self.user.username}-{self.sent}"
        message = {"type": "action", "action": action, "action_id": action_id}
        if args:
            message["args"] = args
        await self._keep_pace()
        await self.send(message)
        while True:
            frame = await self.next()
            if answers(frame, action_id) or frame.get("code") == "rate_limited":  # dropped unread
                return frame

    async def catch_up(self, version: int) -> None:
        while self.version < version:
            await self.next()

    async def quiet(self) -> bool:
        """Nothing but frames of PASSED_OVER arrives for 0.2 s (those are read and kept)."""
        if self.ahead:
            return False
        while not await self.comm.receive_nothing(timeout=0.2):
            out = await self.comm.receive_output()
            if out["type"] != "websocket.send" or json.loads(out["text"])["type"] not in PASSED_OVER:
                self.ahead.append(out)
                return False
            self._read(out["text"])
        return True

    async def drain(self) -> list[dict]:
        """Everything that arrives until the socket is quiet."""
        frames = []
        while not await self.quiet():
            frames.append(await self.next())
        return frames

    async def close(self) -> None:
        if self.comm is not None and self.closed is None and not self.comm.future.done():
            # Let the consumer's disconnect handler finish, as daphne does (10 s): the communicator's own default
            # cancels it after 1 s, which a busy CI machine passed before the handler sent its presence frame.
            await self.comm.disconnect(timeout=WAIT)
        self.closed = self.closed or 1000

    def of(self, kind: str) -> list[dict]:
        return [f for _text, f in self.frames if f["type"] == kind]

    def events(self, kind: str | None = None) -> list[dict]:
        return [e for f in self.of("update") for e in f["events"] if kind is None or e["type"] == kind]


async def catch_up(tabs, room) -> int:
    """Every open tab has drawn the table's current version; returns it."""
    version = await db(table_version)(room)
    for tab in tabs:
        if tab.closed is None:
            await tab.catch_up(version)
    return version


async def drain_all(tabs) -> list[list[dict]]:
    """Each tab's `drain`, all at once: the 0.2 s of quiet each one waits for pass side by side."""
    return list(await asyncio.gather(*(tab.drain() for tab in tabs)))


async def close_all(tabs) -> None:
    for tab in tabs:
        await tab.close()


def create_room(host, preset, **kw):
    return services.room_create(host=host, preset=preset, **kw)


async def seated_table(cast, preset="ten-half", *, overrides=None, extra=(), bank=None):
    """A room of `preset` with alice (host), bob, chen and dara connected and seated (1000 beans each)
    and the host's start sent; with `bank`, alice has opened the bank with that amount. Every tab has drawn
    the table's version. Returns (room, {name: tab})."""
    room = await db(create_room)(cast["alice"], preset, overrides=overrides or {}, buy_in_max=3000)
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen", "dara")}
    for name in extra:
        tabs[name] = Tab(cast[name], room.code)
    for tab in tabs.values():
        await tab.open()
    for name in ("alice", "bob", "chen", "dara"):
        frame = await tabs[name].act("sit", buy_in=1000)
        assert acked(frame), frame
    assert acked(await tabs["alice"].act("start"))
    if bank is not None:
        assert acked(await tabs["alice"].act("open_bank", amount=bank))
    await catch_up(tabs.values(), room)
    return room, tabs


async def sit_and_start(tabs: dict, room, seated, buy_in: int) -> None:
    """Every tab of `tabs` connected, the `seated` names sat with `buy_in` (each acknowledged) and the first of them's
    start sent; every tab has drawn the table's version."""
    for tab in tabs.values():
        await tab.open()
    for name in seated:
        frame = await tabs[name].act("sit", buy_in=buy_in)
        assert acked(frame), frame
    assert acked(await tabs[seated[0]].act("start"))
    await catch_up(tabs.values(), room)


def me(view) -> dict | None:
    return next((s for s in view["seats"] if s["id"] == view["you"]), None)


def stake_range(view) -> tuple[int, int, int]:
    """(lowest, highest, step) of a challenger's stake, as the rules allow it for this stack."""
    r, stack = view["rules"], me(view)["stack"]
    low = view["hand"]["base_stake"] if r["fixed_stake"] else (r["min_bet"] or r["base_stake"])
    high = stack // 3 if r["stake_third_of_stack"] else stack
    if r["max_bet"] is not None:
        high = min(high, r["max_bet"])
    return low, high, r["base_stake"] if r["bet_multiple"] else 1


def sensible_move(view) -> tuple[str, dict] | None:
    """A plain player: opens the bank when offered, stakes the least, draws to two cards and stands
    (draws on when the rules forbid standing), declines a bank to take, refills an empty bank."""
    legal = view["legal_actions"]
    stack = me(view)["stack"]
    if "open_bank" in legal and view["pending"]:
        whole = view["rules"]["bank_open"] == "whole-stack"
        return "open_bank", {"amount": stack if whole else stack // 2}
    if "decline_bank" in legal:
        return "decline_bank", {}
    if "refill" in legal:
        return ("refill", {"amount": min(stack, 300)}) if stack else ("pass_bank", {})
    if "bet" in legal:
        return "bet", {"amount": stake_range(view)[0]}
    if "mort_decline" in legal:
        return "mort_decline", {}
    if "hit" in legal or "stand" in legal:
        turn = view["hand"]["turn"]
        cards = view["hand"]["hands"][turn["seat"]][turn["hand"]]["cards"]
        return ("hit", {}) if "stand" not in legal or len(cards) < 2 and "hit" in legal else ("stand", {})
    return None


# --- random players ------------------------------------------------------------------------------------

QUIET = {"leave", "retire", "seed_jackpot", "reset", "top_up"}


def random_moves(view, rng) -> list[tuple[str, dict]]:
    """Plausible moves from the view's legal actions, with arguments (a few may still be refused)."""
    legal, seat, hand, r = view["legal_actions"], me(view), view["hand"], view["rules"]
    if seat is None:  # left earlier: sits down again (a new seat)
        return [("sit", {"buy_in": 1000})]
    stack = seat["stack"]
    out: list[tuple[str, dict]] = []
    side = seat["role"] == "side"
    if seat["away"]:  # timed out three hands running: sitting out until back
        out.append(("im_back", {}))
    if "top_up" in legal and stack < 10 * r["base_stake"] and view["banker"] != seat["id"]:
        out.append(("top_up", {"amount": 500}))
    for action in legal:
        if action in QUIET:
            continue
        if action == "bet":
            low, high, step = stake_range(view)
            if high >= low:
                amount = min(high, low + step * rng.randrange(3))
                out.append(("bet", {"amount": amount - (amount - low) % step}))
        elif action == "chip":
            mine = next((b for b in hand["side_bets"] if b["seat"] == seat["id"]), None) if side \
                else hand["bets"][seat["id"]]
            if side and mine["backs"] is None:
                continue
            out.append(("chip", {"amount": rng.choice(r["chip_values"])}))
        elif action == "confirm":
            if side:
                mine = next(b for b in hand["side_bets"] if b["seat"] == seat["id"])
                if mine["backs"] and mine["amount"]:
                    out.append(("confirm", {}))
            else:
                low, high, step = stake_range(view)
                amount = hand["bets"][seat["id"]]["amount"]
                if low <= amount <= high and (amount - low) % step == 0:
                    out.append(("confirm", {}))
        elif action in ("back", "side_bet"):
            challenger = rng.choice(sorted(hand["bets"]))
            if action == "back":
                out.append(("back", {"seat": challenger}))
            elif stack >= r["base_stake"]:
                amount = r["base_stake"] * rng.randint(1, min(3, stack // r["base_stake"]))
                out.append(("side_bet", {"backs": challenger, "amount": amount}))
        elif action == "open_bank":
            whole = r["bank_open"] == "whole-stack"
            out.append(("open_bank", {"amount": stack if whole else max(1, stack // rng.choice((1, 2, 3)))}))
        elif action == "refill":
            if stack:
                out.append(("refill", {"amount": min(stack, rng.choice((100, 300)))}))
        else:  # hit stand double split mort_* take_bank decline_bank pass_bank no_bet
            # Weighted: drawing (towards two figures) and splitting them, the rare move that makes a
            # seat hold two hands, come more often than chance would have them.
            out += [(action, {})] * {"hit": 2, "split": 6}.get(action, 1)
    return out


def card_strings(data, out: set) -> set:
    """Every string in a JSON value, keys included."""
    if isinstance(data, str):
        out.add(data)
    elif isinstance(data, dict):
        for k, v in data.items():
            out.add(k)
            card_strings(v, out)
    elif isinstance(data, list):
        for v in data:
            card_strings(v, out)
    return out


async def hang_up(tab: Tab) -> None:
    """Close the tab; when the server closed it first, deliver the disconnect a real server would, so that the
    consumer's coroutine ends instead of being dropped mid-await."""
    await tab.close()
    if tab.comm is not None and not tab.comm.future.done():
        await tab.comm.send_input({"type": "websocket.disconnect", "code": tab.closed})
        await tab.comm.wait(timeout=10)
