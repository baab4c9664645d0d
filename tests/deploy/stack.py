"""The site as deploy/ runs it, on this machine: nginx with deploy/nginx/halfpoint.conf and a self-signed
certificate, daphne and Celery started by the commands of the units in deploy/systemd/ with the settings of
deploy/halfpoint.env, a second Redis server, and a streaming replica of the test database's PostgreSQL cluster.

Only ports, paths, hosts and secrets are replaced. Every process started here writes its output to a file in the
stack's directory and is stopped when its `Stack` closes; every wait is bounded.
"""

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import redis
from django.db import connection

from tests.games.processes import wait_until
from tests.servers import ROOT, child_env, free_port, test_database_url

DEPLOY = ROOT / "deploy"
VENV_BIN = Path(sys.executable).parent
POSTGRES_USER = "postgres" if os.geteuid() == 0 else None  # postgres refuses to run as root


class Child:
    """A process of the stack, its output in `<dir>/<name>.log`."""

    def __init__(self, name: str, argv: list[str], directory: Path, *, env: dict | None = None, user: str | None = None,
                 stop_signal: int = signal.SIGTERM):
        self.name, self.argv, self.stop_signal = name, argv, stop_signal
        self.log = directory / f"{name}.log"
        self._file = open(self.log, "ab")  # closed in stop()
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, user=user, stdout=self._file, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_for(self, what: str, predicate, timeout: float = 30):
        def check():
            assert self.alive(), f"{self.name} exited ({self.proc.returncode}):\n{self.text()[-3000:]}"
            return predicate()

        return wait_until(f"{self.name}: {what}", check, timeout)

    def kill(self) -> None:
        """kill -9: no shutdown at all."""
        if self.alive():
            self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._file.close()


class Stack(contextlib.ExitStack):
    """The stack's processes and files, in a directory of its own. Closing it stops every process, the last started
    first, then removes the directory."""

    def __enter__(self):
        super().__enter__()
        self.children: list[Child] = []
        self.directory = Path(self.enter_context(tempfile.TemporaryDirectory(prefix="halfpoint-stack-")))
        self.directory.chmod(0o755)  # the replica's postgres runs as another user
        return self

    def start(self, name: str, argv: list[str], **kwargs) -> Child:
        child = Child(name, argv, self.directory, **kwargs)
        self.children.append(child)
        self.callback(child.stop)
        return child

    def logs(self, tail: int = 3000) -> str:
        return "\n".join(f"--- {c.name} ---\n{c.text()[-tail:]}" for c in self.children)


def env_file() -> dict[str, str]:
    """deploy/halfpoint.env as systemd reads it: KEY=VALUE lines, a value optionally in double quotes."""
    values = {}
    for line in (DEPLOY / "halfpoint.env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key] = value[1:-1] if value.startswith('"') and value.endswith('"') else value
    return values


def unit_command(unit: str, stack: Stack, instance: str = "") -> list[str]:
    """The ExecStart of deploy/systemd/<unit>, as systemd would run it here: the checkout's virtualenv, the
    instance (%i), this host's name (%H), and the stack's directory for /run/halfpoint and /var/lib/halfpoint."""
    text = (DEPLOY / "systemd" / unit).read_text()
    command = next(line for line in text.splitlines() if line.startswith("ExecStart="))[len("ExecStart="):]
    for unit_path, here in (("/srv/halfpoint/.venv/bin/", f"{VENV_BIN}/"), ("/run/halfpoint", str(stack.directory)),
                            ("/var/lib/halfpoint", str(stack.directory)), ("%i", instance),
                            ("%H", socket.gethostname())):
        command = command.replace(unit_path, here)
    return shlex.split(command)


# --- the replica -------------------------------------------------------------------------------------------


def _primary() -> dict:
    cfg = connection.settings_dict
    return {"host": cfg.get("HOST") or "127.0.0.1", "port": int(cfg.get("PORT") or 5432),
            "user": cfg.get("USER") or "postgres", "dbname": cfg["NAME"]}


def _on_primary(sql: str) -> list[tuple]:
    with psycopg.connect(**_primary(), autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def _allow_replication() -> None:
    """pg_basebackup and the replica's streaming need a `replication` line in the primary's pg_hba.conf. CI's cluster
    trusts 127.0.0.1 for every database, which does not cover replication: the line is added once, and stays."""
    if _on_primary("SELECT 1 FROM pg_hba_file_rules WHERE 'replication' = ANY(database) AND error IS NULL"):
        return
    hba = Path(_on_primary("SHOW hba_file")[0][0])
    with hba.open("a") as f:
        f.write("\n# tests/deploy/: a streaming replica on this host\nhost replication all 127.0.0.1/32 trust\n")
    _on_primary("SELECT pg_reload_conf()")


def _base_backup(primary: dict, data: Path) -> bool:
    """A copy of the primary's cluster in `data`, set up to stream from it (-R); False to try again (a primary that
    has just reloaded its pg_hba.conf)."""
    data.mkdir(mode=0o700)
    if POSTGRES_USER:
        shutil.chown(data, POSTGRES_USER, POSTGRES_USER)
    done = subprocess.run(["pg_basebackup", "-h", primary["host"], "-p", str(primary["port"]), "-U", primary["user"],
                           "-D", str(data), "-X", "stream", "-R", "-c", "fast"], user=POSTGRES_USER, capture_output=True)
    if done.returncode:
        shutil.rmtree(data, ignore_errors=True)
    return done.returncode == 0


class Replica:
    """A hot standby of the test database's cluster: pg_basebackup into the stack's directory, then postgres on a
    port of its own, logging every statement (what it served is in its log)."""

    def __init__(self, stack: Stack):
        primary = _primary()
        self.port = free_port()
        self.dbname = primary["dbname"]
        data, sockets = stack.directory / "replica", stack.directory / "replica-sockets"
        sockets.mkdir()
        if POSTGRES_USER:
            shutil.chown(sockets, POSTGRES_USER, POSTGRES_USER)
        _allow_replication()
        wait_until("pg_basebackup", lambda: _base_backup(primary, data), timeout=30, interval=0.5)
        # Debian keeps a cluster's configuration in /etc: the copy has none. A standby needs these at least as large as
        # the primary's.
        (data / "postgresql.conf").write_text("")
        (data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        settings = {name: _on_primary(f"SHOW {name}")[0][0] for name in (
            "max_connections", "max_worker_processes", "max_wal_senders", "max_prepared_transactions",
            "max_locks_per_transaction")}
        settings.update(listen_addresses="127.0.0.1", port=str(self.port), unix_socket_directories=str(sockets),
                        hot_standby="on", fsync="off", log_statement="all", log_line_prefix="%m [%p] %d ")
        postgres = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))[-1]
        argv = [str(postgres), "-D", str(data), *(f"-c{k}={v}" for k, v in settings.items())]
        self.server = stack.start("replica", argv, user=POSTGRES_USER, stop_signal=signal.SIGINT)
        self.server.wait_for("hot standby", lambda: self._query("SELECT pg_is_in_recovery()") == [(True,)])
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{self.dbname}"

    def _query(self, sql: str) -> list[tuple] | None:
        try:
            with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=self.dbname,
                                 autocommit=True, connect_timeout=2) as conn:
                return conn.execute(sql).fetchall()
        except psycopg.OperationalError:
            return None

    def catch_up(self) -> None:
        """Wait until the replica has replayed everything the primary has written so far."""
        lsn = _on_primary("SELECT pg_current_wal_lsn()")[0][0]
        self.server.wait_for("replay", lambda: self._query(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'") == [(True,)])

    def statements_since(self, offset: int) -> str:
        return self.server.text()[offset:]


# --- Redis, daphne, Celery, nginx ------------------------------------------------------------------------------


def redis_server(stack: Stack) -> str:
    """A second Redis server, a shard of the channel layer; returns its URL."""
    port = free_port()
    server = stack.start("redis-2", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", str(stack.directory)])
    url = f"redis://127.0.0.1:{port}/0"
    server.wait_for("ping", lambda: _ping(url))
    return url


def _ping(url: str) -> bool:
    try:
        return redis.Redis.from_url(url, socket_timeout=1).ping()
    except redis.ConnectionError:
        return False


def site_env(**values: str) -> dict[str, str]:
    """A child's environment: deploy/halfpoint.env with `values` over it, on the test database (tests/servers.py)."""
    return child_env(**{**env_file(), "DJANGO_ALLOW_ASYNC_UNSAFE": "", **values, "DATABASE_URL": test_database_url()})


def answers(sock: Path) -> bool:
    """A daphne on the unix socket `sock` answers /healthz with 200, as nginx asks it."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(sock))
            s.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n\r\n")
            return s.recv(64).split(b"\r\n")[0].endswith(b" 200 OK")
    except OSError:
        return False


def web(stack: Stack, instance: str, env: dict) -> Child:
    """halfpoint-web@<instance>: daphne on web<instance>.sock in the stack's directory, once it answers."""
    child = stack.start(f"web{instance}", unit_command("halfpoint-web@.service", stack, instance), env=env)
    child.wait_for("/healthz", lambda: answers(stack.directory / f"web{instance}.sock"))
    return child


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def nginx_config(directory: Path, http: int, https: int) -> list[str]:
    """deploy/nginx/halfpoint.conf on 127.0.0.1 `http` and `https`, daphne's sockets and a self-signed certificate
    in `directory`, inside a minimal nginx.conf there: the command that runs it."""
    cert, key = self_signed_certificate(directory)
    site = (DEPLOY / "nginx" / "halfpoint.conf").read_text()
    for deployed, here in (
            ("listen 80;", f"listen 127.0.0.1:{http};"), ("listen [::]:80;", ""),
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;"), ("listen [::]:443 ssl http2;", ""),
            ("/run/halfpoint/", f"{directory}/"),
            ("/etc/letsencrypt/live/halfpoint.example/fullchain.pem", str(cert)),
            ("/etc/letsencrypt/live/halfpoint.example/privkey.pem", str(key))):
        assert deployed in site, deployed
        site = site.replace(deployed, here)
    (directory / "halfpoint.conf").write_text(site)
    temp = "\n".join(f"    {kind}_temp_path {directory}/nginx-{kind};" for kind in (
        "client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # As root, nginx's workers run as root too: daphne's sockets here belong to root (mode 660, as in the unit).
    (directory / "nginx.conf").write_text(f"""daemon off;
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
pid {directory}/nginx.pid;
events {{ worker_connections 512; }}
http {{
    include /etc/nginx/mime.types;
    access_log {directory}/nginx-access.log;
{temp}
    include {directory}/halfpoint.conf;
}}
""")
    return [shutil.which("nginx") or "/usr/sbin/nginx", "-p", str(directory), "-c", str(directory / "nginx.conf"),
            "-e", str(directory / "nginx-error.log")]


def nginx(stack: Stack, http: int, https: int) -> Child:
    """nginx with deploy/nginx/halfpoint.conf (`nginx_config`), once HTTPS answers."""
    argv = nginx_config(stack.directory, http, https)
    check = subprocess.run([*argv, "-t"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    server = stack.start("nginx", argv)
    server.wait_for("HTTPS", lambda: _listening(https))
    return server


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0
