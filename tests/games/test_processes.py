"""Live tables across real processes: daphne servers, a Celery worker and beat, real WebSocket clients.

Nothing is mocked. Each child process gets its environment explicitly (tests/servers.py `child_env`):
the in-process settings of tests/games/conftest.py (Celery eager, no bot pause) do not reach it.
Every wait is bounded and every child process is stopped in a `finally`.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games import services
from games.models import Hand, HandEvent, HandSeat, Table
from tests.games.conftest import BEANS, assert_holds_match_table, assert_ledger_clean, make_player
from tests.servers import ROOT, child_env, daphne, free_port

pytestmark = pytest.mark.django_db(transaction=True)

BUY_IN = 1_000
BANK = 500
STAKE = 20

# Web processes in these tests have no Celery worker: the wakes they schedule (the next hand once the
# bank is open) run inline, like `make run` without honcho. Timers are long: nobody times out here.
WEB_ENV = {"CELERY_TASK_ALWAYS_EAGER": "1", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "600",
           "LOG_LEVEL": "WARNING"}
LONG_TIMERS = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}
# A worker applies deadlines on its own; the next hand is far away so a test sees one hand only.
WORKER_ENV = {"CELERY_TASK_ALWAYS_EAGER": "0", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "600",
              "LOG_LEVEL": "INFO"}


@pytest.fixture(autouse=True)
def _table_settings(settings):
    """Overrides tests/games/conftest.py: this process is one more web process, so what it schedules goes
    to the real broker for the worker (not inline); the first hand starts as soon as the bank is open."""
    settings.WELCOME_BEANS = BEANS
    settings.PRACTICE_POINTS_CEILING = BEANS
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 600


def wait_until(what: str, predicate, timeout: float, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def table_of(room) -> Table:
    return Table.objects.get(pk=room.pk)


def events_of(room, type_: str, **match) -> list[HandEvent]:
    return [e for e in HandEvent.objects.filter(room=room, type=type_).order_by("version", "seq")
            if all(e.data.get(k) == v for k, v in match.items())]


# --- real WebSocket clients -------------------------------------------------------------------------------


class Player:
    """One user's real WebSocket connection with a real session cookie. Keeps the newest view and
    every `update` frame by version (a version delivered twice is a failure)."""

    def __init__(self, user):
        self.user = user
        client = Client()
        client.force_login(user)  # a real session row in the (committed) test database
        self.cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
        self.ws = None
        self._sockets = contextlib.ExitStack()
        self.reset()

    def reset(self) -> None:
        self.updates: dict[int, dict] = {}
        self.version = -1
        self.view: dict | None = None
        self.snapshot: dict | None = None

    @property
    def seat(self) -> str | None:
        return self.view["you"] if self.view else None

    def connect(self, base: str, code: str) -> dict:
        self.reset()
        self.close()
        self.ws = self._sockets.enter_context(connect(
            base.replace("http://", "ws://") + f"/ws/rooms/{code}/", origin=base, open_timeout=10, close_timeout=2,
            additional_headers={"Cookie": f"{django_settings.SESSION_COOKIE_NAME}={self.cookie}"},
        ))
        self.snapshot = self.next(lambda f: f["type"] == "snapshot", what="the snapshot")
        return self.snapshot

    def close(self) -> None:
        self._sockets.close()

    def _read(self, timeout: float) -> dict:
        frame = json.loads(self.ws.recv(timeout=timeout))
        assert isinstance(frame.get("version"), int), frame
        if frame["type"] == "update":
            assert frame["version"] not in self.updates, f"{self.user} got v{frame['version']} twice"
            self.updates[frame["version"]] = frame
        if frame["type"] in ("snapshot", "update") and frame["version"] >= self.version:
            self.version, self.view = frame["version"], frame["view"]
        return frame

    def next(self, predicate, *, what: str, timeout: float = 15) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                frame = self._read(remaining)
            except TimeoutError:
                raise AssertionError(f"{self.user}: no {what} within {timeout}s (at v{self.version})") from None
            if predicate(frame):
                return frame

    def act(self, action: str, **args) -> int:
        """Send an action and wait for its ack; returns the version it made."""
        action_id = uuid.uuid4().hex
        self.ws.send(json.dumps({"type": "action", "action": action, "args": args, "action_id": action_id}))
        frame = self.next(lambda f: f.get("action_id") == action_id and f["type"] in ("ack", "error"),
                          what=f"answer to {action}")
        assert frame["type"] == "ack", frame
        return frame["version"]

    def catch_up(self, version: int) -> None:
        if self.version < version:
            self.next(lambda f: self.version >= version, what=f"v{version}")

    def wait_closed(self, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        with contextlib.suppress(ConnectionClosed):
            while time.monotonic() < deadline:
                with contextlib.suppress(TimeoutError):
                    self._read(max(deadline - time.monotonic(), 0.01))
            raise AssertionError(f"{self.user}: the socket stayed open after the server stopped")

    def own_cards(self) -> list[dict]:
        return self.view["hand"]["hands"][self.seat][0]["cards"]


def everyone_at(players: list[Player], room) -> int:
    """Every player has seen the table's current version (through an update or a snapshot)."""
    version = table_of(room).version
    for p in players:
        p.catch_up(version)
    return version


def play_out(players: list[Player], room, *, hit_below: float = 4) -> None:
    """Each player acts on their own turn until the hand is over: hit once on a small card, else stand."""
    by_seat = {p.seat: p for p in players}
    for _step in range(30):
        view = players[0].view
        if view["phase"] != "playing":
            return
        seat = view["hand"]["turn"]["seat"]
        p = by_seat[seat]
        assert p.view["legal_actions"], p.view
        mine = p.view["hand"]["hands"][seat][0]
        action = "hit" if len(mine["cards"]) == 1 and mine["total"] < hit_below else "stand"
        p.act(action)
        everyone_at(players, room)
    raise AssertionError("the hand did not end in 30 moves")


def sit_and_deal(players: list[Player], room) -> None:
    """Everyone sits, the host (players[0]) starts and opens the bank, the challengers bet: cards are out."""
    for p in players:
        p.act("sit", buy_in=BUY_IN)
        everyone_at(players, room)
    host = players[0]
    host.act("start")
    everyone_at(players, room)
    assert host.view["pending"] == {"kind": "open", "seat": host.seat}
    host.act("open_bank", amount=BANK)
    everyone_at(players, room)  # the next hand starts at once (GAMES_BOT_SECONDS=0, inline wake)
    assert host.view["phase"] == "betting", host.view["phase"]
    for p in players[1:]:
        p.act("bet", amount=STAKE)
        everyone_at(players, room)
    assert all(p.view["phase"] == "playing" for p in players)


def assert_hand_over_and_settled(players: list[Player], room) -> None:
    t = table_of(room)
    assert t.state["phase"] == "between_hands"
    hand = Hand.objects.get(room=room, number=1)
    assert hand.ended_at is not None and hand.seed
    deltas = {p.seat: p.view["last_hand"]["deltas"][p.seat] for p in players}
    assert sum(deltas.values()) == 0, deltas
    assert {p.view["last_hand"]["seed"] for p in players} == {hand.seed}
    assert dict(HandSeat.objects.filter(hand=hand).values_list("seat_id", "delta")) == deltas
    for p in players:
        assert p.version == t.version
        seat = next(x for x in p.view["seats"] if x["id"] == p.seat)
        owned = seat["stack"] + (p.view["bank"] if p.view["banker"] == p.seat else 0)
        assert owned == BUY_IN + deltas[p.seat], (p.user, owned, deltas)
    assert_ledger_clean()
    assert_holds_match_table(room)


def assert_private_cards(p: Player) -> None:
    """Own face-down cards are shown to their owner only; everyone else's are hidden."""
    for seat, hands in p.view["hand"]["hands"].items():
        for card in hands[0]["cards"]:
            if seat == p.seat:
                assert card.get("card") and card["up"] is False, card
            else:
                assert card == {"hidden": True}, card


# --- two daphne processes on PostgreSQL + Redis ------------------------------------------------------


@pytest.mark.services
def test_four_players_on_two_daphne_processes_play_a_hand_and_see_every_move():
    cast = {name: make_player(name) for name in ("alice", "bob", "chen", "dara")}
    room = services.room_create(host=cast["alice"], preset="ten-half", overrides=LONG_TIMERS)
    players = [Player(u) for u in cast.values()]
    alice, bob, chen, dara = players
    # The watcher's resync would hide a lost group message: only the Redis fan-out may deliver here.
    env = {**WEB_ENV, "GAMES_RESYNC_SECONDS": "600"}
    with daphne(**env) as web_a, daphne(**env) as web_b:
        assert web_a != web_b
        try:
            for p, base in ((alice, web_a), (bob, web_a), (chen, web_b), (dara, web_b)):
                p.connect(base, room.code)
            start = table_of(room).version
            assert {p.snapshot["version"] for p in players} == {start}

            sit_and_deal(players, room)
            for p in players:
                assert_private_cards(p)
            play_out(players, room)
            final = everyone_at(players, room)
        finally:
            for p in players:
                p.close()

    # Every version reached every player as an update, on both processes, with the same events
    # (each redacted for its viewer: nobody saw another player's face-down card go by).
    for p in players:
        assert sorted(p.updates) == list(range(start + 1, final + 1)), (p.user, sorted(p.updates))
    for version in range(start + 1, final + 1):
        kinds = {tuple(e["type"] for e in p.updates[version]["events"]) for p in players}
        assert len(kinds) == 1, (version, kinds)
        for p in players:
            for e in p.updates[version]["events"]:
                if e["type"] == "card_dealt" and e["face"] == "down":
                    assert ("card" in e) == (e["seat"] == p.seat), (p.user, e)

    def seen(p: Player, type_: str, seat: str) -> bool:
        return any(e["type"] == type_ and e.get("seat") == seat for f in p.updates.values() for e in f["events"])

    # Across processes: chen and dara (web B) saw bob's bet, alice and bob (web A) saw dara's.
    assert seen(chen, "bet_confirmed", bob.seat) and seen(dara, "bet_confirmed", bob.seat)
    assert seen(alice, "bet_confirmed", dara.seat) and seen(bob, "bet_confirmed", dara.seat)
    for p in players:
        assert seen(p, "bank_opened", alice.seat)
        for q in players:
            assert seen(p, "action", q.seat), (p.user, q.user)  # every seat's turn, seen by everyone
    assert_hand_over_and_settled(players, room)


# --- a daphne restart in the middle of a hand (SQLite + in-memory, or PostgreSQL + Redis) ----------


@pytest.mark.faults
def test_players_reconnect_after_a_daphne_restart_and_finish_the_hand():
    cast = {name: make_player(name) for name in ("alice", "bob", "chen")}
    room = services.room_create(host=cast["alice"], preset="ten-half", overrides=LONG_TIMERS)
    players = [Player(u) for u in cast.values()]
    port = free_port()
    try:
        with daphne(port=port, **WEB_ENV) as base:
            for p in players:
                p.connect(base, room.code)
            sit_and_deal(players, room)
            first = players[0].view["hand"]["turn"]["seat"]
            by_seat = {p.seat: p for p in players}
            by_seat[first].act("stand")  # the hand is under way: one turn played, the others not yet
            middle = everyone_at(players, room)
            seats = [p.seat for p in players]
            cards = {p.seat: p.own_cards() for p in players}
            for p in players:
                assert_private_cards(p)
        # daphne is gone (SIGTERM); the sockets close and the table waits in the database.
        for p in players:
            p.wait_closed()
        assert table_of(room).version == middle
        assert table_of(room).state["phase"] == "playing"

        with daphne(port=port, **WEB_ENV) as again:
            assert again == base
            for p, seat in zip(players, seats, strict=True):
                snapshot = p.connect(again, room.code)
                assert snapshot["version"] == middle
                assert snapshot["me"]["seat"] == seat
                assert p.own_cards() == cards[seat]  # the face-down card, to its owner only
                assert_private_cards(p)
            turn = players[0].view["hand"]["turn"]["seat"]
            assert turn != first
            assert "stand" in by_seat[turn].view["legal_actions"]
            play_out(players, room)
            final = everyone_at(players, room)
            for p in players:
                assert sorted(p.updates) == list(range(middle + 1, final + 1))
    finally:
        for p in players:
            p.close()
    assert_hand_over_and_settled(players, room)
    assert len(events_of(room, "hand_over")) == 1


# --- a real Celery worker: timeouts, duplicates, a killed worker -------------------------------------

SUCCEEDED = re.compile(r"Task games\.(\w+)\[([^\]]+)\] succeeded in \S+s: (.*)$", re.MULTILINE)
RECEIVED = re.compile(r"Task games\.(\w+)\[([^\]]+)\] received")


class CeleryProcess:
    """`celery -A config <args>` on the test database; its log goes to a file we can read."""

    def __init__(self, args: list[str], log: Path, **env: str):
        self.log = log
        self._file = open(log, "ab")  # closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args], cwd=ROOT,
                                     env=child_env(**env), stdout=self._file, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def results(self, task: str = "table_wake") -> dict[str, str]:
        """task id -> what it returned (its repr, quotes removed), for every run of `task` that succeeded."""
        return {tid: result.strip().strip("'") for name, tid, result in SUCCEEDED.findall(self.text())
                if name == task}

    def holding(self, task: str = "table_wake") -> set[str]:
        """Ids of the tasks received and not finished (an ETA task waits in the worker's memory)."""
        received = {tid for name, tid in RECEIVED.findall(self.text()) if name == task}
        return received - set(self.results(task))

    def wait_for(self, what: str, predicate, timeout: float = 30):
        def check():
            if self.proc.poll() is not None:
                raise AssertionError(f"celery exited ({self.proc.returncode}):\n{self.text()[-3000:]}")
            return predicate()

        try:
            return wait_until(what, check, timeout)
        except AssertionError as e:
            raise AssertionError(f"{e}\n--- celery log ---\n{self.text()[-3000:]}") from None

    def kill(self) -> None:
        """kill -9: no warm shutdown, the tasks it holds are not given back."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._file.close()


@contextlib.contextmanager
def celery_processes():
    """Start Celery workers and beat on demand; all of them are stopped when the block ends."""
    started: list[CeleryProcess] = []
    with tempfile.TemporaryDirectory(prefix="halfpoint-celery-") as tmp:
        tmp = Path(tmp)

        def worker(name: str) -> CeleryProcess:
            # Threads: several tasks at once in one process, so kill -9 takes every one of them.
            node = f"{name}-{uuid.uuid4().hex[:8]}@%h"
            w = CeleryProcess(["worker", "-P", "threads", "-c", "4", "-l", "INFO", "-n", node, "--without-gossip",
                               "--without-mingle", "--without-heartbeat"], tmp / f"{name}.log", **WORKER_ENV)
            started.append(w)
            w.wait_for(f"worker {name} to be ready", lambda: " ready." in w.text())
            return w

        def beat() -> CeleryProcess:
            b = CeleryProcess(["beat", "-l", "INFO", "-s", str(tmp / "beat-schedule"), "--max-interval", "1"],
                              tmp / "beat.log", **WORKER_ENV)
            started.append(b)
            return b

        try:
            yield worker, beat
        finally:
            for p in reversed(started):
                p.stop()


@pytest.fixture
def fresh_broker():
    """No message left by an earlier run reaches this test's workers."""
    from config.celery import app

    app.control.purge()


def open_table(*, bet_seconds: int, act_seconds: int, challengers: tuple[str, ...] = ("bob",)):
    """alice banks, the challengers challenge; the host starts and opens the bank from this process (the
    test is one more web process), so the first hand is started by the worker. Returns the room, the
    users and their seat ids by name."""
    users = {name: make_player(name) for name in ("alice", *challengers)}
    room = services.room_create(host=users["alice"], preset="ten-half",
                                overrides={"bet_seconds": bet_seconds, "act_seconds": act_seconds, "bank_seconds": 600})
    for user in users.values():
        services.seat_take(room_id=room.pk, user=user, buy_in=BUY_IN)
    services.action_submit(room_id=room.pk, user=users["alice"], action="start")
    services.action_submit(room_id=room.pk, user=users["alice"], action="open_bank", args={"amount": BANK})
    meta = table_of(room).meta
    return room, users, {name: meta["users"][str(u.pk)] for name, u in users.items()}


def in_phase(room, phase: str) -> Table | None:
    t = table_of(room)
    return t if t.state["phase"] == phase else None


@pytest.mark.services
def test_a_silent_player_gets_the_default_stake_then_stands(fresh_broker):
    # Bob watches through a daphne process: what the worker does reaches his socket through Redis alone.
    web_env = {**WEB_ENV, "CELERY_TASK_ALWAYS_EAGER": "0", "GAMES_RESYNC_SECONDS": "600"}
    with celery_processes() as (worker, _beat), daphne(**web_env) as web:
        w = worker("w1")
        room, users, seats = open_table(bet_seconds=3, act_seconds=4)  # alice (this test) acts well within 4 s
        alice, alice_seat, bob_seat = users["alice"], seats["alice"], seats["bob"]
        watcher = Player(users["bob"])
        start = watcher.connect(web, room.code)["version"]
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        assert betting.state["deadline_for"] == [bob_seat]
        bet_deadline = betting.state["deadline"]

        playing = w.wait_for("the betting deadline", lambda: in_phase(room, "playing"), timeout=15)
        (defaulted,) = events_of(room, "bet_defaulted")
        assert defaulted.data == {"type": "bet_defaulted", "seat": bob_seat, "amount": 10}  # the base stake
        assert defaulted.actor == "system"
        # Applied by the worker's own timer (no beat runs here) at the deadline, not before it.
        assert bet_deadline <= defaulted.created_at.timestamp() < bet_deadline + 5
        assert playing.state["hand"]["bets"][bob_seat] == {"amount": 10, "confirmed": True}

        def step():
            t = table_of(room)
            if t.state["phase"] != "playing":
                return t
            if t.state["hand"]["turn"][0] == alice_seat:
                services.action_submit(room_id=room.pk, user=alice, action="stand")
            return None

        over = w.wait_for("the acting deadline and the end of the hand", step, timeout=20)
        assert over.state["phase"] == "between_hands"
        bob_moves = [e.data["action"] for e in events_of(room, "action", seat=bob_seat)]
        assert bob_moves == ["stand"]  # the timeout's default, once
        (stood,) = events_of(room, "action", seat=bob_seat)
        assert stood.actor == "system"
        assert over.meta["timed"] == [bob_seat] and over.meta["acted"] == [alice_seat]
        assert over.meta["streak"] == {alice_seat: 0, bob_seat: 1}  # a hand played entirely by timeouts
        assert list(w.results().values()).count("timeout") == 2

        watcher.catch_up(over.version)
        watcher.close()
        assert sorted(watcher.updates) == list(range(start + 1, over.version + 1))
        seen = [(e["type"], e.get("action")) for f in watcher.updates.values() for e in f["events"]
                if e.get("seat") == bob_seat and e["type"] in ("bet_defaulted", "action")]
        assert seen == [("bet_defaulted", None), ("action", "stand")]
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
def test_a_timeout_delivered_twice_applies_once(fresh_broker):
    from games import tasks

    with celery_processes() as (worker, _beat):
        w = worker("w1")
        room, _users, seats = open_table(bet_seconds=4, act_seconds=600)
        bob_seat = seats["bob"]
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        version = betting.version
        # The worker already holds its own task for this deadline; two more copies of it arrive, due at once,
        # and run side by side (4 threads): the row lock and the version check let exactly one through.
        eta = betting.deadline + timedelta(milliseconds=300)
        copies = [f"copy-{uuid.uuid4()}" for _ in range(2)]
        for task_id in copies:
            tasks.table_wake.apply_async((room.pk, version), eta=eta, task_id=task_id)
        w.wait_for("both copies to run", lambda: set(copies) <= set(w.results()), timeout=20)
        w.wait_for("the worker's own timeout task", lambda: len(w.results()) >= len(copies) + 2, timeout=10)

        t = table_of(room)
        assert t.version == version + 1  # one step: nothing else is due before act_seconds
        assert t.state["phase"] == "playing"
        assert [e.version for e in events_of(room, "bet_defaulted", seat=bob_seat)] == [version + 1]
        assert len(events_of(room, "betting_closed")) == 1
        # Exactly one of the three deliveries applied the timeout; each copy either did or found the table moved on.
        results = w.results()
        assert list(results.values()).count("timeout") == 1, results
        assert {results[c] for c in copies} <= {"timeout", "stale"}, results
        # And once more by hand, long after: still nothing.
        assert services.table_wake(room_id=room.pk, version=version) == "stale"
        assert table_of(room).version == version + 1
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
@pytest.mark.faults
def test_a_timeout_held_by_a_killed_worker_is_applied_once_by_the_sweeper(fresh_broker):
    from games import tasks

    with celery_processes() as (worker, beat):
        w1 = worker("w1")
        room, _users, seats = open_table(bet_seconds=6, act_seconds=600)
        bob_seat = seats["bob"]
        betting = w1.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        version, deadline = betting.version, betting.state["deadline"]
        # w1 started the hand and scheduled the betting timeout, which it now holds in memory until its ETA
        # (with the bank offer's, due in 600 s and long stale by then).
        w1.wait_for("w1 to hold the timeout task", lambda: len(w1.holding()) == 2, timeout=10)
        assert time.time() < deadline - 3, "too slow: the ETA is about to be reached"
        w1.kill()

        # A live worker is not enough: the task died with w1 (Redis keeps it unacked for an hour).
        w2 = worker("w2")
        time.sleep(max(deadline + 2 - time.time(), 0))
        assert table_of(room).version == version
        assert "timeout" not in w2.results().values()

        beat()
        playing = w2.wait_for("the sweeper to apply the timeout", lambda: in_phase(room, "playing"), timeout=30)
        assert playing.version == version + 1
        assert [e.version for e in events_of(room, "bet_defaulted", seat=bob_seat)] == [version + 1]
        w2.wait_for("the sweep's report", lambda: f"({room.pk}, 'timeout')" in " ".join(w2.results("sweep").values()),
                    timeout=5)

        # The old task, delivered late (a redelivery), does nothing.
        late = f"late-{uuid.uuid4()}"
        tasks.table_wake.apply_async((room.pk, version), task_id=late)
        w2.wait_for("the late task to run", lambda: late in w2.results(), timeout=15)
        assert w2.results()[late] == "stale"
        assert services.table_wake(room_id=room.pk, version=version) == "stale"
        t = table_of(room)
        assert t.version == version + 1
        assert len(events_of(room, "bet_defaulted")) == 1 and len(events_of(room, "betting_closed")) == 1
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
def test_releasing_an_away_banker_mid_hand_keeps_the_clock_running(fresh_broker):
    """A seat away for too long is released; in a hand it leaves after the hand, so its release time stays
    behind us until then. The hand's next deadline must still get its timer: no beat runs here to cover."""
    with celery_processes() as (worker, _beat):
        w = worker("w1")
        room, users, seats = open_table(bet_seconds=5, act_seconds=600, challengers=("bob", "chen"))
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        # The banker timed out hand after hand and was marked away long ago (what _bookkeeping records).
        meta = {**betting.meta, "away": {seats["alice"]: time.time() - services.AWAY_RELEASE_SECONDS - 1}}
        Table.objects.filter(pk=room.pk, version=betting.version).update(meta=meta)
        services.action_submit(room_id=room.pk, user=users["bob"], action="bet", args={"amount": STAKE})

        w.wait_for("the release", lambda: events_of(room, "seat_leaving", seat=seats["alice"]), timeout=10)
        t = table_of(room)
        assert t.state["phase"] == "betting" and t.wake_at == t.deadline
        w.wait_for("chen's default stake, on time", lambda: in_phase(room, "playing"), timeout=10)
        (defaulted,) = events_of(room, "bet_defaulted")
        assert defaulted.data["seat"] == seats["chen"]
        assert defaulted.created_at.timestamp() < betting.state["deadline"] + 5

        def step():
            t = table_of(room)
            if t.state["phase"] != "playing":
                return t
            for name in ("bob", "chen"):
                if t.state["hand"]["turn"][0] == seats[name]:
                    services.action_submit(room_id=room.pk, user=users[name], action="stand")
            return None

        over = w.wait_for("the end of the hand", step, timeout=15)
        assert seats["alice"] not in over.meta["seats"] and over.state["banker"] is None
    assert_ledger_clean()
    assert_holds_match_table(room)
