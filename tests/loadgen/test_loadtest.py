"""`manage.py loadtest` against a real daphne process: real logins, real sockets, hands played."""

import io
import json
import os

import pytest
from django.core.management import CommandError, call_command

from games.fields import text
from games.models import Room
from loadgen.report import percentile
from loadgen.sockets import parse_frame
from loadgen.targets import parse_targets
from tests.servers import daphne

pytestmark = pytest.mark.django_db(transaction=True)

# The web process runs the wakes inline (no Celery worker here) and starts the next hand at once.
WEB_ENV = {"CELERY_TASK_ALWAYS_EAGER": "1", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "0",
           "LOG_LEVEL": "WARNING"}


def test_two_tables_play_hands_over_real_sockets_and_report_json():
    out = io.StringIO()
    with daphne(**WEB_ENV) as base:
        call_command("loadtest", url=[base.replace("http://", "ws://")], tables=2, seconds=4, rate="max", json=True,
                     stdout=out)
    result = json.loads(out.getvalue())
    assert {"tables", "seconds", "commands", "hands", "errors", "latency_ms"} <= set(result)
    assert set(result["latency_ms"]) == {"p50", "p95", "p99", "max"}
    assert result["tables"] == 2 and result["seconds"] == 4
    assert result["commands"] > 0
    assert result["errors"] == 0 and result["lost"] == 0, {k: result.get(k) for k in (
        "errors", "error_codes", "dropped", "unanswered", "lost", "commands")}
    assert result["latency_ms"]["p50"] <= result["latency_ms"]["p99"] <= result["latency_ms"]["max"]
    assert any("daphne" in p["name"] for p in result["servers"])
    # The machine's CPU over the window holds at least the CPU of the processes it watched (the daphne serving the
    # tables) and the load generator's own, and no more than every core.
    watched = sum(p.get("cpu_percent", 0) for p in result["servers"]) + result["generator"]["cpu_percent"]
    assert 0.9 * watched <= result["machine"]["cpu_percent"] <= 100 * os.cpu_count() + 5
    assert 0 <= result["machine"]["steal_percent"] <= result["machine"]["cpu_percent"]
    # Its rooms are closed again: every chip went home.
    assert not Room.objects.filter(status=Room.Status.OPEN).exists()


def test_a_client_stays_under_the_servers_rate_limit():
    from games import consumers
    from loadgen import players

    assert players.SERVER_RATE_LIMIT == consumers.RATE_LIMIT


@pytest.mark.parametrize("url", ["ws://example.com:8000", "ws://10.0.0.1:8000", "http://127.0.0.1:8000",
                                 "ws://127.0.0.1:8000/ws/rooms/"])
def test_refuses_anything_but_a_loopback_websocket_server(url):
    with pytest.raises(CommandError):
        call_command("loadtest", url=[url], tables=1, seconds=1)


def test_a_warm_up_is_played_but_not_measured():
    out = io.StringIO()
    with daphne(**WEB_ENV) as base:
        call_command("loadtest", url=[base.replace("http://", "ws://")], tables=1, seconds=2, warmup=2, rate="max",
                     json=True, stdout=out)
    result = json.loads(out.getvalue())
    assert result["warmup"] == 2 and result["errors"] == 0
    assert result["commands"] > 0 and result["completed"] == result["commands"] - result["lost"]
    # At --rate max the warm-up moved the table on by dozens of versions that the window does not count.
    in_window = round(result["versions_per_second"] * result["seconds"])
    assert Room.objects.get().table.version > in_window + 20, in_window


@pytest.mark.parametrize("warmup", [-1, 10**6])
def test_refuses_a_warm_up_out_of_range(warmup):
    with pytest.raises(CommandError):
        call_command("loadtest", url=["ws://127.0.0.1:8000"], tables=1, seconds=1, warmup=warmup)


def test_several_servers_in_one_url_or_repeated():
    targets = parse_targets(["ws://127.0.0.1:8101,ws://localhost:8102", "ws://[::1]:8103"])
    assert [t.ws for t in targets] == ["ws://127.0.0.1:8101", "ws://localhost:8102", "ws://[::1]:8103"]


def test_a_tables_seats_go_round_the_servers_or_by_room_all_to_the_tables_own():
    from loadgen.management.commands.loadtest import Command

    targets = parse_targets(["ws://127.0.0.1:8101,ws://127.0.0.1:8102"])
    ports = {by_room: [[ws.rsplit(":", 1)[1] for ws, _http, _c in Command._seats(targets, t, [None] * 4, by_room)]
                       for t in range(3)] for by_room in (False, True)}
    assert ports[False] == [["8101", "8102", "8101", "8102"], ["8102", "8101", "8102", "8101"],
                            ["8101", "8102", "8101", "8102"]]
    assert ports[True] == [["8101"] * 4, ["8102"] * 4, ["8101"] * 4]


def test_percentiles_are_nearest_rank():
    values = sorted(float(x) for x in range(1, 101))
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (50.0, 99.0, 100.0)
    assert percentile([], 50) is None


def test_a_frame_the_server_wrote_through_json_parses_too():
    # games.fields.text falls back to json for a lone surrogate, which orjson refuses to read back.
    frame = {"type": "error", "code": "bad_action_id", "action_id": "\ud800", "version": 3}
    assert parse_frame(text(frame)) == frame
    assert parse_frame(text({"type": "ack", "version": 4})) == {"type": "ack", "version": 4}


class FakeTransport:
    """What the load generator's Socket writes, kept for a websockets server protocol to read."""

    def __init__(self):
        self.written = b""
        self.aborted = False

    def write(self, data):
        self.written += data

    def can_write_eof(self):
        return True

    def write_eof(self):
        pass

    def close(self):
        pass

    def abort(self):
        self.aborted = True

    def take(self) -> bytes:
        data, self.written = self.written, b""
        return data


async def test_the_sans_io_socket_opens_joins_fragments_answers_pings_and_tells_its_close():
    from websockets.frames import Opcode
    from websockets.server import ServerProtocol

    from loadgen.sockets import Socket

    texts, closes = [], []
    sock = Socket("ws://127.0.0.1:8000/ws/rooms/1234/", "http://127.0.0.1:8000", {"Cookie": "sessionid=abc"},
                  texts.append, lambda: closes.append(True))
    transport, server = FakeTransport(), ServerProtocol()
    sock.connection_made(transport)
    server.receive_data(transport.take())
    (request,) = server.events_received()
    assert request.headers["Cookie"] == "sessionid=abc" and request.headers["Origin"] == "http://127.0.0.1:8000"
    server.send_response(server.accept(request))

    def to_client():
        for data in server.data_to_send():
            sock.data_received(data)

    to_client()
    assert sock.opened.done() and sock.opened.exception() is None
    server.send_text(b"{\"type\":", fin=False)  # one message in two frames
    server.send_continuation(b"\"update\"}", fin=True)
    server.send_text("{\"é\":1}".encode())
    to_client()
    assert texts == ['{"type":"update"}', '{"é":1}']
    server.send_ping(b"are you there")
    to_client()
    server.receive_data(transport.take())
    assert [(e.opcode, e.data) for e in server.events_received()] == [(Opcode.PONG, b"are you there")]
    sock.send('{"type":"action"}')
    server.receive_data(transport.take())
    assert [e.data for e in server.events_received()] == [b'{"type":"action"}']
    sock.connection_lost(None)
    assert closes == [True]
    with pytest.raises(ConnectionError):
        sock.send("{}")
