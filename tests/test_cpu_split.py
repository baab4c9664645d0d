"""benchmarks/cpu_split.py: each kind of process's share of the machine over a window."""

import importlib.util
import os
import time
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "cpu_split", Path(__file__).resolve().parent.parent / "benchmarks" / "cpu_split.py")
cpu_split = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_split)


@pytest.mark.parametrize("name, cmdline, kind", [
    ("python", "/v/bin/python -m celery -A config worker -l WARNING", "celery worker"),
    ("python", "/v/bin/python -m celery -A config beat -l WARNING -s x", "celery beat"),
    ("python", "/v/bin/python -m daphne -b 127.0.0.1 -p 8101 config.asgi:application", "daphne"),
    ("python", "/v/bin/python manage.py loadtest --url ws://127.0.0.1:8101 --tables 500", "load generator"),
    ("python", "/v/bin/python -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5)",
     "load generator"),
    ("postgres", "postgres: 15/main: postgres bench 127.0.0.1(5432) idle", "postgresql"),
    ("redis-server", "/usr/bin/redis-server 127.0.0.1:6379", "redis"),
    ("kworker/0:1", "", "other: kworker/0:1"),
])
def test_each_process_is_counted_under_its_kind(name, cmdline, kind):
    assert cpu_split.kind(name, cmdline) == kind


def test_the_split_is_the_cpu_each_kind_used_in_the_window():
    before = {(1, "daphne"): 10.0, (2, "daphne"): 5.0, (3, "redis"): 1.0, (9, "postgresql"): 3.0}
    after = {(1, "daphne"): 11.0, (2, "daphne"): 5.5, (3, "redis"): 1.0, (4, "postgresql"): 0.5}  # 4 born, 9 gone
    used = cpu_split.split(before, after, seconds=2.0)
    assert used == {"daphne": 75.0, "redis": 0.0, "postgresql": 25.0}


def test_a_sample_reads_this_process_and_its_cpu_grows_with_work():
    first = cpu_split.sample()
    key = next(k for k in first if k[0] == os.getpid())
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
    assert cpu_split.sample()[key] >= first[key] + 0.15
