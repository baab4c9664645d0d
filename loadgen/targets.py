"""The servers a run plays against: `--url` values, loopback WebSocket addresses only."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from loadgen import LoadTestError


@dataclass(frozen=True)
class Target:
    host: str
    port: int

    @property
    def netloc(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://{self.netloc}"

    @property
    def http(self) -> str:
        return f"http://{self.netloc}"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost: never resolved, never contacted


def parse_targets(values: list[str]) -> list[Target]:
    """`--url` values (each may be a comma list) -> targets. Refuses anything that is not ws:// on loopback."""
    out = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            u = urlsplit(part)
            if u.scheme != "ws" or not u.hostname:
                raise LoadTestError(f"{part!r}: give a ws:// address such as ws://127.0.0.1:8000")
            if not is_loopback(u.hostname):
                raise LoadTestError(f"{part!r}: the load test only connects to this machine (loopback addresses)")
            if u.path not in ("", "/"):
                raise LoadTestError(f"{part!r}: give the server's address without a path")
            out.append(Target(u.hostname, u.port or 80))
    if not out:
        raise LoadTestError("give at least one --url")
    return out
