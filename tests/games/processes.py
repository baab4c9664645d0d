"""Shared by the tests that run real processes (test_processes.py, test_faults.py): real WebSocket clients
with session cookies, Celery workers and beat as child processes, and the table moves they make.

Every wait is bounded; every child process started here is stopped when its block ends.
"""

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

from django.conf import settings as django_settings
from django.test import Client
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games.models import Hand, HandEvent, HandSeat, Table
from tests.games.conftest import BEANS, acked, answers, assert_holds_match_table, assert_ledger_clean
from tests.servers import ROOT, child_env

BUY_IN = 1_000
BANK = 500
STAKE = 20

# Web processes in these tests have no Celery worker: the wakes they schedule (the next hand once the
# bank is open) run inline, like `make run` without honcho. Timers are long: nobody times out here.
WEB_ENV = {"CELERY_TASK_ALWAYS_EAGER": "1", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "600",
           "LOG_LEVEL": "WARNING"}
# A worker applies deadlines on its own; the next hand is far away so a test sees one hand only.
WORKER_ENV = {"CELERY_TASK_ALWAYS_EAGER": "0", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "600",
              "LOG_LEVEL": "INFO"}


def one_more_web_process(settings) -> None:
    """The test process is one more web process: what it schedules goes to the real broker for the worker (not
    inline, as tests/games/conftest.py sets); the first hand starts as soon as the bank is open."""
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
    every `update` frame by version (a version delivered twice is a failure); `frames` keeps every frame
    of every connection."""

    def __init__(self, user):
        self.user = user
        client = Client()
        client.force_login(user)  # a real session row in the (committed) test database
        self.cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
        self.ws = None
        self._sockets = contextlib.ExitStack()
        self.frames: list[dict] = []
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
        self.frames.append(frame)
        if frame["type"] == "update":
            assert frame["version"] not in self.updates, f"{self.user} got v{frame['version']} twice"
            self.updates[frame["version"]] = frame
        if frame["type"] in ("snapshot", "update") and frame["version"] >= self.version:
            self.version, self.view = frame["version"], frame["view"] or self.view  # a filled past version has no view
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

    def drain(self, seconds: float) -> None:
        """Read whatever arrives within `seconds` (ConnectionClosed if the socket drops)."""
        deadline = time.monotonic() + seconds
        with contextlib.suppress(TimeoutError):
            while (remaining := deadline - time.monotonic()) > 0:
                self._read(remaining)

    def answer(self, action: str, **args) -> dict:
        """Send an action and return its answer: the update carrying its ack, an `ack` frame, or an error frame."""
        action_id = uuid.uuid4().hex
        self.ws.send(json.dumps({"type": "action", "action": action, "args": args, "action_id": action_id}))
        return self.next(lambda f: answers(f, action_id), what=f"answer to {action}")

    def act(self, action: str, **args) -> int:
        """Send an action and wait for its ack; returns the version it made."""
        frame = self.answer(action, **args)
        assert acked(frame), frame
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
    everyone_at(players, room)  # the next hand starts at once (GAMES_BOT_SECONDS=0), inline or by a worker
    if host.view["phase"] != "betting":
        host.next(lambda f: host.view["phase"] == "betting", what="the first hand")
        everyone_at(players, room)
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


SUCCEEDED = re.compile(r"Task games\.(\w+)\[([^\]]+)\] succeeded in \S+s: (.*)$", re.MULTILINE)
RECEIVED = re.compile(r"Task games\.(\w+)\[([^\]]+)\] received")


class CeleryProcess:
    """`celery -A config <args>` on the test database; its log goes to a file we can read."""

    node = ""  # a worker's node name

    def __init__(self, args: list[str], log: Path, **env: str):
        self.log = log
        self.env = child_env(**env)
        self._file = open(log, "ab")  # closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args], cwd=ROOT,
                                     env=self.env, stdout=self._file, stderr=subprocess.STDOUT)

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

    def scheduled(self) -> list[tuple[list, dict, datetime]]:
        """The arguments, keyword arguments and ETA of the ETA tasks this worker holds in memory, asked over
        its broker (what `celery inspect scheduled` shows)."""
        from celery import Celery

        app = Celery("probe", broker=self.env["REDIS_URL"], set_as_current=False)
        with app.connection_for_write() as connection:
            replies = app.control.inspect([self.node], timeout=2, connection=connection).scheduled() or {}
        return [(list(entry["request"]["args"]), entry["request"]["kwargs"], datetime.fromisoformat(entry["eta"]))
                for entry in replies.get(self.node, [])]

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
def celery_processes(**env: str):
    """Start Celery workers and beat on demand (WORKER_ENV, plus `env`); all of them are stopped when the block
    ends."""
    env = {**WORKER_ENV, **env}
    started: list[CeleryProcess] = []
    with tempfile.TemporaryDirectory(prefix="halfpoint-celery-") as tmp:
        tmp = Path(tmp)

        def worker(name: str) -> CeleryProcess:
            # Threads: several tasks at once in one process, so kill -9 takes every one of them.
            node = f"{name}-{uuid.uuid4().hex[:8]}@%h"
            w = CeleryProcess(["worker", "-P", "threads", "-c", "4", "-l", "INFO", "-n", node, "--without-gossip",
                               "--without-mingle", "--without-heartbeat"], tmp / f"{name}.log", **env)
            w.node = node.replace("%h", socket.gethostname())
            started.append(w)
            w.wait_for(f"worker {name} to be ready", lambda: " ready." in w.text())
            return w

        def beat() -> CeleryProcess:
            b = CeleryProcess(["beat", "-l", "INFO", "-s", str(tmp / "beat-schedule"), "--max-interval", "1"],
                              tmp / "beat.log", **env)
            started.append(b)
            return b

        try:
            yield worker, beat
        finally:
            for p in reversed(started):
                p.stop()
