"""The cast at the table: alice (the host), bob, chen and dara, each with 10,000 beans and points.

Tables run with Celery eager (tests/games helpers): bots and the next hand happen at once, deadlines
never expire by themselves; `expire()` moves a table past its deadline to apply a timeout.
"""

import sys
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.signals import got_request_exception
from django.test import Client

from games import services
from games.models import Table
from games.services.run import _owned
from tests.servers import Daphne
from wallets.audit import ledger_audit

BEANS = 10_000


@pytest.fixture(autouse=True)
def _table_settings(settings):
    settings.WELCOME_BEANS = BEANS
    settings.PRACTICE_POINTS_CEILING = BEANS
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 0


@pytest.fixture
def server_errors():
    """The exceptions of the requests made while the test runs: a refusal must not be a server error."""
    caught = []

    def record(sender, request=None, **kwargs):
        caught.append(repr(sys.exc_info()[1]))

    got_request_exception.connect(record)
    yield caught
    got_request_exception.disconnect(record)


def browser(user=None) -> Client:
    """A test client logged in as `user` (or nobody) that answers a server error with its 500, as a browser sees it."""
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def make_player(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw-long-enough-1",
                                                display_name=name.capitalize())


@pytest.fixture
def cast(db):
    return {name: make_player(name) for name in ("alice", "bob", "chen", "dara")}


@pytest.fixture
def people(cast):
    """The cast and three more players (test files may keep a smaller crowd of their own)."""
    return {**cast, **{name: make_player(name) for name in ("erin", "frank", "gus")}}


@pytest.fixture
def maud(cast):
    """A moderator."""
    from django.apps import apps
    from django.contrib.auth.models import Group

    from games.roles import MODERATORS, ensure_moderators_group

    ensure_moderators_group(apps)  # a flush between transactional tests removes what migrations created
    user = make_player("maud")
    user.groups.add(Group.objects.get(name=MODERATORS))
    return type(user).objects.get(pk=user.pk)  # a fresh permission cache


def table(room) -> Table:
    return Table.objects.get(pk=room.pk)


def state(room) -> dict:
    return table(room).state


def seat_of(room, user) -> str | None:
    return table(room).meta["users"].get(str(user.pk))


def act(room, user, action, **args):
    return services.action_submit(room_id=room.pk, user=user, action=action, args=args)


class Clock:
    """The services' clock, moved by hand: `advance(seconds)` then wake the table."""

    def __init__(self):
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr("games.services.run._now", c)
    return c


def expire(room, clock) -> str:
    """Let the current deadline pass and wake the table (what the Celery timeout does)."""
    deadline = state(room)["deadline"]
    assert deadline is not None, "no deadline is running"
    clock.advance(max(0.0, deadline - clock()) + 0.01)
    return services.table_wake(room_id=room.pk)


@pytest.fixture
def fresh_broker():
    """No message left in the real broker by an earlier run reaches this test's Celery workers."""
    from config.celery import app

    app.control.purge()


def assert_ledger_clean():
    report = ledger_audit()
    failed = {name: check for name, check in report["checks"].items() if check["status"] == "failed"}
    assert not failed, failed
    assert report["checks"]["no_hold_without_a_seat"]["status"] == "passed"


def assert_holds_match_table(room):
    """Every open hold equals what its seat owns in the engine (stack + bank + seeded jackpot)."""
    from wallets.models import Account

    t = table(room)
    owned = _owned(t.state)
    for seat_id, info in t.meta["seats"].items():
        assert Account.objects.get(pk=info["hold"]).balance == owned[seat_id], seat_id


def answers(frame: dict, action_id: str) -> bool:
    """`frame` is the socket's answer to the action `action_id` (docs/protocol.md, "The ack"): the sender's update
    carrying its ack, an `ack` frame (a duplicate, or an update the connection will not get), or an `error`."""
    if frame["type"] == "update":
        return frame.get("ack") == action_id
    return frame["type"] in ("ack", "error") and frame.get("action_id") == action_id


def acked(frame: dict) -> bool:
    """The answer `frame` says the action was applied (or was a duplicate): not an error."""
    return frame["type"] == "ack" or (frame["type"] == "update" and "ack" in frame)


@pytest.fixture
def no_resync(settings):
    """The safety-net snapshots (consumers._watch_loop) off, so a test sees exactly the broadcasts."""
    settings.GAMES_RESYNC_SECONDS = 3600


def user_of(room, seat_id):
    uid = next(int(k) for k, v in table(room).meta["users"].items() if v == seat_id)
    return get_user_model().objects.get(pk=uid)


def ten_half_table(cast, *, buy_in=500, **overrides):
    """alice hosts and banks 500; bob, chen and dara challenge. Returns the room in its first betting."""
    room = services.room_create(host=cast["alice"], preset="ten-half", overrides=overrides)
    for name in ("alice", "bob", "chen", "dara"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=buy_in)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=buy_in)
    return room


def bet_all(room, cast, names=("bob", "chen", "dara"), amount=20):
    for name in names:
        act(room, cast[name], "bet", amount=amount)


def play_out(room, *, action="stand", limit=60, idle=(), clock=None):
    """Every turn of the current hand takes `action` (or stand once it cannot), until it is over;
    the seats in `idle` do nothing and are timed out."""
    hand_no = state(room)["hand_no"]
    for _ in range(limit):
        s = state(room)
        if s["phase"] != "playing" or s["hand_no"] != hand_no:  # over (the next one may be under way already)
            return
        seat_id = s["hand"]["turn"][0]
        if seat_id in idle:
            expire(room, clock)
            continue
        user = user_of(room, seat_id)
        try:
            act(room, user, action)
        except services.GameError:
            act(room, user, "stand")
    raise AssertionError("the hand did not end")


@pytest.fixture
def web():
    """A daphne process on the test database, for what only a real server shows (close codes, routing)."""
    from tests.games.processes import WEB_ENV  # processes.py imports this module's helpers

    server = Daphne(**WEB_ENV)
    try:
        yield server
    finally:
        server.stop()
