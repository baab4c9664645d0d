"""Separate nodes on one machine for benchmarks/nodes.py: network namespaces joined by a bridge, TCP forwards to the
machine's PostgreSQL and Redis, and nginx routing each room's sockets to one node.

    root namespace: bridge hpn-br0 10.77.0.1/24, socat 10.77.0.1:5432 -> 127.0.0.1:5432 (PostgreSQL) and
                    10.77.0.1:6379 -> 127.0.0.1:6379 (Redis), nginx on 127.0.0.1 (the clients' only address)
    namespace hpn-n1: eth0 10.77.0.11 (a veth pair whose other end is on the bridge), daphne :8001, Celery worker
    namespace hpn-n2: eth0 10.77.0.12, ...

PostgreSQL and Redis listen on 127.0.0.1 only, and other work shares them: the forwards (socat, Debian's) reach
them without a change to either server's configuration, and the connections arrive from 127.0.0.1, which their
access rules already trust. Everything made here is named `hpn-*` and removed by `Network.down()`, which also
removes what an interrupted earlier run left.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

PREFIX = "hpn"
BRIDGE = f"{PREFIX}-br0"
HOST_IP = "10.77.0.1"
NODE_PORT = 8001
FORWARDS = {5432: 5432, 6379: 6379}  # port on the bridge -> port on 127.0.0.1


def node_ip(i: int) -> str:
    """The address of node i (1-based) on the bridge."""
    return f"10.77.0.{10 + i}"


def namespace(i: int) -> str:
    return f"{PREFIX}-n{i}"


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def nginx_config(directory: Path, port: int, nodes: list[str]) -> str:
    """nginx.conf for the daphne processes at `nodes` ("address:port"), listening on 127.0.0.1:`port`.

    A room's sockets (/ws/rooms/<code>/) are hashed by the room code over a consistent ring: all of them reach one
    node, the one that runs the table's commands, and a node's removal moves only its own rooms. When that node
    refuses (killed), nginx passes the connection to the next node of the ring (proxy_next_upstream, its
    default). Pages and logins go to the node with the fewest open connections, as deploy/nginx/halfpoint.conf
    sends everything."""
    servers = "\n".join(f"        server {a} max_fails=1 fail_timeout=5s;" for a in nodes)
    temp = "\n".join(f"    {kind}_temp_path {directory}/nginx-{kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""daemon off;
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
worker_rlimit_nofile 20000;
pid {directory}/nginx.pid;
events {{ worker_connections 8192; }}
http {{
    access_log off;
{temp}
    upstream rooms {{
        hash $room_code consistent;
{servers}
    }}
    upstream pages {{
        least_conn;
{servers}
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        proxy_http_version 1.1;
        # $http_host keeps the port: the login form's Origin check compares it with the host
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_connect_timeout 2s;
        location ~ ^/ws/rooms/(?<room_code>[^/]+)/ {{
            proxy_pass http://rooms;
            proxy_read_timeout 120s;
            proxy_send_timeout 120s;
        }}
        location / {{
            proxy_pass http://pages;
        }}
    }}
}}
"""


class Network:
    """The bridge, the namespaces and the forwards. `up()` makes them, `down()` removes them (and leftovers)."""

    def __init__(self, nodes: int, directory: Path):
        self.nodes = nodes
        self.directory = directory
        self.forwards: list[subprocess.Popen] = []

    def up(self) -> None:
        self.down()  # an interrupted earlier run's namespaces and bridge
        ip("link", "add", BRIDGE, "type", "bridge")
        ip("addr", "add", f"{HOST_IP}/24", "dev", BRIDGE)
        ip("link", "set", BRIDGE, "up")
        for i in range(1, self.nodes + 1):
            ns, veth = namespace(i), f"{PREFIX}-v{i}"
            ip("netns", "add", ns)
            ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            ip("link", "set", veth, "master", BRIDGE, "up")
            ip("-n", ns, "addr", "add", f"{node_ip(i)}/24", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            ip("-n", ns, "link", "set", "lo", "up")
        socat = shutil.which("socat")
        if socat is None:
            raise RuntimeError("socat is needed to reach PostgreSQL and Redis from the namespaces (apt-get install socat)")
        for outer, inner in FORWARDS.items():
            log = open(self.directory / f"socat-{outer}.log", "ab")  # noqa: SIM115 (the child keeps it)
            self.forwards.append(subprocess.Popen(
                [socat, f"TCP-LISTEN:{outer},bind={HOST_IP},fork,reuseaddr,nodelay,backlog=1024",
                 f"TCP:127.0.0.1:{inner},nodelay"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def forward_pids(self) -> list[int]:
        return [p.pid for p in self.forwards]

    def down(self) -> None:
        for p in self.forwards:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)  # the listener and its forked connections
            p.wait()
        self.forwards = []
        listed = ip("netns", "list", check=False).stdout.split()
        for ns in listed:
            if ns.startswith(f"{PREFIX}-n"):
                for pid in ip("netns", "pids", ns, check=False).stdout.split():
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                ip("netns", "del", ns, check=False)  # removes its veth pair too
        ip("link", "del", BRIDGE, check=False)

    def run_in(self, i: int) -> list[str]:
        """The prefix of a command run in node i's namespace."""
        return ["ip", "netns", "exec", namespace(i)]
