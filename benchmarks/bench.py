"""`make bench`: the production-like stack on this machine, measured; writes docs/bench-latest.md.

1. PostgreSQL and Redis (.ci/services starts them when they are not answering), a database of its own
   (`bench`, migrated) and a Redis database of its own (db 9, flushed: nothing else of Redis is touched).
2. HalfPoint as in production: 2 daphne processes (ports 8101, 8102), 1 Celery worker, Celery beat,
   DEBUG=0, a pool of database connections per process. `manage.py loadtest` spreads every table's seats over both.
3. Runs: 50, 200, 500 and 1000 tables at 0.5 commands/s per table; `--rate max` at growing table counts until
   p99 passes 250 ms (the saturation point: the most commands/s with p99 < 250 ms and no error).
4. The bare-Channels baseline in the same run: benchmarks/bare_asgi.py on 2 daphne processes with the
   same channel layer, driven by the same clients (`loadtest --bare`, frames the size of ours).
5. With `--layers core,pubsub`, the other layers' 200-table run and saturation point too.
6. The engine benchmark, the query count of a hit and a stand, a py-spy profile of one daphne process
   during the 200-table run (when py-spy is installed: `pip install py-spy`).

Everything it starts, it stops. The figures go to docs/bench-latest.md, which it writes whole each time;
docs/performance.md is written by hand and never touched here. The raw results go to .bench/results.json
(each run as it ends) and .bench/bench.json (the whole bench).
"""

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from loadgen.processes import ProcessWatch, with_children  # noqa: E402  (psutil only: no Django here)

PY = sys.executable
OUT = ROOT / ".bench"
DOC = ROOT / "docs" / "bench-latest.md"  # generated whole; docs/performance.md links to it
DB_NAME = "bench"
REDIS_URL = "redis://127.0.0.1:6379/9"
PORTS = (8101, 8102)
BARE_PORTS = (8111, 8112)
P99_LIMIT = 250.0
TARGETS = {500: 100.0, 1000: 250.0}  # tables -> p99 ms at the default rate, with 0 errors and 0 lost
RATIO_TARGET = 0.5  # HalfPoint's saturation point over the bare relay's, on the first layer
# The machine's CPU a command over the relay's, at the same table count, from CPU_TARGET_FROM tables on (with fewer,
# the per-process fixed costs, the beats and the watchers' passes, are shared by few commands).
CPU_TARGET, CPU_TARGET_FROM = 2.0, 500

STACK_ENV = {
    "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
    "REDIS_URL": REDIS_URL,
    "DEBUG": "0",
    "SECRET_KEY": "bench-only-" + "k" * 50,
    "SECURE_SSL_REDIRECT": "0",  # plain HTTP on loopback, no TLS proxy in front
    # A pool of connections per process (config/settings.py): daphne runs each request and socket call on a
    # thread of its own, which would otherwise open a connection per call (CONN_MAX_AGE=0) or keep one per thread.
    "DB_POOL": "1",
    "GAMES_DB_THREADS": "8",  # the sockets' database calls side by side (config/settings.py, docs/performance.md)
    "LOG_LEVEL": "WARNING",
    # Hands follow each other after 1 s instead of 6 s: tables spend their time playing, so the load is
    # the rate asked for, not less.
    "GAMES_NEXT_HAND_SECONDS": "1",
}


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def env(**extra) -> dict:
    e = dict(os.environ)
    e.update(STACK_ENV)
    e.update(extra)
    return e


def run(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, **kw).stdout


# --- the stack ------------------------------------------------------------------------------------------


def stop_groups(procs: list[tuple[str, subprocess.Popen]], timeout: float) -> None:
    """SIGTERM each process's group, wait up to `timeout` s for each, then SIGKILL whatever of the group is left
    (benchmarks/nodes.py stops its nodes the same way)."""
    for _name, p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for _name, p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)  # whatever of the group is still there
        p.wait()


def wait_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"a server on port {port} exited (see {OUT}/*.log)")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    raise RuntimeError(f"nothing answers on port {port}")


class Stack:
    """daphne processes (and for HalfPoint a Celery worker and beat); stopped by `stop()`."""

    def __init__(self, app: str, ports: tuple[int, ...], layer: str, celery: bool):
        for port in ports:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                raise RuntimeError(f"something already listens on port {port}: a server left by an earlier run? "
                                   "Stop it first, it would be measured instead of this run's")
        self.ports = ports
        self.procs: list[tuple[str, subprocess.Popen]] = []
        e = env(REDIS_CHANNEL_LAYER=layer)
        for port in ports:
            # daphne's message limits as the Procfile and the deploy unit set them (games/arrivals.py).
            self._start(f"daphne-{port}", [PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                           "--websocket-max-message-size", "4194304",
                                           "--websocket-max-frame-size", "4194304", app], e)
        if celery:
            self._start("worker", [PY, "-m", "celery", "-A", "config", "worker", "-l", "WARNING"], e)
            self._start("beat", [PY, "-m", "celery", "-A", "config", "beat", "-l", "WARNING",
                                 "-s", str(OUT / "beat-schedule")], e)
        try:
            for port, (_name, proc) in zip(ports, self.procs, strict=False):
                wait_port(port, proc)
            if celery:  # the first hand of every table needs the worker: wait until it answers
                deadline = time.monotonic() + 180
                while subprocess.run([PY, "-m", "celery", "-A", "config", "inspect", "ping", "--timeout", "3"],
                                     cwd=ROOT, env=e, capture_output=True).returncode != 0:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the Celery worker did not answer (see {OUT}/worker.log)")
                    time.sleep(1)
        except BaseException:
            # A stack that failed to start stops what it did start: a worker and beat left behind by a daphne that
            # would not start took the next runs' wake tasks and CPU, unseen.
            self.stop()
            raise

    def _start(self, name: str, cmd: list[str], e: dict) -> None:
        logf = open(OUT / f"{name}.log", "ab")  # noqa: SIM115 (the child keeps it; closed at exit)
        # A session of its own: `stop` ends the whole process group (Celery's pool children too). A stack left
        # running by an earlier run once shared the machine with the next one and spoiled its figures.
        self.procs.append((name, subprocess.Popen(cmd, cwd=ROOT, env=e, stdout=logf, stderr=subprocess.STDOUT,
                                                  start_new_session=True)))

    @property
    def urls(self) -> str:
        return ",".join(f"ws://127.0.0.1:{p}" for p in self.ports)

    def pids(self, name: str = "") -> list[int]:
        return [p.pid for n, p in self.procs if n.startswith(name)]

    def stop(self) -> None:
        stop_groups(self.procs, timeout=20)
        self.procs = []


# --- the machine ------------------------------------------------------------------------------------------


class Stress:
    """A neighbour's load for one run (`--stress PERCENT`): stress-ng keeping every core PERCENT % busy (its
    `--cpu-load`, a duty cycle), started before the load test and stopped after it. What it really took over the
    run is measured (`stop`, with the load generator's ProcessWatch), not assumed: beside our processes it gets less
    than it asks for."""

    def __init__(self, percent: int):
        self.percent, self.cores = percent, os.cpu_count() or 1
        self.proc = subprocess.Popen(["stress-ng", "--cpu", str(self.cores), "--cpu-load", str(percent), "--quiet"],
                                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # its workers started
        self.pids = with_children({self.proc.pid})
        self.watch = ProcessWatch(self.pids)

    def stop(self) -> dict:
        took = sum(p.get("cpu_percent", 0) for p in self.watch.report())
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)
        return {"asked_percent": self.percent, "cores": self.cores, "cpu_percent": round(took, 1)}


def busy_others(exclude: set[int]) -> list[str]:
    """The busiest processes that are not ours, from one `ps` look."""
    out = run(["ps", "-eo", "pid,pcpu,etimes,args", "--sort=-pcpu"]).splitlines()[1:]
    rows = []
    for line in out:
        pid, pcpu, _etimes, args = line.split(None, 3)
        if int(pid) in exclude or float(pcpu) < 5 or "ps -eo" in args:
            continue
        rows.append(f"{float(pcpu):.0f}% {args[:90]}")
    return rows[:6]


def wait_quiet(limit: float, seconds: float) -> float:
    """Wait until the 1-minute load average is under `limit`, at most `seconds`; returns it."""
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def vacuum() -> None:
    """VACUUM (ANALYZE) the bench database. Every table command writes a new version of its table's row, so a
    500-table run leaves tens of thousands of dead rows, which a production server's autovacuum clears as it
    goes. The machine's PostgreSQL may run without autovacuum (this one's CI configuration turns it off, and the
    bench changes no server setting), so each HalfPoint run starts from a vacuumed database instead of the
    leftovers of the runs before it."""
    run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DB_NAME, "-qc", "VACUUM (ANALYZE)"])


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 platform.processor())
    return {
        "cores": os.cpu_count(), "memory_gib": round(psutil.virtual_memory().total / 2**30, 1), "cpu": model,
        "python": platform.python_version(), "kernel": platform.release(),
        "postgresql": run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-tAc", "show server_version"]).strip(),
        "autovacuum": run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-tAc", "show autovacuum"]).strip(),
        "redis": re.search(r"redis_version:(\S+)", run(["redis-cli", "info", "server"])).group(1),
        "packages": {name: _version(name) for name in ("django", "channels", "channels-redis", "daphne", "redis",
                                                          "websockets")},
    }


def _version(name: str) -> str:
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:
        return "?"


# --- the runs ---------------------------------------------------------------------------------------------


class Runner:
    def __init__(self, a):
        self.a = a
        self.results: list[dict] = []

    def loadtest(self, stack: Stack, *, label: str, tables: int, seconds: float, rate: str = "0.5",
                 bare: bool = False, payload: int = 2000, profile: bool = False) -> dict:
        if not bare:
            vacuum()
        load = wait_quiet(self.a.quiet_load, self.a.quiet_wait)
        cmd = [PY, "manage.py", "loadtest", "--url", stack.urls, "--tables", str(tables), "--seconds", str(seconds),
               "--rate", rate, "--json", "--workers", str(self.a.workers), "--warmup", str(self.a.warmup)]
        if self.a.by_room:
            cmd.append("--by-room")
        if bare:
            cmd += ["--bare", "--payload", str(payload)]
        else:
            cmd += ["--pids", ",".join(map(str, stack.pids("worker") + stack.pids("beat")))]
        log(f"{label}: {' '.join(cmd[1:])}  (load average {load:.2f})")
        stress = Stress(self.a.stress) if self.a.stress else None
        stressed = None
        try:
            spy = None
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            errors: list[str] = []
            measuring = threading.Event()

            def follow():  # the loadtest's progress lines, echoed; "measuring" opens the window
                for line in proc.stderr:
                    errors.append(line)
                    log("  | " + line.rstrip())
                    if "measuring" in line:
                        measuring.set()

            reader = threading.Thread(target=follow, daemon=True)
            reader.start()
            if profile and py_spy() and self._wait_for(measuring, proc):
                spy = self._profile(stack.pids("daphne")[0], seconds)
            stdout = proc.stdout.read()
            proc.wait(timeout=3600)
            reader.join(timeout=10)
        finally:
            if stress is not None:  # never left running after a failed run
                stressed = stress.stop()
        if proc.returncode != 0:
            raise RuntimeError("loadtest failed:\n" + "".join(errors)[-3000:])
        r = json.loads(stdout)
        ours = sum(p.get("cpu_percent", 0) for p in r["servers"]) + r["generator"]["cpu_percent"]
        # The machine's CPU over the measured window (the load generator reads it at the window's edges): the
        # logins, the seating and the warm-up before it are not a command's cost.
        r.update(label=label, command="python manage.py " + " ".join(cmd[2:]), load_before=round(load, 2),
            others=busy_others({os.getpid(), proc.pid, *stack.pids(), *(stress.pids if stress else ())}),
            machine_cpu_percent=round(r["machine"]["cpu_percent"]), steal_percent=r["machine"]["steal_percent"],
            stack_cpu_percent=round(ours))
        if stressed is not None:
            r["stress"] = stressed
        if spy is not None:
            r["profile"] = spy
        self.results.append(r)
        lat = r["latency_ms"]
        log(f"  -> {r['commands_per_second']} commands/s, p50 {lat['p50']} p99 {lat['p99']} max {lat['max']} ms, "
            f"errors {r['errors']}, lost {r['lost']}, hands {r['hands']}")
        self.save()
        return r

    @staticmethod
    def _wait_for(event: threading.Event, proc) -> bool:
        while proc.poll() is None:
            if event.wait(1):
                return True
        return False

    def _profile(self, pid: int, seconds: float) -> dict | None:
        """Sample one daphne process with py-spy (threads holding the GIL: the Python work) over the window.
        `--nonblocking`: py-spy otherwise stops the process for each of its 100 samples a second, in the very run
        whose latency is measured."""
        raw = OUT / "profile.txt"
        duration = max(5, int(seconds) - 5)
        subprocess.run([py_spy(), "record", "-p", str(pid), "-d", str(duration), "-r", "100", "--gil", "--nonblocking",
                        "-f", "raw", "-o", str(raw)], capture_output=True, timeout=duration + 60)
        return summarize_profile(raw) if raw.exists() else None

    def saturation(self, stack: Stack, *, label: str, bare: bool = False, payload: int = 2000) -> dict:
        """--rate max at growing table counts; the best commands/s with p99 under the limit and no error."""
        steps = []
        for tables in (self.a.steps_bare if bare else self.a.steps):
            r = self.loadtest(stack, label=f"{label} max x{tables}", tables=tables, seconds=self.a.step_seconds,
                              rate="max", bare=bare, payload=payload)
            ok = r["latency_ms"]["p99"] is not None and r["latency_ms"]["p99"] < P99_LIMIT and r["errors"] == 0 \
                and r["lost"] == 0
            steps.append({"tables": tables, "ok": ok, "commands_per_second": r["commands_per_second"],
                          "p99": r["latency_ms"]["p99"]})
            if not ok:
                break
        passing = [s for s in steps if s["ok"]]
        best = max(passing, key=lambda s: s["commands_per_second"]) if passing else None
        return {"label": label, "steps": steps, "best": best}

    def save(self) -> None:
        (OUT / "results.json").write_text(json.dumps(self.results, indent=1))


def py_spy() -> str | None:
    return shutil.which("py-spy", path=str(Path(PY).parent) + os.pathsep + os.environ.get("PATH", ""))


GENERIC = re.compile(r"^(Thread\.|_worker|_WorkItem|BaseEventLoop|Handle\._run|<module>|CommandLineInterface|"
                     r"Server\.run|AsyncioSelectorReactor\.run|SyncToAsync|DatabaseSyncToAsync|AsyncToSync)")


def summarize_profile(path: Path) -> dict:
    """py-spy raw stacks -> the share of samples in each function (inclusive and self), top entries."""
    incl, own, total = Counter(), Counter(), 0
    for line in path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        n, total = int(n), total + int(n)
        frames = [f.split(" (")[0] + " (" + f.rsplit("/", 1)[-1].split(":")[0] for f in stack.split(";")]
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    pick = [(f, n) for f, n in incl.most_common() if not GENERIC.match(f)][:30]
    return {"samples": total, "inclusive": [(f, round(100 * n / total, 1)) for f, n in pick],
            "self": [(f, round(100 * n / total, 1)) for f, n in own.most_common(15)]}


# --- the page ----------------------------------------------------------------------------------------------


def fmt_run(r: dict) -> str:
    lat = r["latency_ms"]
    daphne = [p for p in r["servers"] if "daphne" in p["name"]]
    celery = [p for p in r["servers"] if "celery" in p["name"]]
    rss = "/".join(f"{p['peak_rss_mb']:.0f}" for p in daphne) or "-"
    crss = max((p["peak_rss_mb"] for p in celery), default=None)
    cpu = "/".join(f"{p.get('cpu_percent', 0):.0f}" for p in daphne) or "-"
    return (f"| {r['tables']} | {r['rate']} | {r['commands_per_second']} | {lat['p50']} | {lat['p95']} | {lat['p99']} "
            f"| {lat['max']} | {r['errors']} | {r['lost']} | {r['hands']} | {rss} | {'-' if crss is None else round(crss)} "
            f"| {cpu} | {r['generator']['cpu_percent']:.0f} | {r['machine_cpu_percent']} | {r.get('steal_percent', '-')} "
            f"| {r['load_before']} |")


RUN_HEADER = ("| tables | rate | commands/s | p50 ms | p95 ms | p99 ms | max ms | errors | lost | hands "
              "| daphne peak RSS MB | Celery peak RSS MB | daphne CPU % | clients CPU % | machine CPU % | steal % | load before |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def render(data: dict) -> str:
    m = data["machine"]
    lines = [
        f"# Figures from `make bench` ({data['date']}, {data['elapsed_minutes']} minutes)",
        "",
        "Written by benchmarks/bench.py at the end of every `make bench`; do not edit. How to read these figures, "
        "and what was decided from them: docs/performance.md.",
        "",
        f"Machine: {m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB; Python {m['python']}, PostgreSQL "
        f"{m['postgresql']} (autovacuum {m.get('autovacuum', '?')}; every HalfPoint run starts from a VACUUM of the bench "
        f"database), Redis {m['redis']}; " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()) + ".",
        f"Stack: 2 daphne processes, 1 Celery worker (4 threads), Celery beat, channel layer `{data['layer']}`; "
        f"environment {', '.join(f'{k}={v}' for k, v in STACK_ENV.items() if k not in ('SECRET_KEY',))}.",
        f"Each run: {data.get('warmup', 0):g} s of warm-up (played, not measured: every table opens its bank in the same "
        f"second when play starts), then {data['seconds']} s measured at the default rate, {data['step_seconds']} s "
        "per `--rate max` step; "
        f"{data['workers']} client process(es).",
        "",
        "## HalfPoint at the default rate (0.5 commands/s per table, 4 seats a table)",
        "",
        "Latency: from sending a command to the moment the last of the table's 4 seats has its update. "
        "RSS: peak resident memory sampled each second; CPU: % of one core over the window; machine CPU: "
        f"all processes, % of one core ({m['cores']} cores = {100 * m['cores']} %), over the measured window "
        "(not the logins, the seating or the warm-up before it); steal: of that, the time the hypervisor ran another guest on "
        "this machine's cores (our processes were ready and could not run).",
        "",
        RUN_HEADER,
        *[fmt_run(r) for r in data["main"]],
        "",
        "Targets: " + "; ".join(
            f"{t} tables p99 < {lim:g} ms with 0 errors: **{_verdict(data['main'], t, lim)}**"
            for t, lim in TARGETS.items()),
        "",
        "## Saturation (`--rate max`: every client acts as soon as it may)",
        "",
        "| stack | steps (tables: commands/s, p99 ms) | saturation point (commands/s, p99 < 250 ms, 0 errors) |",
        "|---|---|---|",
    ]
    for s in data["saturation"]:
        steps = ", ".join(f"{x['tables']}: {x['commands_per_second']}/s {x['p99']} ms{'' if x['ok'] else ' ✗'}"
                          for x in s["steps"])
        best = f"{s['best']['commands_per_second']} at {s['best']['tables']} tables" if s["best"] else "none"
        lines.append(f"| {s['label']} | {steps} | {best} |")
    lines += ["", "Ratio of HalfPoint's saturation point to the bare relay's on the same layer: " + "; ".join(
        f"{layer}: **{ratio}**" for layer, ratio in data["ratios"].items()) + ".", ""]
    lines += ["## The bare-Channels baseline at the default rate", "",
              f"benchmarks/bare_asgi.py, same daphne processes and layer, frames of {data['payload']} bytes "
              "(the mean size of HalfPoint's frames in the 200-table run).", "", RUN_HEADER,
              *[fmt_run(r) for r in data["bare"]], ""]
    lines += _cost_against_relay(data)
    if data.get("layers"):
        lines += ["## Other channel layers (200 tables at the default rate)", "", RUN_HEADER]
        lines += [fmt_run(r) for r in data["layers"]]
        lines.append("")
    lines += ["## Query count of a command (`python benchmarks/query_count.py`)", "", "```",
              data["queries"].strip(), "```", "",
              "## Engine (`python benchmarks/engine_bench.py --hands 20000 --runs 3`)", "", "```",
              data["engine"].strip(), "```", ""]
    prof = data.get("profile")
    if prof:
        lines += ["## Where one daphne process spends its time (py-spy, 200 tables at the default rate)", "",
                  f"{prof['samples']} samples at 100 Hz of the thread holding the GIL (the Python work of the event "
                  "loop and of the database thread), taken without stopping the process (`--nonblocking`); share of "
                  "samples in each function, callees included:", "", "```"]
        lines += [f"{pct:5.1f}%  {f}" for f, pct in prof["inclusive"]]
        lines += ["```", "", "Self time (the function itself):", "", "```"]
        lines += [f"{pct:5.1f}%  {f}" for f, pct in prof["self"]]
        lines += ["```", ""]
    lines += ["## What else was running", "",
              "Load average before each run and the busiest other processes seen right after it (the machine is "
              "shared with other test runs):", ""]
    for r in data["main"] + data["bare"] + data.get("layers", []):
        lines.append(f"- {r['label']}: load {r['load_before']}; " + ("; ".join(r["others"]) or "nothing above 5 %"))
    lines += ["", "Commands:", "", "```"]
    lines += [r["command"] for r in data["main"] + data["bare"]]
    lines.append("```")
    return "\n".join(lines)


def _ms_per_command(r: dict) -> float | None:
    """The machine's CPU a command over the window, in ms (a bare relay's command is one message relayed)."""
    return 10 * r["machine_cpu_percent"] / r["commands_per_second"] if r["commands_per_second"] else None


def _cost_against_relay(data: dict) -> list[str]:
    """The machine's CPU a command, HalfPoint's against the bare relay's at the same table count, and the targets
    on it (at most CPU_TARGET times the relay's) and on the saturation ratio (at least RATIO_TARGET)."""
    bare = {r["tables"]: r for r in data["bare"]}
    lines = ["## A command's cost against the relay's (machine CPU over the window, ms a command)", "",
             "| tables | HalfPoint | bare relay | ratio |", "|---|---|---|---|"]
    ratios = []
    for r in data["main"]:
        ours = _ms_per_command(r)
        base = _ms_per_command(bare[r["tables"]]) if r["tables"] in bare else None
        if ours and base and r["tables"] >= CPU_TARGET_FROM:
            ratios.append(ours / base)
        shown = [f"{x:.2f}" if x else "n/a" for x in (ours, base, ours / base if ours and base else None)]
        lines.append(f"| {r['tables']} | {' | '.join(shown)} |")
    cpu = (f"**{'met' if max(ratios) <= CPU_TARGET else 'missed'}** (largest ratio {max(ratios):.2f})" if ratios
           else "**not measured**")
    ratio = data["ratios"].get(data["layer"], "n/a")
    try:
        saturation = f"**{'met' if float(ratio) >= RATIO_TARGET else 'missed'}** ({ratio})"
    except ValueError:
        saturation = f"**not measured** ({ratio})"
    return [*lines, "", f"Targets: machine CPU a command at most {CPU_TARGET:g} × the relay's from {CPU_TARGET_FROM} tables on: "
            f"{cpu}; saturation ratio to the relay on `{data['layer']}` at least {RATIO_TARGET:g}: {saturation}.", ""]


def _verdict(runs: list[dict], tables: int, limit: float) -> str:
    r = next((x for x in runs if x["tables"] == tables), None)
    if r is None:
        return "not run"
    p99 = r["latency_ms"]["p99"]
    ok = p99 is not None and p99 < limit and r["errors"] == 0 and r["lost"] == 0
    return f"{'met' if ok else 'missed'} (p99 {p99} ms, {r['errors']} errors, {r['lost']} lost)"


def write_doc(text: str) -> None:
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(text + "\n")


# --- main --------------------------------------------------------------------------------------------------


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=60, help="measured window of the default-rate runs")
    p.add_argument("--tables", default="50,200,500,1000")
    p.add_argument("--steps", default="2,5,10,25,50,100,200", help="--rate max table counts, HalfPoint")
    p.add_argument("--steps-bare", default="25,50,100,200,400,800", help="--rate max table counts, bare relay")
    p.add_argument("--step-seconds", type=float, default=20)
    p.add_argument("--warmup", type=float, default=10,
                   help="seconds each run plays before its window opens (loadtest --warmup): the tables start together")
    p.add_argument("--layers", default="pubsub,core", help="channel layers; the first is the one measured in full")
    p.add_argument("--workers", type=int, default=1, help="loadtest client processes")
    p.add_argument("--quiet-load", type=float, default=1.0, help="wait for a load average under this before a run")
    p.add_argument("--quiet-wait", type=float, default=60, help="... but at most this many seconds")
    p.add_argument("--no-doc", action="store_true", help="do not write docs/bench-latest.md")
    p.add_argument("--quick", action="store_true",
                   help="only HalfPoint's runs at --tables on the first layer, with a profile of the first: a "
                        "before/after check of a change (no saturation search, no bare relay, no doc)")
    p.add_argument("--by-room", action="store_true",
                   help="every seat of a table on one daphne process (loadtest --by-room), as nginx hashing rooms")
    p.add_argument("--stress", type=int, default=0, metavar="PERCENT",
                   help="a neighbour's load during every run: stress-ng keeping each core PERCENT %% busy, reported")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting of the measured servers, over the defaults above (repeatable)")
    a = p.parse_args()
    if a.stress and not shutil.which("stress-ng"):
        sys.exit("--stress needs stress-ng: apt-get install stress-ng (`make bench` installs it)")
    STACK_ENV.update(item.split("=", 1) for item in a.env)
    a.steps = [int(x) for x in a.steps.split(",")]
    a.steps_bare = [int(x) for x in a.steps_bare.split(",")]
    layers = a.layers.split(",")
    OUT.mkdir(exist_ok=True)
    started = time.monotonic()

    log("PostgreSQL and Redis (.ci/services)")
    subprocess.run(["bash", ".ci/services"], cwd=ROOT, check=True)
    exists = run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-tAc",
                  f"select 1 from pg_database where datname = '{DB_NAME}'"]).strip()
    if not exists:
        run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB_NAME])
    run([PY, "manage.py", "migrate", "--noinput"], env=env())
    # DEBUG=0: WhiteNoise serves the collected, hashed files, as in production (docs/deploy.md).
    run([PY, "manage.py", "collectstatic", "--noinput"], env=env())
    run(["redis-cli", "-n", REDIS_URL.rsplit("/", 1)[1], "flushdb"])

    runner = Runner(a)
    if a.quick:
        quick(runner, a, layers[0])
        return
    data = {"machine": machine(), "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "layer": layers[0],
            "seconds": a.seconds, "step_seconds": a.step_seconds, "warmup": a.warmup, "workers": a.workers, "main": [], "bare": [],
            "layers": [], "saturation": [], "ratios": {}}
    log("engine benchmark")
    data["engine"] = run([PY, "benchmarks/engine_bench.py", "--hands", "20000", "--runs", "3"])
    log("query count")
    data["queries"] = run([PY, "benchmarks/query_count.py", "--sql"], env=env())

    for i, layer in enumerate(layers):
        full = i == 0
        # A clean broker for each stack: a stopped worker's reserved wakes (ETA up to the 600 s turn timer) go
        # back to the queue, and the next stack's worker would spend both cores on thousands of stale wakes.
        run(["redis-cli", "-n", REDIS_URL.rsplit("/", 1)[1], "flushdb"])
        stack = Stack("config.asgi:application", PORTS, layer, celery=True)
        try:
            runs = [int(x) for x in a.tables.split(",")] if full else [200]
            for tables in runs:
                r = runner.loadtest(stack, label=f"{layer} x{tables}", tables=tables, seconds=a.seconds,
                                    profile=full and tables == 200)
                (data["main"] if full else data["layers"]).append(r)
                if full and tables == 200:
                    data["payload"] = r["mean_frame_bytes"]
                    data["profile"] = r.get("profile")
            ours = runner.saturation(stack, label=f"HalfPoint, {layer}")
        finally:
            stack.stop()
        payload = data.get("payload", 2000)
        bare = Stack("benchmarks.bare_asgi:application", BARE_PORTS, layer, celery=False)
        try:
            if full:
                for tables in [int(x) for x in a.tables.split(",")]:
                    data["bare"].append(runner.loadtest(bare, label=f"bare {layer} x{tables}", tables=tables,
                                                        seconds=a.seconds, bare=True, payload=payload))
            base = runner.saturation(bare, label=f"bare relay, {layer}", bare=True, payload=payload)
        finally:
            bare.stop()
        data["saturation"] += [ours, base]
        if ours["best"] and base["best"]:
            data["ratios"][layer] = f"{ours['best']['commands_per_second'] / base['best']['commands_per_second']:.2f}"
        else:
            data["ratios"][layer] = "n/a (no step passed)"
    data["elapsed_minutes"] = round((time.monotonic() - started) / 60)
    (OUT / "bench.json").write_text(json.dumps(data, indent=1))
    text = render(data)
    if not a.no_doc:
        write_doc(text)
        log(f"wrote {DOC.relative_to(ROOT)}")
    print(text)


def quick(runner: Runner, a, layer: str) -> None:
    stack = Stack("config.asgi:application", PORTS, layer, celery=True)
    try:
        runs = [runner.loadtest(stack, label=f"{layer} x{tables}", tables=int(tables), seconds=a.seconds,
                                profile=i == 0) for i, tables in enumerate(a.tables.split(","))]
    finally:
        stack.stop()
    print(RUN_HEADER)
    for r in runs:
        print(fmt_run(r))
    for r in runs:
        if "stress" in r:
            st = r["stress"]
            print(f"\nx{r['tables']}: beside stress-ng on {st['cores']} cores asking {st['asked_percent']} % each, "
                  f"which took {st['cpu_percent']} % of one core over the run (of {100 * st['cores']} %)")
    profile = runs[0].get("profile")
    if profile:
        print("\nprofile of one daphne process, inclusive %:")
        for name, pct in profile["inclusive"]:
            print(f"  {pct:5.1f}  {name}")
        print("self %:")
        for name, pct in profile["self"]:
            print(f"  {pct:5.1f}  {name}")


if __name__ == "__main__":
    main()
