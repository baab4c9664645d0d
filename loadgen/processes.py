"""The servers' processes, watched through psutil: which ones to watch, their peak memory and CPU time."""

from __future__ import annotations

import os
import time

import psutil


def listening_pids(ports: set[int]) -> set[int]:
    """Processes with a TCP socket listening on one of `ports` (those this user may not inspect are left out)."""
    try:
        conns = psutil.net_connections(kind="tcp")
    except psutil.AccessDenied:
        return set()
    return {c.pid for c in conns
            if c.status == psutil.CONN_LISTEN and c.pid is not None and c.laddr and c.laddr.port in ports}


def with_children(pids: set[int]) -> set[int]:
    """`pids` and every descendant of theirs."""
    out = set(pids)
    for pid in pids:
        try:
            out.update(child.pid for child in psutil.Process(pid).children(recursive=True))
        except psutil.Error:
            continue
    return out


def machine_busy() -> tuple[float, float, float]:
    """(busy, total, steal) CPU seconds of the whole machine so far. Steal is time the hypervisor gave this virtual
    machine's cores to another guest: counted as busy, since our processes could not run, and reported on its own."""
    t = psutil.cpu_times()
    total = sum(t)
    return total - t.idle - getattr(t, "iowait", 0), total, getattr(t, "steal", 0)


class ProcessWatch:
    """Peak resident memory (sampled) and CPU time of some processes, and the whole machine's CPU, over the measured
    window."""

    def __init__(self, pids: set[int]):
        self.machine0 = machine_busy()
        self.pids = sorted(pids)
        self.procs = {p: _process(p) for p in self.pids}
        self.names = {p: _name(self.procs[p]) for p in self.pids}
        self.peak = {p: 0 for p in self.pids}
        self.cpu0 = {p: _cpu_seconds(self.procs[p]) for p in self.pids}
        self.t0 = time.monotonic()

    def sample(self) -> None:
        for p in self.pids:
            self.peak[p] = max(self.peak[p], _rss_bytes(self.procs[p]))

    def report(self) -> list[dict]:
        elapsed = time.monotonic() - self.t0
        out = []
        for p in self.pids:
            cpu = _cpu_seconds(self.procs[p])
            entry = {"pid": p, "name": self.names[p], "peak_rss_mb": round(self.peak[p] / 2**20, 1)}
            if cpu is not None and self.cpu0[p] is not None and elapsed > 0:
                entry["cpu_percent"] = round(100 * (cpu - self.cpu0[p]) / elapsed, 1)
            out.append(entry)
        return out

    def machine(self) -> dict:
        """The machine's CPU over the window, % of one core (2 cores = 200 %), and the steal within it."""
        busy, total, steal = machine_busy()
        busy0, total0, steal0 = self.machine0
        span = max(total - total0, 1e-9)
        cores = os.cpu_count() or 1
        return {"cpu_percent": round(100 * cores * (busy - busy0) / span, 1),
                "steal_percent": round(100 * cores * (steal - steal0) / span, 1)}


def _process(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.Error:
        return None


def _name(proc: psutil.Process | None) -> str:
    """Up to three words of the command line, without the interpreter and the options."""
    try:
        args = proc.cmdline() if proc is not None else None
    except psutil.Error:
        args = None
    if args is None:
        return "?"
    words = [a for a in args if not a.startswith("-") and "python" not in os.path.basename(a)]
    return " ".join(os.path.basename(w) for w in words[:3])[:60]


def _rss_bytes(proc: psutil.Process | None) -> int:
    try:
        return proc.memory_info().rss if proc is not None else 0
    except psutil.Error:
        return 0


def _cpu_seconds(proc: psutil.Process | None) -> float | None:
    """User and system CPU seconds of the process itself, not of its children."""
    try:
        times = proc.cpu_times() if proc is not None else None
    except psutil.Error:
        return None
    return times.user + times.system if times else None
