"""Real servers for tests: a daphne process on a free port, pointed at the test database."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


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


@contextlib.contextmanager
def daphne(port: int | None = None, **env: str):
    """Run `daphne config.asgi:application` until the block ends; yields its base URL."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=child_env(**env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError("daphne exited: " + proc.stderr.read().decode(errors="replace")[-2000:])
            try:
                urllib.request.urlopen(base + "/", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
