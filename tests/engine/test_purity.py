"""games/engine imports nothing that does I/O, reads the clock or holds global randomness (DESIGN.md)."""

import ast
import pathlib

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"
FORBIDDEN = {"django", "channels", "celery", "random", "os", "socket", "datetime", "secrets", "asyncio",
             "requests", "urllib", "http", "subprocess", "threading", "sqlite3", "pathlib", "io", "logging",
             "sys", "redis", "select", "signal", "shutil", "tempfile", "pickle", "numpy"}
# simulate.py may fan out over processes (`--workers`) and reads perf_counter for its hands/s figure only.
ALLOWED = {("simulate.py", "multiprocessing"), ("simulate.py", "time")}


def imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module.split(".")[0]


def test_engine_has_no_forbidden_import():
    found = []
    for path in ENGINE.rglob("*.py"):
        for name in imports(path):
            if (path.name, name) in ALLOWED:
                continue
            if name in FORBIDDEN or name in ("time", "multiprocessing"):
                found.append(f"{path.relative_to(ENGINE)}: {name}")
    assert found == []


def test_only_simulate_reads_a_timer_and_never_for_the_rules():
    import re

    text = (ENGINE / "simulate.py").read_text()
    assert set(re.findall(r"_perf\.(\w+)", text)) == {"perf_counter"}
