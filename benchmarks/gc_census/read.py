"""Each process's garbage-collector passes over a bench run's measured window:
`python benchmarks/gc_census/read.py BENCH_LOG [--dir .bench/gc]`, after `bench.py --quick ... --env
PYTHONPATH=benchmarks/gc_census > BENCH_LOG` (sitecustomize.py here records them).

The window is the one the bench log names ("measuring for S s..." at its clock time, UTC); its commands are the run's
commands/s times S. For each daphne process and the Celery worker: the passes of each generation in the window,
per 1,000 commands, and the collector's CPU time.
"""

import argparse
import json
import re
import sys
from datetime import UTC, date, datetime, time
from pathlib import Path

MEASURING = re.compile(r"\[bench (\d\d:\d\d:\d\d)\]\s+\| measuring for ([\d.]+) s")
RESULT = re.compile(r"-> ([\d.]+) commands/s")


def window(log: str, day: date) -> tuple[float, float, float]:
    """(start, end, commands) of the log's first measured window."""
    found, result = MEASURING.search(log), RESULT.search(log)
    if found is None or result is None:
        raise ValueError("no measured window in this log: is it the output of bench.py --quick?")
    start = datetime.combine(day, time.fromisoformat(found.group(1)), tzinfo=UTC).timestamp()
    seconds = float(found.group(2))
    return start, start + seconds, float(result.group(1)) * seconds


def in_window(rows: list[dict], start: float, end: float) -> dict | None:
    """The passes and CPU between the lines nearest the window's edges; None when the series misses the window."""
    if not rows or rows[0]["t"] > start + 5 or rows[-1]["t"] < end - 5:
        return None
    first = min(rows, key=lambda r: abs(r["t"] - start))
    last = min(rows, key=lambda r: abs(r["t"] - end))
    return {"seconds": round(last["t"] - first["t"], 1),
            "passes": [b - a for a, b in zip(first["passes"], last["passes"], strict=True)],
            "cpu_ms": [round(b - a, 1) for a, b in zip(first["cpu_ms"], last["cpu_ms"], strict=True)]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("log")
    p.add_argument("--dir", default=".bench/gc")
    p.add_argument("--day", default=None, help="the run's date (UTC), when not today: YYYY-MM-DD")
    a = p.parse_args(argv)
    day = date.fromisoformat(a.day) if a.day else datetime.now(UTC).date()
    start, end, commands = window(Path(a.log).read_text(), day)
    shown = 0
    for path in sorted(Path(a.dir).glob("series-*")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if not rows or not re.search(r"daphne|celery\S* .*worker", rows[0]["argv"]):
            continue
        got = in_window(rows, start, end)
        if got is None:
            continue
        shown += 1
        per = [round(1000 * n / commands, 1) for n in got["passes"]]
        print(f"{path.name} {rows[0]['argv'][-50:]}: {got['seconds']} s, passes {got['passes']} "
              f"(per 1,000 commands {per}), collector CPU {got['cpu_ms']} ms")
    if not shown:
        print(f"no daphne or Celery worker series in {a.dir} covers the window", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
