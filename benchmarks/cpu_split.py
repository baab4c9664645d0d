"""Each kind of process's share of the machine over a window: ``python benchmarks/cpu_split.py [--delay S] WINDOW``.

Reads every process's CPU time (psutil) at the window's two edges and sums the difference by kind: daphne, the
Celery worker and beat, the load generator, PostgreSQL's backends, Redis, and the rest by their name. Run it beside
a bench's measured window (the bench prints "measuring for"); divided by the commands a second it gives each
kind's CPU a command (docs/performance.md, "Table ownership: its ceiling").
"""

import argparse
import time
from collections import Counter

import psutil


def kind(name: str, cmdline: str) -> str:
    """The kind of a process from its name and its command line (arguments joined by spaces)."""
    if "celery" in cmdline and " worker" in cmdline:
        return "celery worker"
    if "celery" in cmdline and " beat" in cmdline:
        return "celery beat"
    if "daphne" in cmdline:
        return "daphne"
    if "loadtest" in cmdline or "multiprocessing" in cmdline:  # the load generator and its worker processes
        return "load generator"
    if name.startswith("postgres"):
        return "postgresql"
    if name.startswith("redis"):
        return "redis"
    return "other: " + name


def sample() -> dict[tuple[int, str], float]:
    """CPU seconds (user + system) of every process now, by (pid, kind)."""
    out = {}
    for proc in psutil.process_iter(["name", "cmdline", "cpu_times"]):
        info = proc.info
        if info["cpu_times"] is None:  # gone meanwhile, or not ours to read
            continue
        cmdline = " ".join(info["cmdline"] or ())
        out[(proc.pid, kind(info["name"] or "", cmdline))] = info["cpu_times"].user + info["cpu_times"].system
    return out


def split(before: dict, after: dict, seconds: float) -> Counter:
    """Percent of one core by kind between two samples; a process born in the window counts whole."""
    used: Counter = Counter()
    for key, cpu in after.items():
        used[key[1]] += 100 * (cpu - before.get(key, 0.0)) / seconds
    return used


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("window", type=float, help="seconds to measure")
    p.add_argument("--delay", type=float, default=0, help="seconds to wait first")
    a = p.parse_args()
    time.sleep(a.delay)
    before, t0 = sample(), time.monotonic()
    time.sleep(a.window)
    used = split(before, sample(), time.monotonic() - t0)
    for name, percent in used.most_common(12):
        print(f"{name:24s} {percent:6.1f} %")
    print(f"{'the machine':24s} {sum(used.values()):6.1f} %")


if __name__ == "__main__":
    main()
