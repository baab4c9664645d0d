"""The socket's edges as a real daphne process serves them (docs/protocol.md, "Connecting" and "Client to server"):
the close code of a frame too big, whatever its size up to daphne's own limit; the refusal of an unrouted path and of
a foreign Origin; a burst of messages against the rate. WebsocketCommunicator does not see what daphne does with these
(a close code daphne will not send, a message over daphne's limit, an Origin daphne parses first, an exception in the
routing), so these tests run daphne itself, started as every launch of the site starts it."""

import json
import re
import shlex
import subprocess
import time

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from games import services
from games.arrivals import SERVER_MESSAGE_MAX
from games.consumers import CLOSE_TOO_BIG, MAX_FRAME, RATE_LIMIT
from games.models import ChatMessage, RoomVisit, Table
from tests.games.conftest import acked, answers, make_player, ten_half_table
from tests.games.processes import Player
from tests.servers import DAPHNE_LIMITS, ROOT

pytestmark = pytest.mark.django_db(transaction=True)

MiB = 1024 * 1024


def close_code(player: Player, data: str | bytes) -> int | None:
    """Send `data` and read until the server closes the socket; the close code the client received (None: the
    connection was dropped without a close frame, which a browser reports as 1006)."""
    with pytest.raises(ConnectionClosed) as closed:  # the send itself fails when the server drops it midway
        player.ws.send(data)
        player.drain(20)
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


def test_a_frame_over_16_kib_closes_the_socket_with_the_documented_code_up_to_4_mib(web):
    alice, bob = make_player("alice"), make_player("bob")
    room = services.room_create(host=alice, preset="ten-half")
    version = Table.objects.get(pk=room.pk).version
    player = Player(bob)
    big = [
        json.dumps({"type": "ping", "pad": "x" * 17 * 1024}),
        # 6,000 characters of CJK chat are 18,000 bytes of UTF-8: over the limit too, though under 16 Ki characters.
        json.dumps({"type": "chat", "text": "十" * 6000}, ensure_ascii=False),
        json.dumps({"type": "chat", "text": "x" * (MiB + 1024)}),  # over daphne's default limit (1 MiB)
        b"x" * (2 * MiB),  # binary
        json.dumps({"type": "chat", "text": "十" * ((SERVER_MESSAGE_MAX - 100) // 3)}, ensure_ascii=False),
        b"\x00" * SERVER_MESSAGE_MAX,  # daphne's limit itself: still read, and closed by the socket
    ]
    try:
        for data in big:
            player.connect(web.base, room.code)
            assert close_code(player, data) == CLOSE_TOO_BIG == 4409, len(data)  # docs/protocol.md, "Connecting"
        # Past daphne's limit nothing of ours reads the frame: daphne drops the connection (documented).
        player.connect(web.base, room.code)
        assert close_code(player, b"x" * (SERVER_MESSAGE_MAX + 1)) is None
        # Just under 16 KiB of UTF-8 is read.
        player.connect(web.base, room.code)
        player.ws.send(json.dumps({"type": "ping", "pad": "十" * ((MAX_FRAME - 40) // 3)}, ensure_ascii=False))
        # the count of spectators (bob, without a seat) may come first: passed over
        assert player.next(lambda f: f["type"] != "spectators", what="the pong")["type"] == "pong"
    finally:
        player.close()
    assert Table.objects.get(pk=room.pk).version == version and not ChatMessage.objects.exists()
    assert "Traceback" not in web.log(), web.log()


def test_an_unrouted_socket_path_is_refused_at_the_handshake(web):
    cookie = Player(make_player("bob")).cookie  # a logged-in user: the path alone is refused
    for path in ("/ws/rooms/12345/", "/abcd/", "/ws/rooms/1234", "/ws/rooms/abcd/"):
        with pytest.raises(InvalidStatus) as refused:
            connect(web.base.replace("http://", "ws://") + path, origin=web.base, open_timeout=10,
                    additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"})
        assert refused.value.response.status_code == 403, path
    assert "Traceback" not in web.log(), web.log()


def test_a_foreign_origin_is_refused_at_the_handshake(web):
    """403 for an origin of another site, and for one that a check of the host alone reads as ours; 400 for an
    Origin daphne cannot parse (a port that is no number), which it refuses before our code runs (docs/protocol.md,
    "Connecting"). Neither reaches the room."""
    alice, bob = make_player("alice"), make_player("bob")
    room = services.room_create(host=alice, preset="ten-half")
    cookie = Player(bob).cookie
    port = web.port
    cases = {
        "http://evil.example": 403,
        f"http://127.0.0.1.evil.example:{port}": 403,
        f"http://evil.example@127.0.0.1:{port}": 403,
        f"http://127.0.0.1:{port}/path": 403,
        "null": 403,
        f"http://127.0.0.1:{port}.evil.example": 400,
        "http://127.0.0.1:99999": 400,
    }
    url = web.base.replace("http://", "ws://") + f"/ws/rooms/{room.code}/"
    for origin, status in cases.items():
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin=origin, open_timeout=10,
                    additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"})
        assert refused.value.response.status_code == status, origin
    assert not RoomVisit.objects.filter(room=room, user=bob).exists()  # the consumer never ran
    # Ours passes (the snapshot comes), with the cookie or with a token and no Origin.
    with connect(url, origin=web.base, open_timeout=10,
                 additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"}) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
    assert RoomVisit.objects.filter(room=room, user=bob).exists()
    assert "Traceback" not in web.log(), web.log()


def test_a_burst_of_200_messages_applies_at_most_the_rate(web, cast):
    """docs/protocol.md, "Client to server": at most 20 messages in any rolling second, counted as they arrive."""
    room = ten_half_table(cast)  # betting: bob may chip and reset
    before = Table.objects.get(pk=room.pk).version
    bob = Player(cast["bob"])
    try:
        bob.connect(web.base, room.code)
        ids = [f"burst-{i}" for i in range(200)]
        started = time.monotonic()
        for i, action_id in enumerate(ids):  # chip, reset, chip, ...: each applied one makes a version
            action = "chip" if i % 2 == 0 else "reset"
            args = {"amount": 10} if action == "chip" else {}
            bob.ws.send(json.dumps({"type": "action", "action": action, "args": args, "action_id": action_id}))
        assert time.monotonic() - started < 1.0  # one burst: all 200 arrive within a second
        handled, limited = [], 0
        while len(handled) + limited < len(ids):
            frame = bob.next(lambda f: f["type"] in ("update", "ack", "error"), what="an answer")
            assert frame.get("code") != "server_error", frame
            if frame.get("code") == "rate_limited":
                assert "action_id" not in frame  # dropped unread
                limited += 1
            elif any(answers(frame, a) for a in ids):
                assert acked(frame), frame
                handled.append(frame.get("ack") or frame["action_id"])
        assert (handled, limited) == (ids[:RATE_LIMIT], 200 - RATE_LIMIT) and RATE_LIMIT == 20
    finally:
        bob.close()
    assert Table.objects.get(pk=room.pk).version == before + RATE_LIMIT
    assert "Traceback" not in web.log(), web.log()


# --- every launch of daphne sets its message limit above the socket's ---------------------------------------------


def _daphne_command(line: str) -> list[str]:
    words = shlex.split(line)
    return words[next(i for i, w in enumerate(words) if w.endswith("daphne")):]


def _limits(words: list[str]) -> dict[str, int]:
    return {flag: int(words[words.index(flag) + 1]) for flag in ("--websocket-max-message-size",
                                                                  "--websocket-max-frame-size") if flag in words}


EXPECTED = {"--websocket-max-message-size": SERVER_MESSAGE_MAX, "--websocket-max-frame-size": SERVER_MESSAGE_MAX}


def test_every_launch_of_daphne_raises_its_message_limit_above_the_sockets():
    assert MAX_FRAME < 2 * MiB < SERVER_MESSAGE_MAX  # the documented sizes reach the socket and get 4409
    procfile = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    assert _limits(_daphne_command(procfile[len("web:"):])) == EXPECTED
    unit = (ROOT / "deploy" / "systemd" / "halfpoint-web@.service").read_text()
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    assert _limits(_daphne_command(exec_start[len("ExecStart="):])) == EXPECTED  # tests/deploy/stack.py runs it
    assert _limits(list(DAPHNE_LIMITS)) == EXPECTED  # tests/servers.py
    for name in ("bench.py", "nodes.py"):
        bench = (ROOT / "benchmarks" / name).read_text()
        assert {f: int(v) for f, v in re.findall(r'"(--websocket-max-(?:message|frame)-size)",\s*"(\d+)"', bench)} \
            == EXPECTED, name
    assert settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE == settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE == SERVER_MESSAGE_MAX
    # And nowhere else is daphne started: a new launch must be added here, with the limits.
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    launches = re.compile(r'"-m",\s*"daphne"|^web:\s*daphne\b|bin/daphne\s', re.MULTILINE)
    found = {path for path in tracked if not path.startswith(("docs/", "tests/games/test_socket_daphne.py"))
             and (ROOT / path).is_file() and launches.search((ROOT / path).read_text(errors="replace"))}
    assert found == {"Procfile", "deploy/systemd/halfpoint-web@.service", "tests/servers.py", "benchmarks/bench.py",
                     "benchmarks/nodes.py"}
