"""One ordered stream per table, through real daphne processes (docs/protocol.md, "The version rule"): six
sockets of one table send their commands in the same few milliseconds, on two processes over PostgreSQL and
Redis (or one process on the in-memory layer), while the room's page is requested beside them; every socket
still receives every version once, in increasing order, with its events, and every answer in version order."""

import contextlib
import json
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings as django_settings

from games import services
from games.engine import redact_event
from games.models import HandEvent
from tests.games.conftest import answers, make_player
from tests.games.processes import BUY_IN, WEB_ENV, Player, one_more_web_process, table_of
from tests.servers import daphne

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 200
PERIOD = 0.07  # seconds between two bursts: one command a socket each time, under the 20 messages a second
RETRY_EVERY = 10  # every tenth burst, each socket sends its command twice with the same action id


@pytest.fixture(autouse=True)
def _table_settings(settings):
    one_more_web_process(settings)


def send_burst(player: Player, round_no: int) -> None:
    """One top-up (twice on a retry round); its answers come in version order: the update that carries the
    ack first, then the duplicate's `ack` of the same version."""
    action_id = f"{player.user.username}-{round_no}"
    message = json.dumps({"type": "action", "action": "top_up", "args": {"amount": 1}, "action_id": action_id})
    retry = round_no % RETRY_EVERY == 0
    player.ws.send(message)
    if retry:
        player.ws.send(message)
    first = player.next(lambda f: answers(f, action_id), what=f"the answer to {action_id}")
    assert first["type"] == "update" and first["ack"] == action_id, first
    if retry:
        again = player.next(lambda f: answers(f, action_id), what=f"the answer to the retry of {action_id}")
        assert again == {"type": "ack", "action_id": action_id, "version": first["version"], "duplicate": True}


def request_pages(bases: list[str], cookie: str, path: str, stop: threading.Event) -> int:
    """GET the room's page from every process in turn, about one a burst each, until `stop`; returns how many."""
    count = 0
    while not stop.wait(PERIOD):
        for base in bases:
            request = urllib.request.Request(base + path, headers={
                "Cookie": f"{django_settings.SESSION_COOKIE_NAME}={cookie}"})
            with urllib.request.urlopen(request, timeout=30) as response:
                assert response.status == 200
                response.read()
            count += 1
    return count


@pytest.mark.parametrize("processes", [pytest.param(2, marks=pytest.mark.services), 1])
def test_bursts_from_six_sockets_reach_every_socket_once_in_order_with_their_events(processes):
    users = [make_player(name) for name in ("alice", "bob", "chen", "dara", "erin", "fei")]
    room = services.room_create(host=users[0], preset="seven-half", buy_in_max=5 * BUY_IN,
                                overrides={"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600})
    for user in users:
        services.seat_take(room_id=room.pk, user=user, buy_in=BUY_IN)
    players = [Player(u) for u in users]
    # Only the channel layer may deliver here (no resync of the watcher); 4 database threads a process, as in
    # production, so that even one process commits on one thread while it sends on another.
    env = {**WEB_ENV, "GAMES_RESYNC_SECONDS": "600", "GAMES_DB_THREADS": "4"}
    with contextlib.ExitStack() as servers:
        bases = [servers.enter_context(daphne(**env)) for _ in range(processes)]
        try:
            for i, player in enumerate(players):
                player.connect(bases[i % processes], room.code)
            start = table_of(room).version
            assert {p.snapshot["version"] for p in players} == {start}

            slot = [time.monotonic()]

            def pace() -> None:  # runs once per burst, before the six threads go: at most one burst per PERIOD
                slot[0] = max(slot[0] + PERIOD, time.monotonic())
                time.sleep(max(0.0, slot[0] - time.monotonic()))

            barrier = threading.Barrier(len(players), action=pace)

            def play(player: Player) -> None:
                try:
                    for round_no in range(1, ROUNDS + 1):
                        barrier.wait(timeout=60)
                        send_burst(player, round_no)
                except threading.BrokenBarrierError:
                    return  # another socket failed: its error is the one to see
                except BaseException:
                    barrier.abort()
                    raise

            stop = threading.Event()
            with ThreadPoolExecutor(len(players) + 1) as pool:
                pages = pool.submit(request_pages, bases, players[0].cookie, f"/r/{room.code}/", stop)
                try:
                    for done in [pool.submit(play, p) for p in players]:
                        done.result()
                finally:
                    stop.set()
                assert pages.result() > 0
            final = table_of(room).version
            assert final == start + ROUNDS * len(players)
            for player in players:
                player.catch_up(final)
                player.drain(0.3)
        finally:
            for player in players:
                player.close()

    stored: dict[int, list[dict]] = {}
    rows = HandEvent.objects.filter(room=room, version__gt=start).order_by("version", "seq")
    for version, data in rows.values_list("version", "data"):
        stored.setdefault(version, []).append(data)
    seats = table_of(room).meta["users"]
    for player in players:
        seat = seats[str(player.user.pk)]
        assert [f["type"] for f in player.frames].count("snapshot") == 1, player.user  # the first one only
        versions = [f["version"] for f in player.frames if f["type"] == "update"]
        assert versions == list(range(start + 1, final + 1)), (player.user, _first_difference(versions, start))
        for version in versions:
            expected = [e for e in (redact_event(e, seat) for e in stored[version]) if e is not None]
            assert player.updates[version]["events"] == expected, (player.user, version)


def _first_difference(versions: list[int], start: int) -> tuple:
    """Where a socket's versions first differ from start + 1, start + 2, ...: (index, got, expected)."""
    for i, version in enumerate(versions):
        if version != start + 1 + i:
            return i, versions[i - 2:i + 3], start + 1 + i
    return len(versions), versions[-3:], None
