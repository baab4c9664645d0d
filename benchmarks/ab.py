"""Before/after check of one change: `bench.py --quick` on two git revisions, alternated, each run on a fresh
bench database, and one table of the figures.

    python benchmarks/ab.py BEFORE AFTER [--pairs 2] [--tables 500] [--seconds 30] [--layer pubsub] [--stress 50]

Each revision is checked out once into a worktree of its own (.bench/ab/<rev>, detached, removed at the end)
and runs with the Python that runs ab.py: the servers import the worktree's code (their working directory comes
first on sys.path). The runs go BEFORE, AFTER, BEFORE, AFTER, ...; before each one the `bench` database is
dropped and created again, so that no run pays for the hands of the runs before it (a growing database made
every run of an unalternated series slower than the last, whichever code it ran: docs/performance.md).

Run it with a Python that has the dependencies but not this project installed: the virtualenv of `make` installs
the project editable, and its import hook would fill a module that an older revision lacks from this checkout.
    python -m venv /tmp/bench-venv && /tmp/bench-venv/bin/pip install '.[dev,bench]' && \
        /tmp/bench-venv/bin/pip uninstall -y halfpoint && /tmp/bench-venv/bin/python benchmarks/ab.py ...

With `--stress PERCENT` each pair is run a second time beside a neighbour's load that the bench starts itself
(bench.py --stress: stress-ng keeping every core PERCENT % busy, what it took reported), and the p99 under that load
is printed for both revisions: a shared production host's tail, where a command's cost shows first.

The machine should be otherwise quiet: the figures of a 2-core machine shared with anything else measure that
anything else. bench.py waits for the load average to fall before each run, and the table shows it.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ROOT / ".bench" / "ab"


def sh(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def worktree(rev: str) -> Path:
    path = TREES / rev
    if not path.exists():
        TREES.mkdir(parents=True, exist_ok=True)
        sh(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev])
        # What git does not hold: the static files a DEBUG=0 server serves, and the compiled catalogs.
        env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "bench-only-" + "k" * 50}
        sh([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=path, env=env)
        if (path / "locale").is_dir():
            sh([sys.executable, "manage.py", "compilemessages", "-v", "0"], cwd=path, env=env)
    return path


def fresh_database() -> None:
    for cmd in ("dropdb", "createdb"):
        args = [cmd, "-h", "127.0.0.1", "-U", "postgres", "bench"]
        subprocess.run([*args[:1], "--if-exists", *args[1:]] if cmd == "dropdb" else args, check=True)


def one_run(tree: Path, a, stress: int = 0) -> dict:
    fresh_database()
    cmd = [sys.executable, "benchmarks/bench.py", "--quick", "--tables", str(a.tables), "--seconds", str(a.seconds),
           "--layers", a.layer, "--no-doc"]
    if stress:
        cmd += ["--stress", str(stress)]
    print(f"[ab] {tree.name}: {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, cwd=tree, check=True)
    return json.loads((tree / ".bench" / "results.json").read_text())[-1]


def row(label: str, r: dict) -> tuple[str, dict]:
    daphne = [p for p in r["servers"] if "daphne" in p["name"]]
    figures = {
        "p99": r["latency_ms"]["p99"],
        "machine": r["machine_cpu_percent"],
        "daphne": sum(p.get("cpu_percent", 0) for p in daphne),
        "cps": r["commands_per_second"],
    }
    figures["per_cps"] = figures["machine"] / figures["cps"] if figures["cps"] else float("nan")
    per_process = "/".join(f"{p.get('cpu_percent', 0):.0f}" for p in daphne)
    stress = r.get("stress")
    took = f"{stress['cpu_percent']:.0f}" if stress else "-"
    line = (f"| {label} | {figures['p99']:,.1f} | {figures['machine']:.0f} | {per_process} | {figures['cps']} | "
            f"{figures['per_cps']:.2f} | {took} | {r['errors']} | {r['lost']} | {r['load_before']} |")
    return line, figures


def not_installed() -> None:
    try:
        metadata.distribution("halfpoint")
    except metadata.PackageNotFoundError:
        return
    sys.exit("ab.py: halfpoint is installed in this Python; run it from a virtualenv without it (the top of ab.py)")


def main() -> None:
    not_installed()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--pairs", type=int, default=2)
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--layer", default="pubsub")
    p.add_argument("--stress", type=int, default=0, metavar="PERCENT",
                   help="also run each pair beside stress-ng keeping every core PERCENT %% busy")
    p.add_argument("--keep", action="store_true", help="keep the worktrees")
    a = p.parse_args()
    trees = {"before": worktree(a.before), "after": worktree(a.after)}
    loads = [0, a.stress] if a.stress else [0]
    lines, figures = [], {(side, load): [] for side in ("before", "after") for load in loads}
    try:
        for i in range(1, a.pairs + 1):
            for load in loads:
                for side in ("before", "after"):
                    label = f"{side} {i}" + (f", stress {load} %" if load else "")
                    line, f = row(label, one_run(trees[side], a, load))
                    lines.append(line)
                    figures[side, load].append(f)
                    print(line, flush=True)
    finally:
        if not a.keep:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
            shutil.rmtree(TREES, ignore_errors=True)
    print(f"\n`bench.py --quick --tables {a.tables} --seconds {a.seconds:g} --layers {a.layer}`, "
          f"before {a.before}, after {a.after}, alternated, each on a fresh database:\n")
    print("| run | p99 ms | machine CPU % | daphne CPU % | commands/s | machine CPU % per command/s "
          "| stress-ng took % | errors | lost | load before |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    print()
    for load in loads:
        where = f"beside stress-ng at {load} % a core (its CPU is in the machine's)" if load else "quiet"
        for key, label in (("p99", "p99 ms"), ("per_cps", "machine CPU % per command/s"), ("daphne", "daphne CPU %")):
            b = statistics.median(f[key] for f in figures["before", load])
            after = statistics.median(f[key] for f in figures["after", load])
            print(f"{where}, median {label}: before {b:,.2f}, after {after:,.2f}")


if __name__ == "__main__":
    main()
