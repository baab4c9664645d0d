"""Real servers for tests: a daphne process on a free port, pointed at the test database."""

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
# daphne's message limits as every launch of the site sets them (Procfile, deploy/systemd; games/arrivals.py,
# SERVER_MESSAGE_MAX): a test server refuses a big frame as production does.
DAPHNE_LIMITS = ("--websocket-max-message-size", "4194304", "--websocket-max-frame-size", "4194304")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_database_url() -> str:
    """DATABASE_URL for a child process that must see the test database."""
    cfg = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{cfg['NAME']}"
    user = cfg.get("USER") or "postgres"
    host = cfg.get("HOST") or "127.0.0.1"
    port = cfg.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{cfg['NAME']}"


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = test_database_url()
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    env.update(extra)
    return env


class Daphne:
    """One `daphne config.asgi:application` process on 127.0.0.1, pointed at the test database. Its output
    goes to a file, not a pipe: a server that logs a lot (a fault test) must never block on a full pipe."""

    def __init__(self, port: int | None = None, **env: str):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.TemporaryFile()  # closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), *DAPHNE_LIMITS,
             "config.asgi:application"],
            cwd=ROOT, env=child_env(**env), stdout=subprocess.DEVNULL, stderr=self._log,
        )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("daphne exited: " + self.log()[-2000:])
            try:
                urllib.request.urlopen(self.base + "/", timeout=1).read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def kill(self) -> None:
        """kill -9: no shutdown at all, the sockets it served just drop."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


@contextlib.contextmanager
def daphne(port: int | None = None, **env: str):
    """Run `daphne config.asgi:application` until the block ends; yields its base URL."""
    server = Daphne(port, **env)
    try:
        yield server.base
    finally:
        server.stop()
