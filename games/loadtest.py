"""`python manage.py loadtest`: live tables played by bot-like clients over real sockets (docs/performance.md).

Setup, in the command's process, through the ORM and HTTP:
- a pool of accounts `loadtest-00000`, `loadtest-00001`, ... (4 a table), created when missing, their
  practice points refilled;
- each account logged in over HTTP through allauth's login form, which gives a real session cookie.
  Every login costs the server one full password hash (~0.35 s of CPU), so a session that an earlier
  run's login created is reused while it is valid (`--fresh-logins` logs everyone in again). allauth
  allows 30 logins a minute per address: logins come from many loopback addresses (127.x.y.z), as
  players would come from many machines;
- N rooms (practice points, long turn timers so that no timeout races a client's command), and rooms
  an interrupted earlier run left open are closed first. The rooms are closed at the end.

Play, in `--workers` processes (asyncio and websockets' Sans-I/O protocol, `Socket`; no Django there): every user's
socket connects with its cookie, sits, the host starts; at a common start time every table plays hands
with the engine's basic bot deciding from the client's own view, paced so that a table sends R commands
a second on average (`--rate max`: as soon as a client has something to do). The latency of a command
is the time from sending it to the moment the last of the table's seats has received a frame with the
version its ack carries, or newer. Commands sent in the measured window count; the run then waits at
most GRACE_SECONDS for their updates, and any update never seen is reported as lost.

`--bare` drives benchmarks/bare_asgi.py instead: the same clients and pacing against a relay with no
game behind it (each seat sends in turn; the relay broadcasts to the table's group), the baseline.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
import multiprocessing
import os
import queue as queue_module
import random
import re
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import orjson
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake, InvalidStatus
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Origin
from websockets.uri import parse_uri

from games.engine import bot_decide
from games.engine.rules import Rules

SEATS = 4
POOL_PREFIX = "loadtest-"
# Turn timers as long as the rules allow: a timeout applied while a client's command is on its way would
# turn that command into an error frame that says nothing about the server's speed.
LONG_TIMERS = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}
GRACE_SECONDS = 10.0  # after the window: how long a sent command may still wait for its updates
ANSWER_SECONDS = 30.0  # a command without an ack by then is given up (and reported)
BURST = 2  # commands of credit a paced table may save up while it waits (between hands)
# The server refuses more than this many messages a second on one socket (games/consumers.py, RATE_LIMIT): a
# client, even at `--rate max`, keeps under it as a person would, rather than measuring the refusals.
SERVER_RATE_LIMIT = 20
SETUP_PARALLEL = 32  # sockets opening or setup commands in flight at once, per worker
LOGINS_PER_ADDRESS = 4  # allauth: 30 logins a minute and 5 attempts under way (login_failed) per address


class LoadTestError(Exception):
    pass


# --- targets ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    host: str
    port: int

    @property
    def netloc(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://{self.netloc}"

    @property
    def http(self) -> str:
        return f"http://{self.netloc}"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost: never resolved, never contacted


def parse_targets(values: list[str]) -> list[Target]:
    """`--url` values (each may be a comma list) -> targets. Refuses anything that is not ws:// on loopback."""
    out = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            u = urlsplit(part)
            if u.scheme != "ws" or not u.hostname:
                raise LoadTestError(f"{part!r}: give a ws:// address such as ws://127.0.0.1:8000")
            if not is_loopback(u.hostname):
                raise LoadTestError(f"{part!r}: the load test only connects to this machine (loopback addresses)")
            if u.path not in ("", "/"):
                raise LoadTestError(f"{part!r}: give the server's address without a path")
            out.append(Target(u.hostname, u.port or 80))
    if not out:
        raise LoadTestError("give at least one --url")
    return out


# --- setup: accounts, logins, rooms (Django) ------------------------------------------------------------


def ensure_accounts(count: int) -> list:
    """The first `count` accounts of the pool, created when missing, with at least half their points."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from wallets import services as wallets
    from wallets.models import Account, Currency

    User = get_user_model()
    names = [f"{POOL_PREFIX}{i:05d}" for i in range(count)]
    existing = {u.username: u for u in User.objects.filter(username__in=names)}
    for name in names:
        if name not in existing:
            # No usable password yet: one is set right before a login (log_in below).
            existing[name] = User.objects.create_user(name, f"{name}@loadtest.invalid", None,
                                                      display_name=f"Load {name[len(POOL_PREFIX):]}")
    users = [existing[n] for n in names]
    balances = dict(Account.objects.filter(user__in=users, currency=Currency.POINTS, kind=Account.Kind.AVAILABLE)
                    .values_list("user_id", "balance"))
    for u in users:
        if balances.get(u.pk, 0) < settings.PRACTICE_POINTS_CEILING // 2:
            wallets.points_refill(user=u)
    return users


def reusable_sessions(users) -> dict[int, str]:
    """user id -> the key of a valid session of that user (made by an earlier run's HTTP login)."""
    from datetime import timedelta

    from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import constant_time_compare

    wanted = {str(u.pk): u for u in users}
    found: dict[int, str] = {}
    quiet = logging.getLogger("django.security.SuspiciousSession")
    level, quiet.level = quiet.level, logging.CRITICAL  # sessions signed with another SECRET_KEY: not ours to use
    try:
        sessions = [(s.session_key, s.get_decoded()) for s in
                    Session.objects.filter(expire_date__gt=timezone.now() + timedelta(hours=1)).iterator()]
    finally:
        quiet.level = level
    for key, data in sessions:
        u = wanted.get(str(data.get(SESSION_KEY)))
        if u is not None and constant_time_compare(data.get(HASH_SESSION_KEY, ""), u.get_session_auth_hash()):
            found[u.pk] = key
    return found


def _set_cookies(response) -> dict[str, str]:
    from http.cookies import SimpleCookie

    jar = SimpleCookie()
    for header in response.headers.get_all("Set-Cookie") or []:
        jar.load(header)
    return {name: morsel.value for name, morsel in jar.items()}


def http_login(target: Target, username: str, password: str, source: str | None = None) -> str:
    """Log in through allauth's form (GET for the CSRF token, POST the form); returns the session cookie."""
    import http.client
    from urllib.parse import urlencode

    from django.conf import settings

    conn = http.client.HTTPConnection(target.host, target.port, timeout=120,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request("GET", "/accounts/login/")
        r = conn.getresponse()
        page = r.read().decode(errors="replace")
        cookies = _set_cookies(r)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if r.status != 200 or token is None or settings.CSRF_COOKIE_NAME not in cookies:
            raise LoadTestError(f"login page of {target.http}: HTTP {r.status} (is it a HalfPoint server on plain "
                                "HTTP? with DEBUG=0 set SECURE_SSL_REDIRECT=0 behind no proxy)")
        form = urlencode({"csrfmiddlewaretoken": token.group(1), "login": username, "password": password})
        conn.request("POST", "/accounts/login/", body=form, headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"{settings.CSRF_COOKIE_NAME}={cookies[settings.CSRF_COOKIE_NAME]}",
            "Origin": target.http, "Referer": f"{target.http}/accounts/login/",
        })
        r = conn.getresponse()
        page = r.read().decode(errors="replace")
        session = _set_cookies(r).get(settings.SESSION_COOKIE_NAME)
        if r.status not in (302, 303) or not session:
            why = re.search(r'(?s)class="errorlist[^>]*>(.*?)</ul>', page)
            why = re.sub(r"<[^>]+>", " ", why.group(1)).strip() if why else ""
            raise LoadTestError(f"login of {username} at {target.http} failed: HTTP {r.status} {why}".strip())
        return session
    finally:
        conn.close()


def log_in(users, targets: list[Target], *, fresh: bool = False, log=print) -> dict[int, str]:
    """user id -> session cookie: reused when valid, else a real login over HTTP."""
    from concurrent.futures import ThreadPoolExecutor

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password

    cookies = {} if fresh else reusable_sessions(users)
    todo = [u for u in users if u.pk not in cookies]
    if not todo:
        return cookies

    class QuickHasher(PBKDF2PasswordHasher):
        # The server verifies a stored hash with the iterations written in it, then upgrades it to the full
        # count: it still pays one full hash per login, this process pays almost nothing to set passwords.
        iterations = 1_000

    passwords = {u.pk: uuid.uuid4().hex for u in todo}
    for u in todo:
        u.password = make_password(passwords[u.pk], hasher=QuickHasher())
    get_user_model().objects.bulk_update(todo, ["password"], batch_size=500)
    spread = all(t.host.startswith("127.") for t in targets)
    octet = random.randint(2, 254)  # a new set of addresses each run: allauth counts per address per minute

    def one(i_user):
        i, u = i_user
        k = i // LOGINS_PER_ADDRESS
        source = f"127.{octet}.{k // 250}.{k % 250 + 1}" if spread else None
        return u.pk, http_login(targets[i % len(targets)], u.username, passwords[u.pk], source)

    log(f"logging {len(todo)} accounts in over HTTP (one full password hash each on the server)...")
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=4 * len(targets)) as pool:
        for pk, cookie in pool.map(one, enumerate(todo)):
            cookies[pk] = cookie
    log(f"  {len(todo)} logins in {time.monotonic() - started:.1f} s")
    return cookies


def close_pool_rooms(room_ids: list[int] | None = None) -> int:
    """Close the given rooms, or every open room a pool account hosts (left by an interrupted run)."""
    from games import services
    from games.models import Room

    rooms = Room.objects.filter(status=Room.Status.OPEN).select_related("host")
    rooms = rooms.filter(pk__in=room_ids) if room_ids is not None else rooms.filter(
        host__username__startswith=POOL_PREFIX)
    n = 0
    for room in rooms:
        services.room_close(room_id=room.pk, by=room.host)
        n += 1
    return n


def create_rooms(hosts, preset: str, overrides: dict | None):
    from games import services
    from wallets.models import Currency

    rules = {**LONG_TIMERS, **(overrides or {})}
    return [services.room_create(host=h, preset=preset, overrides=rules, currency=Currency.POINTS) for h in hosts]


# --- play (no Django below: worker processes import only this module and the engine) --------------------


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


def parse_frame(text: str) -> dict:
    """A server frame. orjson, except for what it refuses and the server may send: a lone surrogate, which the
    server writes as an escape through `json` (games.fields.text), as when an error quotes a frame back."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class Socket(asyncio.Protocol):
    """One client WebSocket: websockets' Sans-I/O protocol driven from asyncio's own callbacks. A frame is
    handled (`on_text`) in the callback that read it: no task is woken, no queue is filled per frame, as
    websockets' asyncio client does. The load generator shares the machine with the servers it measures, so
    its cost per frame is the servers' loss (docs/performance.md, Stop 20). Text frames only, as the
    server sends (a fragmented one is put together); pings are answered by the protocol."""

    def __init__(self, url: str, origin: str, headers: dict[str, str] | None, on_text, on_close):
        self.protocol = ClientProtocol(parse_uri(url), origin=Origin(origin), max_size=2**22)
        self.request = self.protocol.connect()
        for name, value in (headers or {}).items():
            self.request.headers[name] = value
        self.on_text, self.on_close = on_text, on_close
        self.transport: asyncio.Transport | None = None
        self.opened = asyncio.get_running_loop().create_future()
        self.lost = asyncio.get_running_loop().create_future()
        self.parts: list[bytes] = []
        self.abort_timer: asyncio.TimerHandle | None = None  # a closing socket not closed by its peer in 2 s

    @classmethod
    async def open(cls, url: str, origin: str, headers: dict[str, str] | None, on_text, on_close,
                   timeout: float) -> Socket:
        split = urlsplit(url)
        sock = cls(url, origin, headers, on_text, on_close)

        async def opening():
            await asyncio.get_running_loop().create_connection(lambda: sock, split.hostname, split.port)
            await sock.opened

        try:
            await asyncio.wait_for(opening(), timeout)
        except BaseException:
            if sock.transport is not None:
                sock.transport.abort()
            raise
        return sock

    # asyncio's callbacks
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.protocol.send_request(self.request)
        self._write()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        self._events()

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._events()

    def connection_lost(self, exc) -> None:
        self.protocol.state = State.CLOSED
        if not self.opened.done():  # never opened: the caller of `open` has the error, there is no close to tell
            self.opened.set_exception(ConnectionError("socket closed during the handshake"))
            self.on_close = lambda: None
        if not self.lost.done():
            self.lost.set_result(None)
            self.on_close()

    def _events(self) -> None:
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if self.protocol.handshake_exc is not None:
                    self.opened.set_exception(self.protocol.handshake_exc)
                else:
                    self.opened.set_result(None)
            elif event.opcode is Opcode.TEXT or event.opcode is Opcode.CONT:
                if event.fin and not self.parts:
                    self.on_text(event.data.decode())
                elif event.fin:
                    text, self.parts = b"".join((*self.parts, event.data)).decode(), []
                    self.on_text(text)
                else:
                    self.parts.append(event.data)
        self._write()

    def _write(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()
            else:
                self.transport.close()
        if self.protocol.close_expected() and self.abort_timer is None and not self.lost.done():
            self.abort_timer = asyncio.get_running_loop().call_later(2, self.transport.abort)

    # what the client calls
    def send(self, text: str) -> None:
        if self.protocol.state is not State.OPEN:
            raise ConnectionError("socket closed")
        self.protocol.send_text(text.encode())
        self._write()

    async def close(self) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            self._write()
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), 2)
        except TimeoutError:
            self.transport.abort()


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
        if not run.stopping:
            if run.measuring:
                run.stats.dropped += 1
                run.stats.errors += 1
            else:
                run.stats.setup_errors["dropped"] += 1
        for fut in self.answers.values():
            if not fut.done():
                fut.set_exception(ConnectionError("socket closed"))

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
                self.version, self.view = version, frame.get("view", self.view)
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

    async def play(self, t0: float) -> dict:
        """Play from t0 (this process's monotonic clock) for plan.seconds, then wait for what is on its way."""
        await asyncio.sleep(max(0.0, t0 - time.monotonic()))
        self.playing = True
        self.measuring = self.plan.warmup <= 0
        for t in self.tables:
            t.pacer.begin(t0)
            for c in t.clients:
                c.poke()
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
                "setup_errors": dict(s.setup_errors), "cpu_seconds": cpu}


def setup_limit(tables: int) -> float:
    """Seconds a worker may take to connect, seat and start its tables (the server may be slow to accept)."""
    return 120 + 0.5 * tables


def _worker(plan: Plan, start: multiprocessing.Queue, out: multiprocessing.Queue) -> None:
    """A worker process: set up its tables, report ready, wait for the common start time, play."""
    if plan.seed is not None:
        random.seed(plan.seed)

    async def main():
        run = Run(plan)
        setup = await run.set_up(setup_limit(len(plan.tables)))
        out.put(("ready", os.getpid(), setup, dict(run.stats.setup_errors)))
        loop = asyncio.get_running_loop()
        wall_t0 = await loop.run_in_executor(None, start.get)
        if wall_t0 is None:  # told to give up
            run.stopping = True
            return {}
        result = await run.play(time.monotonic() + (wall_t0 - time.time()))
        result["setup_seconds"] = setup
        return result

    try:
        out.put(("result", os.getpid(), asyncio.run(main())))
    except BaseException as e:  # report, do not hang the parent
        out.put(("failed", os.getpid(), f"{type(e).__name__}: {e}"))


# --- the server's processes, seen from /proc -------------------------------------------------------------


def listening_pids(ports: set[int]) -> set[int]:
    """Processes with a socket listening on one of `ports` (Linux /proc; empty where unreadable)."""
    inodes = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) in ports:
                        inodes.add(parts[9])
        except OSError:
            continue
    pids = set()
    for pid in _all_pids():
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    pids.add(pid)
                    break
        except OSError:
            continue
    return pids


def _all_pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def with_children(pids: set[int]) -> set[int]:
    parents = {}
    for pid in _all_pids():
        try:
            with open(f"/proc/{pid}/stat") as f:
                parents[pid] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    out, grew = set(pids), True
    while grew:
        more = {p for p, parent in parents.items() if parent in out} - out
        out |= more
        grew = bool(more)
    return out


class ProcessWatch:
    """Peak resident memory (sampled) and CPU time of some processes over the measured window."""

    def __init__(self, pids: set[int]):
        self.pids = sorted(pids)
        self.names = {p: _cmdline(p) for p in self.pids}
        self.peak = {p: 0 for p in self.pids}
        self.cpu0 = {p: _cpu_ticks(p) for p in self.pids}
        self.t0 = time.monotonic()

    def sample(self) -> None:
        for p in self.pids:
            self.peak[p] = max(self.peak[p], _rss_bytes(p))

    def report(self) -> list[dict]:
        elapsed = time.monotonic() - self.t0
        hz = os.sysconf("SC_CLK_TCK")
        out = []
        for p in self.pids:
            cpu = _cpu_ticks(p)
            entry = {"pid": p, "name": self.names[p], "peak_rss_mb": round(self.peak[p] / 2**20, 1)}
            if cpu is not None and self.cpu0[p] is not None and elapsed > 0:
                entry["cpu_percent"] = round(100 * (cpu - self.cpu0[p]) / hz / elapsed, 1)
            out.append(entry)
        return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return "?"
    words = [a for a in args if not a.startswith("-") and "python" not in os.path.basename(a)]
    return " ".join(os.path.basename(w) for w in words[:3])[:60]


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _cpu_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


# --- the whole run -----------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of sorted values."""
    if not values:
        return None
    return values[min(len(values) - 1, max(0, math.ceil(q / 100 * len(values)) - 1))]


def execute(plan: Plan, *, workers: int, pids: set[int], log=print) -> dict:
    """Run `plan` split over `workers` processes; returns the merged figures."""
    workers = max(1, min(workers, len(plan.tables)))
    ctx = multiprocessing.get_context("spawn")  # nothing of this process (threads, database sockets) is inherited
    out = ctx.Queue()
    starts = [ctx.Queue() for _ in range(workers)]
    procs = []
    for w in range(workers):
        sub = Plan(**{**plan.__dict__, "tables": plan.tables[w::workers],
                      "seed": None if plan.seed is None else plan.seed + w})
        p = ctx.Process(target=_worker, args=(sub, starts[w], out), daemon=True)
        p.start()
        procs.append(p)
    results, setup_errors, setup_seconds = [], Counter(), 0.0
    try:
        ready = 0
        deadline = time.monotonic() + setup_limit(len(plan.tables)) + 60
        while ready < workers:
            kind, _pid, *rest = _get(out, deadline, "the workers' setup")
            if kind == "failed":
                raise LoadTestError(f"a load worker failed: {rest[0]}")
            ready += 1
            setup_seconds = max(setup_seconds, rest[0])
            setup_errors.update(rest[1])
        if plan.warmup > 0:
            log(f"setup done in {setup_seconds:.1f} s; warming up for {plan.warmup:g} s (not measured)...")
        else:
            log(f"setup done in {setup_seconds:.1f} s; measuring for {plan.seconds:g} s...")
        wall_t0 = time.time() + 1.0
        for q in starts:
            q.put(wall_t0)
        time.sleep(max(0.0, wall_t0 + plan.warmup - time.time()))
        if plan.warmup > 0:
            log(f"measuring for {plan.seconds:g} s...")
        watch = ProcessWatch(pids)
        end = time.monotonic() + plan.seconds
        while time.monotonic() < end:
            watch.sample()
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        watch.sample()
        servers = watch.report()
        deadline = time.monotonic() + GRACE_SECONDS + ANSWER_SECONDS + 30
        while len(results) < workers:
            kind, _pid, payload = _get(out, deadline, "the workers' results")
            if kind == "failed":
                raise LoadTestError(f"a load worker failed: {payload}")
            results.append(payload)
    finally:
        for q in starts:
            q.put(None)
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    return merge(plan, results, servers=servers, setup_seconds=setup_seconds, setup_errors=setup_errors,
                 workers=workers)


def _get(q, deadline: float, what: str):
    try:
        return q.get(timeout=max(0.1, deadline - time.monotonic()))
    except queue_module.Empty:
        raise LoadTestError(f"timed out waiting for {what}") from None


def merge(plan: Plan, results: list[dict], *, servers: list[dict], setup_seconds: float, setup_errors: Counter,
          workers: int) -> dict:
    lat = sorted(x for r in results for x in r["latencies"])
    total = Counter()
    for r in results:
        total.update({k: r[k] for k in ("commands", "errors", "dropped", "unanswered", "lost", "hands", "versions",
                                        "frames", "frame_bytes", "resyncs")})
    codes = Counter()
    for r in results:
        codes.update(r["error_codes"])
    cpu = sum(r["cpu_seconds"] for r in results)
    s = plan.seconds

    def ms(x):
        return None if x is None else round(x, 1)

    return {
        "tables": len(plan.tables), "seconds": s, "warmup": plan.warmup, "commands": total["commands"],
        "hands": total["hands"],
        "errors": total["errors"],
        "latency_ms": {"p50": ms(percentile(lat, 50)), "p95": ms(percentile(lat, 95)),
                       "p99": ms(percentile(lat, 99)), "max": ms(lat[-1] if lat else None)},
        "rate": "max" if plan.rate is None else plan.rate, "bare": plan.bare,
        "sockets": sum(len(t.seats) for t in plan.tables),
        "commands_per_second": round(total["commands"] / s, 1),
        "completed": len(lat), "lost": total["lost"], "unanswered": total["unanswered"],
        "dropped": total["dropped"], "error_codes": dict(codes), "resyncs": total["resyncs"],
        "versions_per_second": round(total["versions"] / s, 1),
        "frames_per_second": round(total["frames"] / s, 1),
        "mean_frame_bytes": round(total["frame_bytes"] / total["frames"]) if total["frames"] else 0,
        "setup_seconds": round(setup_seconds, 1), "setup_errors": dict(setup_errors),
        "generator": {"workers": workers, "cpu_percent": round(100 * cpu / s, 1)},
        "servers": servers,
    }


def format_report(r: dict, urls: list[str]) -> str:
    lat = r["latency_ms"]
    rate = "as fast as the game allows" if r["rate"] == "max" else f"{r['rate']:g} commands/s per table"
    lines = [
        f"{'bare relay' if r['bare'] else 'loadtest'}: {r['tables']} tables ({r['sockets']} sockets) on "
        f"{', '.join(urls)}; {r['seconds']:g} s at {rate}"
        + (f", after {r['warmup']:g} s of warm-up" if r.get("warmup") else ""),
        f"commands {r['commands']} ({r['commands_per_second']:g}/s), completed {r['completed']}, hands {r['hands']},"
        f" table versions {r['versions_per_second']:g}/s, frames received {r['frames_per_second']:g}/s"
        f" (mean {r['mean_frame_bytes']} bytes)",
        f"latency to every seat, ms: p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}",
        f"errors {r['errors']} (dropped sockets {r['dropped']}, error frames {dict(r['error_codes']) or 0}),"
        f" lost {r['lost']}, unanswered {r['unanswered']}, resyncs {r['resyncs']}",
        f"setup {r['setup_seconds']} s" + (f", setup errors {r['setup_errors']}" if r["setup_errors"] else ""),
        f"generator: {r['generator']['workers']} process(es), {r['generator']['cpu_percent']}% of one core",
    ]
    for p in r["servers"]:
        lines.append(f"server pid {p['pid']} ({p['name']}): peak RSS {p['peak_rss_mb']} MB, "
                     f"CPU {p.get('cpu_percent', '?')}% of one core")
    return "\n".join(lines)
