"""benchmarks/nodes.py's pure parts: the nginx it writes (a room's sockets reach one node, another when that node
is gone), its arithmetic; and `loadtest --reconnect` through that nginx while the server of a table is killed."""

import contextlib
import http.client
import http.server
import io
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from django.core.management import call_command
from django.db import connection

from games import services
from games.models import Room
from tests.servers import ROOT, Daphne, free_port
from wallets.models import Account

sys.path.insert(0, str(ROOT / "benchmarks"))
from netns import nginx_config  # noqa: E402
from nodes import cpu_ms_per_command, postgres_share, recovery, saturation_point, tables_within  # noqa: E402

NGINX = "/usr/sbin/nginx"
CODES = [f"R{i:03d}X" for i in range(24)]


@contextlib.contextmanager
def nginx(tmp_path: Path, upstreams: list[str]):
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(tmp_path, port, upstreams))
    argv = [NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")]
    subprocess.run([*argv, "-t"], check=True, capture_output=True)
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "error.log").read_text()
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Named(http.server.ThreadingHTTPServer):
    """A backend that answers every GET with its name."""

    def __init__(self, name: str):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


def who(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().read().decode()
    finally:
        conn.close()


def test_nginx_sends_a_rooms_sockets_to_one_node_and_another_only_when_it_is_gone(tmp_path):
    a, b = Named("a"), Named("b")
    try:
        with nginx(tmp_path, [f"127.0.0.1:{a.server_port}", f"127.0.0.1:{b.server_port}"]) as port:
            first = {code: who(port, f"/ws/rooms/{code}/") for code in CODES}
            # Every request of a room, whatever follows the code, reaches the same node.
            for code in CODES:
                assert {who(port, f"/ws/rooms/{code}/{tail}") for tail in ("", "x", "?v=1")} == {first[code]}
            assert set(first.values()) == {"a", "b"}, first  # the rooms are spread over both
            a.shutdown()
            a.server_close()
            after = {code: who(port, f"/ws/rooms/{code}/") for code in CODES}
            # a's rooms go to b; b's rooms stay where they were (a consistent ring moves only the lost node's).
            assert set(after.values()) == {"b"}
            assert {c for c in CODES if first[c] == "b"} <= {c for c in CODES if after[c] == "b"}
    finally:
        b.shutdown()
        b.server_close()


def test_postgres_share_per_command():
    before = {"cpu": {10: 1.0, 11: 2.0}, "commits": 100}
    after = {"cpu": {10: 1.5, 11: 3.0, 12: 0.5}, "commits": 400}  # 12 was born in the window: counted whole
    got = postgres_share(before, after, commands=200, seconds=10)
    assert got == {"cpu_seconds": 2.0, "cores": 0.2, "cpu_ms_per_command": 10.0, "commits_per_command": 1.5,
                   "commands_per_core": 100}
    assert postgres_share(before, before, commands=0, seconds=10)["cpu_ms_per_command"] is None


def run_(tables, p99, errors=0, lost=0):
    return {"tables": tables, "latency_ms": {"p99": p99}, "errors": errors, "lost": lost}


def test_tables_within_a_target_and_the_saturation_point():
    runs = [run_(10, 40.0), run_(20, 90.0), run_(40, 80.0, errors=1), run_(80, 300.0), run_(5, None)]
    assert tables_within(runs, 100) == 20  # 40 had an error
    assert tables_within(runs, 50) == 10
    assert tables_within(runs, 10) is None
    steps = [{"tables": 5, "ok": True, "commands_per_second": 50}, {"tables": 10, "ok": True, "commands_per_second": 80},
             {"tables": 25, "ok": False, "commands_per_second": 120}]
    assert saturation_point(steps)["tables"] == 10
    assert saturation_point([{"tables": 5, "ok": False, "commands_per_second": 9}]) is None


def test_recovery_counts_the_tables_the_kill_hit():
    kill = 1000.0
    tables = [{"dropped_at": 1000.1, "recovered_at": 1002.5}, {"dropped_at": 1000.2, "recovered_at": 1001.0},
              {"dropped_at": 900.0, "recovered_at": 901.0}]  # an earlier drop: not the kill's
    assert recovery(kill, tables) == {"affected": 2, "recovered": 2, "seconds_to_all": 2.5, "seconds_first": 1.0,
                                      "seconds_median": 1.0}
    tables.append({"dropped_at": 1000.3, "recovered_at": None})
    assert recovery(kill, tables) == {"affected": 3, "recovered": 2, "seconds_to_all": None, "seconds_first": 1.0,
                                      "seconds_median": 1.0}
    assert recovery(kill, [])["affected"] == 0


WEB_ENV = {"CELERY_TASK_ALWAYS_EAGER": "1", "GAMES_BOT_SECONDS": "0", "GAMES_NEXT_HAND_SECONDS": "0",
           "LOG_LEVEL": "WARNING"}


@pytest.mark.faults
@pytest.mark.django_db(transaction=True)
def test_loadtest_reconnects_through_nginx_when_a_tables_server_is_killed(tmp_path):
    servers = [Daphne(**WEB_ENV), Daphne(**WEB_ENV)]
    try:
        with nginx(tmp_path, [f"127.0.0.1:{s.port}" for s in servers]) as port:
            out, failed = io.StringIO(), []

            def play():
                try:
                    call_command("loadtest", url=[f"ws://127.0.0.1:{port}"], tables=4, seconds=12, rate="max",
                                 reconnect=True, json=True, stdout=out, stderr=io.StringIO())
                except BaseException as e:  # noqa: BLE001 (told to the test below)
                    failed.append(e)

            player = threading.Thread(target=play)
            player.start()
            # Once hands are being played, kill (SIGKILL) a server that holds table sockets.
            deadline = time.monotonic() + 90
            while not (Room.objects.filter(status=Room.Status.OPEN).count() == 4
                       and all(r.table.version > 8 for r in Room.objects.filter(status=Room.Status.OPEN))):
                assert time.monotonic() < deadline and not failed, failed
                time.sleep(0.2)
            victim = max(servers, key=lambda s: sum(1 for c in psutil.Process(s.proc.pid).net_connections()
                                                    if c.status == psutil.CONN_ESTABLISHED))
            victim.kill()
            # This stack has no beat, so the test sweeps as beat would. In eager mode a table's next wake runs in the
            # process that committed the command before it: a server killed between the two leaves the next hand
            # due with nothing to run it, which production's beat sweeper covers (games/services/clock.py).
            stopped = threading.Event()

            def beat():
                try:
                    while not stopped.wait(0.5):
                        services.sweep()
                except BaseException as e:  # noqa: BLE001 (told to the test below)
                    failed.append(e)
                finally:
                    connection.close()

            sweeper = threading.Thread(target=beat)
            sweeper.start()
            player.join(timeout=120)
            stopped.set()
            sweeper.join(timeout=30)
            assert not failed, failed
    finally:
        for s in servers:
            s.stop()
    result = json.loads(out.getvalue())
    hit = result["recovery"]
    assert hit, result  # the killed server held tables
    assert all(t["recovered_at"] is not None and t["recovered_at"] > t["dropped_at"] for t in hit), hit
    assert result["reconnects"] >= 4 * len(hit)  # every seat of those tables came back
    assert result["regressions"] == 0  # none saw an older version than before: nothing committed was lost
    assert result["dropped"] == 4 * len(hit)
    # The rooms are closed at the end: every chip left the tables' holds.
    assert not Room.objects.filter(status=Room.Status.OPEN).exists()
    assert not Account.objects.filter(kind=Account.Kind.HOLD, closed_at__isnull=True).exists()


def test_cpu_per_command():
    assert cpu_ms_per_command(50.0, 100.0) == 5.0  # half a core for 100 commands/s: 5 ms each
    assert cpu_ms_per_command(10.0, 0) is None


def test_the_summary_names_the_machines_cpu():
    """A command's CPU differs by more than half between machines of one kind: the figures carry the CPU's model."""
    from nodes import summary

    results = {"load": 0.4, "machine": {"cores": 2, "cpu": "AMD EPYC"},
               "settings": {"server_version": "15", "synchronous_commit": "on", "fsync": "on"}}
    text = summary(results, None)
    assert "load average before the first run 0.4" in text
    assert "Machine: 2 cores (AMD EPYC)" in text.splitlines()[2]
