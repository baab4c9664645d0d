"""The players of a run, in a worker process (no Django here): each table's seats, their pacing, what they
measure. A seat decides with the engine's basic bot from its own view, as a person at the table would."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field

import orjson
from websockets.exceptions import InvalidHandshake, InvalidStatus

from games.engine import bot_decide
from games.engine.rules import Rules
from loadgen import LoadTestError
from loadgen.sockets import Socket, parse_frame

GRACE_SECONDS = 10.0  # after the window: how long a sent command may still wait for its updates
ANSWER_SECONDS = 30.0  # a command without an ack by then is given up (and reported)
BURST = 2  # commands of credit a paced table may save up while it waits (between hands)
# The server refuses more than this many messages a second on one socket (games/consumers.py, RATE_LIMIT): a
# client, even at `--rate max`, keeps under it as a person would, rather than measuring the refusals.
SERVER_RATE_LIMIT = 20
SETUP_PARALLEL = 32  # sockets opening or setup commands in flight at once, per worker
RECONNECT_SECONDS = 60.0  # --reconnect: how long a dropped socket keeps trying to open again


@dataclass
class TablePlan:
    code: str
    seats: list[tuple[str, str, str | None]]  # (ws base, origin, session cookie) per seat; seat 0 hosts
    buy_in: int = 0


@dataclass
class Plan:
    tables: list[TablePlan]
    seconds: float
    rate: float | None  # commands per second per table; None: as fast as the game allows
    bare: bool = False
    payload: int = 0  # --bare: bytes of padding in each command, relayed to every seat
    cookie_name: str = "sessionid"
    seed: int | None = None
    # Seconds played before the measured window opens. Every table of a run opens its bank and bets in the same
    # second when play starts, a burst no real site sees; the warm-up lets the tables drift apart first.
    warmup: float = 0.0
    # A dropped socket opens again (a server killed on purpose: benchmarks/nodes.py); its command on the way is
    # counted as interrupted, and each table reports when it lost a seat and when it applied a command again.
    reconnect: bool = False


@dataclass(eq=False)
class Command:
    sent: float
    table: LiveTable
    measured: bool
    version: int | None = None
    seen: dict = field(default_factory=dict)  # seat index -> when it first had this version


class Pacer:
    """R commands a second on average for one table (exponential gaps), with a little saved-up credit."""

    def __init__(self, rate: float | None):
        self.rate = rate
        self.next = 0.0

    def begin(self, t0: float) -> None:
        if self.rate:
            self.next = t0 + random.uniform(0, 1 / self.rate)

    async def slot(self) -> None:
        if not self.rate:
            return
        now = time.monotonic()
        mine = max(self.next, now - BURST / self.rate)
        self.next = mine + random.expovariate(self.rate)
        if mine > now:
            await asyncio.sleep(mine - now)


class Stats:
    def __init__(self):
        self.latencies: list[float] = []
        self.commands = 0  # sent in the window
        self.errors = 0  # error frames and dropped sockets in the window
        self.error_codes: Counter = Counter()
        self.dropped = 0
        self.unanswered = 0
        self.hands = 0
        self.versions = 0
        self.frames = 0
        self.frame_bytes = 0
        self.resyncs = 0
        self.setup_errors: Counter = Counter()
        self.reconnects = 0
        self.interrupted = 0  # --reconnect: commands whose socket closed before their answer
        self.regressions = 0  # --reconnect: a snapshot after a reconnect older than what the seat had seen


class LiveTable:
    def __init__(self, index: int, plan: TablePlan, run: Run):
        self.index = index
        self.plan = plan
        self.run = run
        self.pacer = Pacer(run.plan.rate)
        self.clients = [Client(self, i, *seat) for i, seat in enumerate(plan.seats)]
        self.history: list[list[tuple[int, float]]] = [[] for _ in self.clients]  # per seat: (version, when)
        self.open: list[Command] = []
        self.start_sent = False
        self.ready = asyncio.Event()
        self.bare_next = 1  # --bare: the version of the next command
        self.down: set[int] = set()  # --reconnect: seats whose socket is closed
        self.dropped_at: float | None = None  # wall clock: a seat's socket closed while playing
        self.recovered_at: float | None = None  # wall clock: the first ack after every seat was back
        self.version_at_drop = -1

    def seen(self, seat: int, version: int, when: float) -> None:
        self.history[seat].append((version, when))
        if len(self.history[seat]) > 64:
            del self.history[seat][:32]
        for cmd in list(self.open):
            if cmd.version is not None and cmd.version <= version and seat not in cmd.seen:
                cmd.seen[seat] = when
                self._maybe_done(cmd)

    def acked(self, cmd: Command, version: int) -> None:
        cmd.version = version
        if self.dropped_at is not None and self.recovered_at is None and not self.down:
            self.recovered_at = time.time()
        for seat, history in enumerate(self.history):
            when = next((t for v, t in history if v >= version), None)
            if when is not None and seat not in cmd.seen:
                cmd.seen[seat] = when
        self._maybe_done(cmd)

    def _maybe_done(self, cmd: Command) -> None:
        if len(cmd.seen) == len(self.clients):
            self.open.remove(cmd)
            if cmd.measured:
                self.run.stats.latencies.append((max(cmd.seen.values()) - cmd.sent) * 1000)

    def drop(self, cmd: Command) -> None:
        if cmd in self.open:
            self.open.remove(cmd)


class Client:
    def __init__(self, table: LiveTable, index: int, base: str, origin: str, cookie: str | None):
        self.table = table
        self.run = table.run
        self.index = index
        self.url = f"{base}/ws/rooms/{table.plan.code}/"
        self.origin = origin
        self.cookie = cookie
        self.ws = None
        self.view: dict | None = None
        self.version = -1
        self.moved = asyncio.Event()
        self.busy = False
        self.sat = False
        self.answers: dict[str, asyncio.Future] = {}
        self.sent_at: deque[float] = deque(maxlen=SERVER_RATE_LIMIT)
        self._rules: tuple[int, Rules] | None = None  # (hand number, its rules)

    async def connect(self) -> None:
        headers = {"Cookie": f"{self.run.plan.cookie_name}={self.cookie}"} if self.cookie else None
        first = asyncio.get_running_loop().create_future()

        def on_text(text: str) -> None:
            if first.done():
                self.on_frame(parse_frame(text), time.monotonic(), len(text))
                return
            frame = parse_frame(text)  # the snapshot, taken in before any frame that follows it
            if frame.get("type") != "snapshot":
                first.set_exception(LoadTestError(f"{self.url}: expected a snapshot, got {str(frame)[:200]}"))
                return
            self.version, self.view = frame["version"], frame.get("view")
            self.sat = bool(self.view and self.view.get("you"))
            first.set_result(None)

        self.ws = await Socket.open(self.url, self.origin, headers, on_text, self.closed, timeout=120)
        await asyncio.wait_for(first, 120)

    def closed(self) -> None:
        run = self.run
        if run.plan.reconnect and run.playing and not run.stopping:
            table = self.table
            table.down.add(self.index)
            if table.dropped_at is None or table.recovered_at is not None:
                table.dropped_at, table.recovered_at = time.time(), None
                table.version_at_drop = max(c.version for c in table.clients)
            self.ws = None
            run.tasks.add(asyncio.create_task(self.reconnect()))
        if not run.stopping:
            if run.measuring:
                run.stats.dropped += 1
                run.stats.errors += 1
            else:
                run.stats.setup_errors["dropped"] += 1
        for fut in self.answers.values():
            if not fut.done():
                fut.set_exception(ConnectionError("socket closed"))

    async def reconnect(self) -> None:
        """Open the socket again (through the same address: a proxy sends it to a server still up)."""
        run, before = self.run, self.version
        deadline = time.monotonic() + RECONNECT_SECONDS
        while not run.stopping and time.monotonic() < deadline:
            try:
                await self.connect()
            except (OSError, InvalidHandshake, InvalidStatus, LoadTestError, TimeoutError):
                self.ws = None
                await asyncio.sleep(0.1)
                continue
            run.stats.reconnects += 1
            if self.version < before:
                run.stats.regressions += 1
            self.table.down.discard(self.index)
            self.table.seen(self.index, self.version, time.monotonic())
            self.moved.set()
            self.poke()
            return

    def state(self) -> dict:
        """What this seat is waiting for: told of a table that did not play again after losing its sockets."""
        v = self.view or {}
        return {"seat": self.index, "open": self.ws is not None, "busy": self.busy, "version": self.version,
                "phase": v.get("phase"), "legal": v.get("legal_actions"), "turn": (v.get("hand") or {}).get("turn"), "you": v.get("you")}

    def on_frame(self, frame: dict, when: float, size: int) -> None:
        run, kind = self.run, frame.get("type")
        if run.measuring:
            run.stats.frames += 1
            run.stats.frame_bytes += size
        if kind in ("update", "snapshot"):
            version = frame["version"]
            if kind == "snapshot" and run.measuring:
                run.stats.resyncs += 1
            if version > self.version:
                self.version, self.view = version, frame.get("view") or self.view  # null: filled in (docs/protocol.md)
                self.moved.set()
                self.table.seen(self.index, version, when)
                if self.index == 0 and run.measuring:
                    run.stats.versions += 1
                    run.stats.hands += sum(1 for e in frame.get("events", ()) if e.get("type") == "hand_over")
        elif kind == "error":
            if run.measuring:
                run.stats.errors += 1
                run.stats.error_codes[frame.get("code", "?")] += 1
            else:
                run.stats.setup_errors[frame.get("code", "?")] += 1
        if kind in ("ack", "error"):
            self.answered(frame.get("action_id"), frame)
        elif "ack" in frame:  # the ack of this client's own action, in the update it made (docs/protocol.md)
            self.answered(frame["ack"], {"type": "ack", "version": frame["version"]})
        self.poke()

    def answered(self, action_id, answer: dict) -> None:
        fut = self.answers.pop(action_id, None)
        if fut is not None and not fut.done():
            fut.set_result(answer)

    # --- deciding and acting -------------------------------------------------------------------------

    def rules(self) -> Rules:
        # A rules change waits for the next hand (rules/README.md): one Rules per hand number, not a comparison of
        # the rules' JSON on every frame.
        hand_no = self.view["hand_no"]
        if self._rules is None or self._rules[0] != hand_no:
            self._rules = (hand_no, Rules.from_json(self.view["rules"]))
        return self._rules[1]

    def decide(self) -> dict | None:
        """The next frame to send from this client's own view, or None."""
        table, v = self.table, self.view
        if self.run.plan.bare:
            if not self.run.playing:
                return None
            k = table.bare_next
            if (k - 1) % len(table.clients) == self.index and self.version >= k - 1:
                return {"action": "relay", "args": {"pad": "x" * self.run.plan.payload}, "version": k}
            return None
        if v is None:
            return None
        if v["you"] is None:
            return None if self.sat else {"action": "sit", "args": {"buy_in": table.plan.buy_in}}
        if self.index == 0 and not table.start_sent:
            if len(v["seats"]) == len(table.clients):
                return {"action": "start", "args": {}}
            return None
        if not table.ready.is_set() or not self.run.playing:
            return None
        legal = v["legal_actions"]
        if not legal:
            return None
        if v["phase"] in ("waiting", "between_hands") and "top_up" in legal and v["banker"] != v["you"]:
            me = next(x for x in v["seats"] if x["id"] == v["you"])
            if me["stack"] < table.plan.buy_in // 4:
                return {"action": "top_up", "args": {"amount": table.plan.buy_in - me["stack"]}}
        decision = bot_decide(v, "basic", self.rules())
        if decision is None:
            return None
        return {"action": decision[0], "args": decision[1]}

    def poke(self) -> None:
        if self.busy or self.run.stopping or self.ws is None:
            return
        if self.decide() is None:
            return
        self.busy = True
        self.run.tasks.add(asyncio.create_task(self.act()))

    async def act(self) -> None:
        run, table = self.run, self.table
        try:
            setup = not run.playing
            if setup:
                await run.setup_slots.acquire()
            else:
                await table.pacer.slot()
            try:
                body = self.decide()
                if body is None or run.stopping:
                    return
                await self.send(body)
            finally:
                if setup:
                    run.setup_slots.release()
        except ConnectionError:
            pass  # counted by `closed`
        finally:
            self.busy = False
            if not run.stopping:
                self.poke()

    async def send(self, body: dict) -> None:
        run, table = self.run, self.table
        if self.ws is None:
            raise ConnectionError("socket closed")
        if len(self.sent_at) == SERVER_RATE_LIMIT:
            wait = self.sent_at[0] + 1.05 - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        self.sent_at.append(time.monotonic())
        action_id = uuid.uuid4().hex[:16]
        frame = {"type": "action", "action_id": action_id, **body}
        if body["action"] == "sit":
            self.sat = True
        elif body["action"] == "start":
            table.start_sent = True
        elif run.plan.bare:
            table.bare_next += 1
        cmd = Command(sent=time.monotonic(), table=table, measured=run.measuring)
        if cmd.measured:
            run.stats.commands += 1
        table.open.append(cmd)
        fut = asyncio.get_running_loop().create_future()
        self.answers[action_id] = fut
        self.ws.send(orjson.dumps(frame).decode())
        try:
            answer = await asyncio.wait_for(fut, ANSWER_SECONDS)
        except TimeoutError:
            self.answers.pop(action_id, None)
            table.drop(cmd)
            if cmd.measured:
                run.stats.unanswered += 1
            return
        except ConnectionError:
            if run.plan.reconnect:
                table.drop(cmd)
                run.stats.interrupted += cmd.measured
            raise
        if answer["type"] != "ack":
            table.drop(cmd)
            if body["action"] == "start":
                table.start_sent = False
            return
        table.acked(cmd, answer["version"])
        if body["action"] == "start":
            table.ready.set()
        # Decide again only from a view that includes this command's effect.
        deadline = time.monotonic() + ANSWER_SECONDS
        while self.version < answer["version"] and time.monotonic() < deadline and not run.stopping:
            self.moved.clear()
            try:
                await asyncio.wait_for(self.moved.wait(), max(deadline - time.monotonic(), 0.01))
            except TimeoutError:
                break


class Run:
    """The tables of one worker process."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.stats = Stats()
        self.tasks: set[asyncio.Task] = set()
        self.playing = False
        self.measuring = False
        self.stopping = False
        self.setup_slots = asyncio.Semaphore(SETUP_PARALLEL)
        self.tables = [LiveTable(i, t, self) for i, t in enumerate(plan.tables)]

    async def set_up(self, limit: float) -> float:
        """Open every socket, sit everyone, start every table; at most `limit` seconds (a table not started
        by then is reported and never plays)."""
        started = time.monotonic()
        try:
            await asyncio.wait_for(self._set_up(), limit)
        except TimeoutError:
            waiting = sum(1 for t in self.tables if not t.ready.is_set())
            self.stats.setup_errors["table not started in time"] += waiting
        return time.monotonic() - started

    async def _set_up(self) -> None:
        gate = asyncio.Semaphore(SETUP_PARALLEL)

        async def open_socket(c: Client):
            async with gate:
                try:
                    await c.connect()
                except (OSError, InvalidHandshake, InvalidStatus, LoadTestError, TimeoutError) as e:
                    self.stats.setup_errors[f"connect: {type(e).__name__}"] += 1
                    return
            c.poke()

        await asyncio.gather(*(open_socket(c) for t in self.tables for c in t.clients))
        if self.plan.bare:
            for t in self.tables:
                t.ready.set()
        await asyncio.gather(*(t.ready.wait() for t in self.tables))

    async def _nudge(self) -> None:
        while self.playing and not self.stopping:
            await asyncio.sleep(0.5)
            for t in self.tables:
                for c in t.clients:
                    c.poke()

    async def play(self, t0: float) -> dict:
        """Play from t0 (this process's monotonic clock) for plan.seconds, then wait for what is on its way."""
        await asyncio.sleep(max(0.0, t0 - time.monotonic()))
        self.playing = True
        self.measuring = self.plan.warmup <= 0
        for t in self.tables:
            t.pacer.begin(t0)
            for c in t.clients:
                c.poke()
        if self.plan.reconnect:
            # A seat whose socket came back while it was between decisions may have missed the frame that would
            # wake it: every seat looks again twice a second, so the recovery measured is the server's.
            self.tasks.add(asyncio.create_task(self._nudge()))
        t0 += self.plan.warmup
        await asyncio.sleep(max(0.0, t0 - time.monotonic()))
        self.measuring = True
        cpu0 = time.process_time()
        await asyncio.sleep(max(0.0, t0 + self.plan.seconds - time.monotonic()))
        self.measuring = False
        self.playing = False
        cpu = time.process_time() - cpu0
        deadline = time.monotonic() + GRACE_SECONDS
        while time.monotonic() < deadline and any(c.measured for t in self.tables for c in t.open):
            await asyncio.sleep(0.05)
        lost = sum(1 for t in self.tables for c in t.open if c.measured)
        self.stopping = True
        await asyncio.gather(*(c.ws.close() for t in self.tables for c in t.clients if c.ws is not None),
                             return_exceptions=True)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        s = self.stats
        return {"latencies": s.latencies, "commands": s.commands, "errors": s.errors, "dropped": s.dropped,
                "error_codes": dict(s.error_codes), "unanswered": s.unanswered, "lost": lost, "hands": s.hands,
                "versions": s.versions, "frames": s.frames, "frame_bytes": s.frame_bytes, "resyncs": s.resyncs,
                "setup_errors": dict(s.setup_errors), "cpu_seconds": cpu,
                "reconnects": s.reconnects, "interrupted": s.interrupted, "regressions": s.regressions,
                "recovery": [{"table": t.plan.code, "dropped_at": t.dropped_at, "recovered_at": t.recovered_at,
                              "version_at_drop": t.version_at_drop,
                              "seats": None if t.recovered_at is not None else [c.state() for c in t.clients]}
                             for t in self.tables if t.dropped_at is not None]}
