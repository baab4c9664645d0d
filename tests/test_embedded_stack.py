"""The embedded default, `make run` with no services: SQLite, the in-memory channel layer and Celery's broker in a
SQLite file (config/broker.py). Its first start on a fresh clone must never crash, whichever of daphne, the
worker and beat touches the broker first, and a message the worker cannot read must not stop it.

These run in the pass without DATABASE_URL and REDIS_URL (the embedded default is what they test), once in CI.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from http.cookiejar import CookieJar
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from kombu import Connection
from websockets.sync.client import connect

from accounts.management.commands.seed_demo import DEMO_PASSWORD, DEMO_PLAYERS
from config.celery import app
from tests.games.conftest import acked, answers
from tests.servers import ROOT, free_port

pytestmark = pytest.mark.skipif(bool(os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL")),
                                reason="tests the embedded default: the pass without DATABASE_URL and REDIS_URL")

STARTS = 20
UP_SECONDS = 20  # beat sends the sweep every 3 s: six ticks and more
VENV = Path(sys.prefix)  # the project's virtualenv, reused rather than installed into each clone
# Settings that would take a process off the embedded default; the children get none of them.
NOT_EMBEDDED = ("DATABASE_URL", "DATABASE_REPLICA_URL", "REDIS_URL", "CELERY_BROKER_DB", "CELERY_TASK_ALWAYS_EAGER",
                "DEBUG", "DJANGO_SETTINGS_MODULE")
DEMO_LOGIN = {"login": DEMO_PLAYERS[0], "password": DEMO_PASSWORD}  # `make run` creates them (seed_demo)


def embedded_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_EMBEDDED}
    return {**env, "PYTHONUNBUFFERED": "1", **extra}


def wait_for(what: str, predicate, timeout: float, log: Path):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}:\n" + log.read_text()[-5000:])
        time.sleep(0.1)
    return value


# --- a worker fed what it cannot read -------------------------------------------------------------------------


def test_the_worker_logs_and_drops_a_message_it_cannot_read_and_goes_on(tmp_path):
    broker = tmp_path / "broker.sqlite3"
    log = tmp_path / "worker.log"
    env = embedded_env(CELERY_BROKER_DB=str(broker), DATABASE_URL=f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    with log.open("wb") as out:
        worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        def seen(text: str):
            assert worker.poll() is None, "the worker stopped:\n" + log.read_text()[-5000:]
            return lambda: text in log.read_text()

        wait_for("the worker", seen(" ready."), 30, log)
        with sqlite3.connect(broker) as db:  # rows as a crashed or foreign writer would leave them
            for payload in ('{"body": "W1tdLCB7fSwgeyJjYWxsYmFja3Mi', "[]"):
                db.execute("INSERT INTO kombu_message (visible, payload, version, queue_id)"
                           " SELECT 1, ?, 1, id FROM kombu_queue WHERE name = 'celery'", (payload,))
        with Connection(f"sqlite:///{broker}", transport="config.broker:Transport") as conn:
            conn.Producer().publish(b"\x00 not json", routing_key="celery", content_type="application/json",
                                    content_encoding="utf-8", headers={"task": "games.sweep", "id": "garbled"})
            probe = app.send_task("celery.accumulate", args=(7,), connection=conn)
        wait_for("the task sent after them", seen(f"{probe.id}] succeeded"), 30, log)
        text = log.read_text()
        assert worker.poll() is None, text
        assert text.count("dropped a message of queue 'celery' that cannot be read") == 2, text
        assert "JSONDecodeError" in text  # the half-written row
        assert "Can't decode message body" in text  # Celery's own handling of a garbled task body
        assert "Unrecoverable error" not in text
        with sqlite3.connect(broker) as db:
            assert db.execute("SELECT COUNT(*) FROM kombu_message").fetchone() == (0,)  # dropped, none left behind
    finally:
        worker.terminate()
        worker.wait(timeout=20)


# --- `make run` from a fresh clone, twenty times --------------------------------------------------------------


def fresh_clone(where: Path) -> Path:
    """A `git clone` of this checkout with its uncommitted changes copied over (none in CI): the files a
    newcomer gets, without this checkout's database, broker or static files."""
    clone = where / "halfpoint"
    clone.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    changed = subprocess.run(["git", "ls-files", "-z", "--modified", "--others", "--exclude-standard"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, changed):
        source, target = ROOT / name, clone / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            target.unlink(missing_ok=True)
    return clone


class MakeRun:
    """`make run` in `clone`, on the project's virtualenv, with its output in a file."""

    ROLES = {"web": "config.asgi:application", "worker": " worker ", "beat": " beat "}

    def __init__(self, clone: Path, log: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        with log.open("wb") as out:
            # -o: the virtualenv counts as installed (a clone's pyproject.toml is newer than its stamp).
            self.make = subprocess.Popen(
                ["make", "--no-print-directory", "-o", str(VENV / ".installed"), "run", f"VENV={VENV}"],
                cwd=clone, env=embedded_env(HALFPOINT_PORT=str(self.port)), stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        self.processes: dict[str, psutil.Process] = {}
        self.everyone: list[psutil.Process] = []

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self) -> None:
        def ready():
            assert self.make.poll() is None, "make run stopped:\n" + self.text()
            text = self.text()
            if " ready." not in text or "beat: Starting" not in text:
                return False
            with contextlib.suppress(OSError):
                return urllib.request.urlopen(self.base + "/", timeout=1).status == 200
            return False

        wait_for("the web server, the worker and beat", ready, 60, self.log)
        for p in psutil.Process(self.make.pid).children(recursive=True):
            command = " " + " ".join(p.cmdline()) + " "
            for role, mark in self.ROLES.items():
                if mark in command and p.name() not in ("sh", "dash", "bash"):
                    self.processes[role] = p
        assert set(self.processes) == set(self.ROLES), self.processes

    def assert_alive(self) -> None:
        text = self.text()
        assert self.make.poll() is None, text
        for role, p in self.processes.items():
            assert p.is_running() and p.status() != psutil.STATUS_ZOMBIE, f"{role} died:\n{text}"
        assert "Unrecoverable error" not in text and " stopped (rc=" not in text, text  # honcho saw none stop

    def interrupt(self) -> None:
        """Ctrl-C, as a person at the terminal stops it."""
        if self.everyone:
            return
        with contextlib.suppress(psutil.NoSuchProcess):
            self.everyone = [psutil.Process(self.make.pid), *psutil.Process(self.make.pid).children(recursive=True)]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.make.pid, signal.SIGINT)

    def stop(self) -> None:
        """Ctrl-C, then whatever is left after 20 s is killed."""
        self.interrupt()
        _, alive = psutil.wait_procs(self.everyone, timeout=20)
        for p in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        self.make.wait(timeout=10)


def play_a_little(base: str, until: float) -> list[str]:
    """Log in as a demo player, open a practice table, sit, open the bank, stand on each turn until `until`;
    the bots' moves come from the worker. Returns the phases the table went through."""
    cookies = CookieJar()
    http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cookies))

    def post(path: str, data: dict) -> str:
        token = next(c.value for c in cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(base + path, body, headers={"Referer": base + path})
        return http.open(request).geturl()

    http.open(base + "/accounts/login/").read()  # the CSRF cookie
    post("/accounts/login/", DEMO_LOGIN)
    code = re.search(r"/r/(\d{4})/$", post("/lobby/practice/", {"preset": "ten-half"})).group(1)
    session = next(c.value for c in cookies if c.name == settings.SESSION_COOKIE_NAME)
    phases: list[str] = []
    with connect(f"ws://127.0.0.1:{base.rsplit(':', 1)[1]}/ws/rooms/{code}/", origin=base, open_timeout=10,
                 additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"}) as ws:
        pending = None  # (action_id, action): one action at a time, the next once this one is answered

        def send(action: str, **args) -> tuple[str, str]:
            action_id = uuid.uuid4().hex
            ws.send(json.dumps({"type": "action", "action": action, "args": args, "action_id": action_id}))
            return action_id, action

        while time.monotonic() < until:
            with contextlib.suppress(TimeoutError):
                frame = json.loads(ws.recv(timeout=max(until - time.monotonic(), 0.01)))
                if pending and answers(frame, pending[0]):
                    assert acked(frame), (pending[1], frame)
                    pending = None
                view = frame.get("view")
                if not view or pending:
                    continue
                phases.append(view["phase"])
                if view["you"] is None:
                    pending = send("sit", buy_in=1000, position=0)
                elif "open_bank" in view["legal_actions"]:
                    pending = send("open_bank", amount=500)
                elif "confirm" in view["legal_actions"] and view["hand"]["bets"][view["you"]]["amount"]:
                    pending = send("confirm")  # practice deals the first hand at once, the stake set to the base stake
                elif "stand" in view["legal_actions"]:
                    pending = send("stand")
        assert pending is None, f"no answer to {pending[1]}"
    return phases


@pytest.mark.stack
def test_make_run_on_a_fresh_clone_starts_twenty_times_and_every_process_stays_up(tmp_path):
    # Two clones in turn: one stack shuts down while the next one starts in the other clone.
    clones = [fresh_clone(tmp_path / "a"), fresh_clone(tmp_path / "b")]
    stacks: list[MakeRun] = []
    try:
        for start in range(STARTS):
            clone = clones[start % 2]
            if len(stacks) >= 2:
                stacks[-2].stop()  # the last one in this clone
            for leftover in ("db.sqlite3", ".celery-broker.sqlite3", ".celery-beat-schedule"):
                for path in clone.glob(leftover + "*"):
                    path.unlink()  # each start on a database and a broker of its own, as the first one ever
            stacks.append(stack := MakeRun(clone, tmp_path / f"make-run-{start + 1}.log"))
            stack.wait_ready()
            phases = play_a_little(stack.base, until=time.monotonic() + UP_SECONDS)
            # Past the betting, the bots bet: the worker ran their moves (the web process runs none).
            assert "playing" in phases or "between_hands" in phases, (start + 1, phases, stack.text()[-3000:])
            stack.assert_alive()
            stack.interrupt()
    finally:
        for stack in stacks:
            stack.stop()
