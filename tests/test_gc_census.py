"""benchmarks/gc_census: the hook counts every process's collector passes, and the reader takes the bench's window."""

import importlib.util
import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gc_census_read", ROOT / "benchmarks" / "gc_census" / "read.py")
read = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(read)

LOG = """[bench 10:00:00] pubsub x300: manage.py loadtest ...
[bench 10:00:50]   | measuring for 60 s...
[bench 10:01:55]   -> 150.0 commands/s, p50 8.0 p99 30.0 max 50.0 ms, errors 0, lost 0, hands 800
"""
DAY = date(2026, 12, 7)
START = datetime(2026, 12, 7, 10, 0, 50, tzinfo=UTC).timestamp()


def test_the_hook_counts_each_generations_passes_in_a_process_that_loads_it(tmp_path):
    code = "import gc, time\nfor _ in range(3): gc.collect(0)\ngc.collect(2)\ntime.sleep(0.6)\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "benchmarks" / "gc_census"), "GC_CENSUS_DIR": str(tmp_path),
           "GC_CENSUS_EVERY": "0.1"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    (series,) = tmp_path.glob("series-*")
    last = json.loads(series.read_text().splitlines()[-1])
    assert last["passes"][0] >= 3 and last["passes"][2] >= 1
    assert all(ms >= 0 for ms in last["cpu_ms"]) and last["argv"] == "-c"


def test_the_window_is_the_logs_measured_minute_and_its_commands():
    assert read.window(LOG, DAY) == (START, START + 60, 9000.0)
    with pytest.raises(ValueError):
        read.window("[bench 10:00:00] nothing measured\n", DAY)


def rows(times, passes):
    return [{"t": START + t, "argv": "x", "passes": [p, p // 10, 0], "cpu_ms": [float(p), 0.0, 0.0]}
            for t, p in zip(times, passes, strict=True)]


def test_the_passes_are_those_between_the_lines_nearest_the_windows_edges():
    got = read.in_window(rows([-20, -1, 30, 59, 80], [0, 100, 400, 700, 900]), START, START + 60)
    assert got == {"seconds": 60.0, "passes": [600, 60, 0], "cpu_ms": [600.0, 0.0, 0.0]}


@pytest.mark.parametrize("times", [[10, 30, 70], [-30, 20, 40], []], ids=["starts-late", "ends-early", "empty"])
def test_a_series_that_misses_the_window_is_left_out(times):
    assert read.in_window(rows(times, list(range(len(times)))), START, START + 60) is None


def test_the_reader_shows_the_servers_and_the_worker_only(tmp_path, capsys):
    (tmp_path / "bench.log").write_text(LOG)
    for pid, argv in ((1, "/venv/daphne/__main__.py -b 127.0.0.1 -p"), (2, "manage.py loadtest --url ws://x"),
                      (3, "/venv/celery/__main__.py -A config worker")):
        lines = [{**r, "argv": argv} for r in rows([-1, 59], [0, 900])]
        (tmp_path / f"series-{pid}").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert read.main([str(tmp_path / "bench.log"), "--dir", str(tmp_path), "--day", "2026-12-07"]) == 0
    out = capsys.readouterr().out
    assert "series-1" in out and "series-3" in out and "series-2" not in out
    assert "per 1,000 commands [100.0, 10.0, 0.0]" in out
    (tmp_path / "series-1").unlink()
    (tmp_path / "series-3").unlink()
    assert read.main([str(tmp_path / "bench.log"), "--dir", str(tmp_path), "--day", "2026-12-07"]) == 1
