"""Faults in the middle of a hand: a daphne process killed, the Celery worker killed, Redis restarted.

Four players at a Ten and a Half table on real sockets (PostgreSQL, Redis, daphne, a Celery worker and beat). The
first and the last seat to play stay silent, so their turns end by timeouts, and the fault strikes while the first
of those timeouts is pending. Each time the players get back to the table (a snapshot on reconnect that shows their
own face-down card and nobody else's), the hand completes, every deadline is answered by one timeout at most and
never before it is due, and the ledger audit (`wallet_audit`) is clean. Nothing is mocked; every wait is bounded
and every child process is killed in a `finally`.
"""

import asyncio
import concurrent.futures
import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from websockets.exceptions import ConnectionClosed, WebSocketException

from games import services
from games.models import HandEvent, Room
from tests.games.conftest import acked, make_player
from tests.games.processes import (
    WEB_ENV,
    Player,
    assert_hand_over_and_settled,
    celery_processes,
    one_more_web_process,
    sit_and_deal,
    table_of,
    wait_until,
)
from tests.servers import Daphne, free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.faults]

ACT = 5  # seconds a player has to move: room for a reconnect, short enough to wait out twice
TIMERS = {"bet_seconds": 60, "act_seconds": ACT, "bank_seconds": 600}
# The web processes schedule the table's wakes on the real broker, for the worker.
WEB = {**WEB_ENV, "CELERY_TASK_ALWAYS_EAGER": "0"}


@pytest.fixture(autouse=True)
def _table_settings(settings):
    one_more_web_process(settings)


def four_players() -> tuple[Room, list[Player]]:
    """alice (the host, who will bank), bob, chen and dara, each with a session cookie."""
    users = [make_player(name) for name in ("alice", "bob", "chen", "dara")]
    room = services.room_create(host=users[0], preset="ten-half", overrides=TIMERS)
    return room, [Player(u) for u in users]


def first_to_play(players: list[Player]) -> Player:
    seat = players[0].view["hand"]["turn"]["seat"]
    return next(p for p in players if p.seat == seat)


def silent_seats(players: list[Player]) -> set[str]:
    """The first and the last seat to play (the dice decide who, the banker included) let their turns time out:
    the fault strikes during the first timeout, the last comes after the recovery."""
    hand = players[0].view["hand"]
    assert hand["turn"]["seat"] == hand["order"][0] != hand["order"][-1], hand
    return {hand["order"][0], hand["order"][-1]}


@contextlib.contextmanager
def logs_on_failure(servers: list[Daphne]):
    """Print the web processes' logs when the block fails (the Celery logs come with `wait_for`'s failures)."""
    try:
        yield
    except BaseException:
        for server in servers:
            print(f"--- daphne on port {server.port} ---\n{server.log()[-5000:]}")
        raise


def assert_swept_a_timeout(worker, room) -> None:
    """The beat sweeper, run by this worker, applied a timeout of the room: the one whose task was lost."""
    worker.wait_for("the sweeper's report", lambda: f"({room.pk}, 'timeout')" in " ".join(
        worker.results("sweep").values()), timeout=5)


def wait_for_timer(worker, room) -> None:
    """The worker holds the timeout of the deadline now running (the table's one pending wake, an ETA task in its
    memory), well before it is due."""
    t = table_of(room)
    assert t.wake_sent_at == t.wake_at == t.deadline
    worker.wait_for("the worker to hold the timeout", lambda: ([room.pk], {"pending": True}, t.wake_sent_at) in
                    worker.scheduled(), timeout=10)
    assert time.time() < t.state["deadline"] - 2, "too slow: the deadline is about to pass"


def play_on(players: list[Player], room, home: dict[str, str], *, silent: set[str], timeout: float = 60,
            on_reconnect=None) -> tuple[int, Counter]:
    """Until the hand is over and every player has seen its end: read every socket, let every player not in `silent`
    stand on its turn (the silent ones wait for their timeout), and reconnect a player whose socket dropped to its
    `home` server (by seat), trying again on each round while that server, or what it needs, is not back; nobody
    else waits for it. `on_reconnect(player)` checks each new connection's snapshot. Returns the final version and
    how many times each seat reconnected."""
    seats = {p: p.seat for p in players}
    made: dict[str, int] = {}  # seat -> the version its last move made: no second move before it is seen
    reconnects: Counter[str] = Counter()
    down: set[Player] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in players:
            seat = seats[p]
            if p in down:
                try:
                    p.connect(home[seat], room.code)
                except (OSError, WebSocketException, AssertionError):
                    time.sleep(0.1)  # refused, or closed before the snapshot: not back yet
                    continue
                down.discard(p)
                reconnects[seat] += 1
                assert reconnects[seat] <= 5 and p.seat == seat, (p.user, reconnects, p.seat)
                if on_reconnect is not None:
                    on_reconnect(p)
            try:
                p.drain(0.05)
                turn = p.view["hand"] and p.view["hand"]["turn"]
                if (p.view["phase"] == "playing" and turn and turn["seat"] == seat and seat not in silent
                        and p.version >= made.get(seat, -1)):
                    answer = p.answer("stand")
                    assert acked(answer), (p.user, answer)  # a timeout was not meant to beat a player
                    made[seat] = answer["version"]
            except ConnectionClosed:
                down.add(p)
        t = table_of(room)
        if t.state["phase"] == "between_hands" and not down and all(p.version == t.version for p in players):
            return t.version, reconnects
    t = table_of(room)
    raise AssertionError(f"the hand did not end within {timeout}s: v{t.version} {t.state['phase']}, players at "
                         f"{[(str(p.user), p.version) for p in players]}, not reconnected {[str(p.user) for p in down]}")


def timeouts_by_deadline(room, *, tolerance: float = 1.0) -> dict[tuple, list[int]]:
    """The versions at which the table applied a timeout (events of the "system" actor closing the betting or
    moving for a seat), by the deadline each answered: a hand's betting deadline, or one turn of one seat (a
    deadline that each of its moves starts afresh). Each timeout is checked not to come before its deadline:
    a timeout applied twice would act on a later deadline too early."""
    seconds = {"betting": TIMERS["bet_seconds"], "turn": TIMERS["act_seconds"]}
    started: dict[tuple, object] = {}
    moves: Counter[tuple] = Counter()
    out: defaultdict[tuple, list[int]] = defaultdict(list)

    def timed_out(key: tuple, e: HandEvent) -> None:
        due = started[key] + timedelta(seconds=seconds[key[1]] - tolerance)
        assert e.created_at >= due, f"a timeout at v{e.version} came before its deadline {key}"
        out[key].append(e.version)

    for e in HandEvent.objects.filter(room=room).order_by("version", "seq"):
        if e.type == "hand_started":
            started[(e.hand_id, "betting")] = e.created_at
        elif e.type == "betting_closed" and e.actor == "system":
            timed_out((e.hand_id, "betting"), e)
        elif e.type == "turn_started":
            started[(e.hand_id, "turn", e.data["seat"], e.data["hand"], 0)] = e.created_at
        elif e.type == "action":
            turn = (e.hand_id, "turn", e.data["seat"], e.data["hand"])
            if e.actor == "system":
                timed_out((*turn, moves[turn]), e)
            moves[turn] += 1
            started[(*turn, moves[turn])] = e.created_at
    return dict(out)


def assert_each_timeout_once(room, silent: set[str]) -> None:
    timeouts = timeouts_by_deadline(room)
    assert all(len(versions) == 1 for versions in timeouts.values()), timeouts
    timed_out = sorted(key[2] if key[1] == "turn" else "betting" for key in timeouts)
    assert timed_out == sorted(silent), timeouts  # the silent turns, nothing else


def assert_sees_own_card_only(p: Player, own_first_card: dict) -> None:
    """A reconnect snapshot in the middle of the hand: the player's own face-down card is there, with its rank
    and suit; every other seat's face-down card is not."""
    seat = p.seat
    assert p.snapshot["me"]["seat"] == seat, (p.user, p.snapshot["me"])
    assert p.view["phase"] == "playing", (p.user, p.view["phase"])
    hands = p.view["hand"]["hands"]
    assert hands[seat][0]["cards"][0] == own_first_card and own_first_card["up"] is False, own_first_card
    for other, other_hands in hands.items():
        if other != seat:
            assert other_hands[0]["cards"][0] == {"hidden": True}, (other, other_hands)


def assert_no_secret_seen(p: Player) -> None:
    """No frame this player got, on any of its connections, carried another seat's face-down card."""
    for frame in p.frames:
        view = frame.get("view")
        if not view or not view["you"]:
            continue
        me = view["you"]
        for seat, hands in (view["hand"] or {"hands": {}})["hands"].items():
            for card in (c for h in hands for c in h["cards"]):
                assert seat == me or card == {"hidden": True} or card["up"] is True, (p.user, seat, card)
        for e in frame.get("events", ()):
            if e["type"] in ("card_dealt", "card_discarded") and e.get("face") != "up" and e.get("seat") != me:
                assert "card" not in e, (p.user, e)


def assert_every_update_since_connect(p: Player, final: int) -> None:
    """Every version after the player's last snapshot reached it as an update (the channel layer delivered)."""
    assert sorted(p.updates) == list(range(p.snapshot["version"] + 1, final + 1)), (p.user, sorted(p.updates))


def assert_hand_done(players: list[Player], room, silent: set[str]) -> None:
    assert_hand_over_and_settled(players, room)  # includes the ledger audit and the holds
    assert_each_timeout_once(room, silent)
    for p in players:
        assert_no_secret_seen(p)


# --- (1) kill -9 one of two daphne processes ---------------------------------------------------------------


@pytest.mark.services
def test_players_of_a_killed_daphne_process_reconnect_and_the_hand_ends_with_each_timeout_once(fresh_broker):
    room, players = four_players()
    alice, bob, chen, dara = players
    # The watcher's resync is off: after the reconnects, every move must still arrive through Redis.
    env = {**WEB, "GAMES_RESYNC_SECONDS": "600"}
    servers: list[Daphne] = []
    try:
        with celery_processes() as (worker, beat), logs_on_failure(servers):
            worker("w1")
            beat()
            servers += [Daphne(**env), Daphne(**env)]
            web_a, web_b = servers
            home = {alice: web_a, chen: web_a, bob: web_b, dara: web_b}
            for p in players:
                p.connect(home[p].base, room.code)
            sit_and_deal(players, room)
            first, silent = first_to_play(players), silent_seats(players)
            cards = {p.seat: p.own_cards()[0] for p in players}  # each one's face-down card
            t = table_of(room)
            assert t.state["deadline_for"] == [first.seat] and time.time() < t.state["deadline"] - 2, "too slow"

            # The process of the player whose timeout is pending dies.
            victim = home[first]
            survivor = web_b if victim is web_a else web_a
            (partner,) = (p for p in players if home[p] is victim and p is not first)
            victim.kill()
            for p in (first, partner):
                p.wait_closed(timeout=10)
            # The partner goes to the surviving process at once; the first player waits for its process to come
            # back on the same port (started in the background: the others play on meanwhile).
            home[partner] = survivor
            with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
                restarted = pool.submit(Daphne, port=victim.port, **env)
                try:
                    final, reconnects = play_on(
                        players, room, {p.seat: home[p].base for p in players}, silent=silent,
                        on_reconnect=lambda p: assert_sees_own_card_only(p, cards[p.seat]))
                finally:
                    servers.append(restarted.result(timeout=60))
            assert reconnects == {first.seat: 1, partner.seat: 1}
            for p in players:
                assert_every_update_since_connect(p, final)
    finally:
        for p in players:
            p.close()
        for server in servers:
            server.stop()
    assert_hand_done(players, room, silent)


# --- (2) kill -9 the Celery worker --------------------------------------------------------------------------


@pytest.mark.services
def test_a_killed_worker_and_beat_come_back_and_the_hand_ends_with_each_timeout_once(fresh_broker):
    room, players = four_players()
    env = {**WEB, "GAMES_RESYNC_SECONDS": "600"}
    servers: list[Daphne] = []
    try:
        with celery_processes() as (worker, beat), logs_on_failure(servers):
            w1 = worker("w1")
            b1 = beat()
            servers.append(web := Daphne(**env))
            for p in players:
                p.connect(web.base, room.code)
            sit_and_deal(players, room)
            silent = silent_seats(players)
            wait_for_timer(w1, room)
            w1.kill()  # with the first turn's timeout in its memory: that task is gone
            b1.kill()

            w2 = worker("w2")
            beat()
            final, reconnects = play_on(players, room, {p.seat: web.base for p in players}, silent=silent)
            assert not reconnects
            for p in players:
                assert_every_update_since_connect(p, final)  # the whole hand, as updates
            assert_swept_a_timeout(w2, room)
    finally:
        for p in players:
            p.close()
        for server in servers:
            server.stop()
    assert_hand_done(players, room, silent)


# --- (3) restart Redis (a private one: other runs use the shared Redis) --------------------------------------


class RedisServer:
    """A private `redis-server` on its own port, with no persistence: a restart forgets everything."""

    def __init__(self):
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._log = tempfile.TemporaryFile()
        self.proc = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no"], stdout=self._log, stderr=subprocess.STDOUT)
        wait_until("redis-server to answer", self.answers, timeout=10)

    def answers(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"redis-server exited ({self.proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.mark.services
def test_a_redis_restart_loses_messages_and_the_hand_still_ends_with_each_timeout_once():
    room, players = four_players()
    alice, bob, chen, dara = players
    redis = RedisServer()
    # The watcher repairs what the restart lost (updates, group memberships) every second.
    env = {**WEB, "REDIS_URL": redis.url, "GAMES_RESYNC_SECONDS": "1"}
    servers: list[Daphne] = []
    try:
        with celery_processes(REDIS_URL=redis.url) as (worker, beat), logs_on_failure(servers):
            w1 = worker("w1")
            beat()
            servers += [Daphne(**env), Daphne(**env)]
            web_a, web_b = servers
            home = {alice: web_a, chen: web_a, bob: web_b, dara: web_b}
            for p in players:
                p.connect(home[p].base, room.code)
            sit_and_deal(players, room)
            silent = silent_seats(players)
            cards = {p.seat: p.own_cards()[0] for p in players}
            wait_for_timer(w1, room)

            redis.kill()  # with the first turn's timeout in the worker's memory
            time.sleep(1)
            redis.start()  # empty: queued tasks, channel groups and messages in flight are gone

            play_on(players, room, {p.seat: home[p].base for p in players}, silent=silent, timeout=60,
                    on_reconnect=lambda p: assert_sees_own_card_only(p, cards[p.seat]))
            # The worker lived through it, and only the sweeper could apply the lost timeout.
            assert w1.proc.poll() is None
            assert_swept_a_timeout(w1, room)
    finally:
        for p in players:
            p.close()
        for server in servers:
            server.stop()
        redis.kill()
    assert_hand_done(players, room, silent)


# --- a socket whose channel layer fails (any database and layer) ---------------------------------------------


async def test_a_socket_whose_channel_layer_fails_is_no_longer_watched(monkeypatch):
    """When Redis goes away under a consumer's receive, the consumer ends without `disconnect`; it must leave the
    resync watcher all the same, or the watcher keeps resyncing it, for nobody, on every move of its room."""
    from channels.layers import channel_layers, get_channel_layer
    from django.db import connections

    from games import consumers
    from tests.games.sockets import Tab

    channel_layers.backends.clear()  # a layer of this test's event loop (channels_redis binds to the first loop)
    layer = get_channel_layer()
    receive, gone = layer.receive, asyncio.Event()

    async def failing_receive(channel):
        message, failure = asyncio.ensure_future(receive(channel)), asyncio.ensure_future(gone.wait())
        done, pending = await asyncio.wait({message, failure}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if failure in done:
            raise ConnectionError("Connection closed by server.")
        return message.result()

    monkeypatch.setattr(layer, "receive", failing_receive)
    try:
        alice = await database_sync_to_async(make_player)("alice")
        room = await database_sync_to_async(services.room_create)(host=alice, preset="ten-half")
        tab = Tab(alice, room.code)
        assert (await tab.open())["type"] == "snapshot"
        assert len(consumers._watched[room.pk]) == 1

        gone.set()
        with pytest.raises(ConnectionError):  # the consumer ends with the layer's error (daphne closes with 1011)
            await asyncio.wait_for(tab.comm.future, timeout=10)
        assert room.pk not in consumers._watched
    finally:
        channel_layers.backends.clear()
        await database_sync_to_async(connections.close_all)()  # the sockets' thread, so the test database can go
