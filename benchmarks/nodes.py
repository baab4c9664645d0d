"""`make bench-nodes`: the deployment's topology as separate nodes on this machine, measured (docs/scaling.md).

Each node is a network namespace of its own (benchmarks/netns.py) running one daphne and one Celery worker;
nginx routes every room's sockets to one node by the room code (a consistent hash); PostgreSQL and Redis are
the machine's, shared by every node (its own database `hp_nodes_bench`, Redis databases 8 and 9 as the two
shards of the channel layer, 8 also the broker and cache; 8-11 flushed). One Celery beat, in the root namespace.
The clients (`manage.py loadtest`) connect to nginx only, as browsers would.

For each node count (`--nodes 1,2`):
1. the default rate (0.5 commands/s per table) at `--tables`: p99 against the 100 ms and 250 ms targets;
2. `--rate max` at `--steps`: the saturation point (most commands/s with p99 < 250 ms and no error);
3. in every run, PostgreSQL's share: the CPU of the backends serving the bench database (from /proc, over the
   measured window) and their commits, per command;
4. with two nodes or more (unless `--no-kill`): the first node's daphne and worker are killed (SIGKILL) 30 % into
   the window; its tables' clients reconnect through nginx to another node. Printed: the time from the kill until
   every affected table has applied a command again, whether any seat saw an older version after reconnecting,
   and the ledger's sums once the rooms are closed.

Root is needed (namespaces). Everything it starts is stopped, and the namespaces removed, on exit, Ctrl-C or
failure. Figures: .bench/nodes/nodes.json (raw) and .bench/nodes/nodes.md (the summary, also printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import machine, stop_groups  # noqa: E402
from netns import HOST_IP, NODE_PORT, Network, nginx_config, node_ip  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
OUT = ROOT / ".bench" / "nodes"
DB_NAME = "hp_nodes_bench"
REDIS_DBS = (8, 9)  # the channel layer's shards; the first is also Celery's broker and the cache
FLUSH_DBS = (8, 9, 10, 11)
NGINX_PORT = 8190
P99_TARGETS = (100.0, 250.0)


def log(msg: str) -> None:
    print(f"[nodes {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def stack_env(host: str) -> dict:
    """The servers' environment, as benchmarks/bench.py sets it, with PostgreSQL and Redis at `host`."""
    e = dict(os.environ)
    e.update({
        "DATABASE_URL": f"postgres://postgres@{host}:5432/{DB_NAME}",
        "REDIS_URL": ",".join(f"redis://{host}:6379/{db}" for db in REDIS_DBS),
        "REDIS_CHANNEL_LAYER": "core",  # the default (config/settings.py); pub/sub channels ignore the db number
        "DEBUG": "0", "SECRET_KEY": "bench-only-" + "k" * 50, "SECURE_SSL_REDIRECT": "0",
        "DB_POOL": "1", "GAMES_DB_THREADS": "8", "LOG_LEVEL": "WARNING", "GAMES_NEXT_HAND_SECONDS": "1",
    })
    return e


def run(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, **kw).stdout


def psql(sql: str, db: str = DB_NAME) -> list[tuple]:
    with psycopg.connect(host="127.0.0.1", user="postgres", dbname=db, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


# --- the figures (pure) ------------------------------------------------------------------------------------


def postgres_share(before: dict, after: dict, commands: int, seconds: float) -> dict:
    """PostgreSQL's cost of a command from two samples {"cpu": {pid: cpu seconds}, "commits": n}: a backend in
    both counts its difference, one born in the window counts whole (the pool opens few)."""
    cpu = sum(t - before["cpu"].get(pid, 0.0) for pid, t in after["cpu"].items())
    commits = after["commits"] - before["commits"]
    per = cpu / commands if commands else None
    return {"cpu_seconds": round(cpu, 2), "cores": round(cpu / seconds, 2) if seconds else None,
            "cpu_ms_per_command": None if per is None else round(1000 * per, 3),
            "commits_per_command": round(commits / commands, 2) if commands else None,
            "commands_per_core": round(1 / per) if per else None}


def cpu_ms_per_command(cpu_percent: float, commands_per_second: float) -> float | None:
    """CPU milliseconds a command costs a process that used `cpu_percent` % of one core at that rate."""
    return round(10 * cpu_percent / commands_per_second, 2) if commands_per_second else None


def tables_within(runs: list[dict], limit: float) -> int | None:
    """The most tables of the default-rate runs whose p99 is under `limit` ms with no error and nothing lost."""
    ok = [r["tables"] for r in runs if r["latency_ms"]["p99"] is not None and r["latency_ms"]["p99"] < limit
          and r["errors"] == 0 and r["lost"] == 0]
    return max(ok, default=None)


def saturation_point(steps: list[dict]) -> dict | None:
    """The step with the most commands/s among those with p99 < 250 ms, no error, nothing lost."""
    ok = [s for s in steps if s["ok"]]
    return max(ok, key=lambda s: s["commands_per_second"]) if ok else None


def recovery(kill_at: float, tables: list[dict]) -> dict:
    """From the loadtest's per-table drops: how many tables lost their sockets at the kill, how many applied a
    command again, and the seconds from the kill until the last of them did (None while one never did)."""
    hit = [t for t in tables if t["dropped_at"] is not None and t["dropped_at"] >= kill_at - 1]
    back = [t["recovered_at"] - kill_at for t in hit if t["recovered_at"] is not None]
    back.sort()
    return {"affected": len(hit), "recovered": len(back),
            "seconds_to_all": round(back[-1], 2) if back and len(back) == len(hit) else None,
            "seconds_first": round(back[0], 2) if back else None,
            "seconds_median": round(back[(len(back) - 1) // 2], 2) if back else None}


# --- the nodes ---------------------------------------------------------------------------------------------


class Nodes:
    """daphne + Celery worker in each namespace, Celery beat and nginx in the root namespace."""

    def __init__(self, net: Network, count: int):
        self.net, self.count = net, count
        self.procs: list[tuple[str, subprocess.Popen]] = []
        inside, outside = stack_env(HOST_IP), stack_env("127.0.0.1")
        try:
            for i in range(1, count + 1):
                self._start(f"daphne-{i}", [*net.run_in(i), PY, "-m", "daphne", "-b", node_ip(i), "-p", str(NODE_PORT),
                                            "--proxy-headers", "--websocket-max-message-size", "4194304",
                                            "--websocket-max-frame-size", "4194304", "config.asgi:application"], inside)
                self._start(f"worker-{i}", [*net.run_in(i), PY, "-m", "celery", "-A", "config", "worker", "-l",
                                            "WARNING", "-n", f"node{i}@%h"], inside)
            self._start("beat", [PY, "-m", "celery", "-A", "config", "beat", "-l", "WARNING",
                                 "-s", str(OUT / "beat-schedule")], outside)
            conf = OUT / "nginx.conf"
            conf.write_text(nginx_config(OUT, NGINX_PORT, [f"{node_ip(i)}:{NODE_PORT}" for i in range(1, count + 1)]))
            nginx = ["/usr/sbin/nginx", "-p", str(OUT), "-c", str(conf), "-e", str(OUT / "nginx-error.log")]
            run([*nginx, "-t"])
            self._start("nginx", nginx, outside)
            self._wait(outside)
        except BaseException:
            self.stop()
            raise

    def _start(self, name: str, cmd: list[str], e: dict) -> None:
        logf = open(OUT / f"{name}.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.procs.append((name, subprocess.Popen(cmd, cwd=ROOT, env=e, stdout=logf, stderr=subprocess.STDOUT,
                                                  start_new_session=True)))

    def _wait(self, e: dict) -> None:
        deadline = time.monotonic() + 180
        for i in range(1, self.count + 1):
            health = f"http://{node_ip(i)}:{NODE_PORT}/healthz"
            while subprocess.run(["curl", "-sf", "-o", "/dev/null", "-H", "Host: 127.0.0.1", health],
                                 capture_output=True).returncode != 0:
                self._alive()
                if time.monotonic() > deadline:
                    raise RuntimeError(f"node {i}'s daphne does not answer (see {OUT}/daphne-{i}.log)")
                time.sleep(0.5)
        while True:  # every node's worker answers: each table's first hand needs one
            out = subprocess.run([PY, "-m", "celery", "-A", "config", "inspect", "ping", "--timeout", "3"],
                                 cwd=ROOT, env=e, capture_output=True, text=True).stdout
            if all(f"node{i}@" in out for i in range(1, self.count + 1)):
                return
            self._alive()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Celery workers did not all answer (see {OUT}/worker-*.log)")
            time.sleep(1)

    def _alive(self) -> None:
        for name, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError(f"{name} exited (see {OUT}/{name}.log)")

    def pids(self, prefix: str = "") -> list[int]:
        return [p.pid for n, p in self.procs if n.startswith(prefix)]

    def kill(self, i: int) -> float:
        """SIGKILL node i's daphne and worker (no shutdown at all); returns the wall-clock time of the kill."""
        at = time.time()
        for name, p in self.procs:
            if name in (f"daphne-{i}", f"worker-{i}"):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
        return at

    def stop(self) -> None:
        stop_groups(self.procs, timeout=15)
        self.procs = []


# --- a run -------------------------------------------------------------------------------------------------


def postgres_sample() -> dict:
    """CPU seconds of each backend serving the bench database (from /proc), and the database's commits."""
    rows = psql(f"SELECT pid FROM pg_stat_activity WHERE datname = '{DB_NAME}'", db="postgres")
    cpu = {}
    for (pid,) in rows:
        with contextlib.suppress(psutil.Error):
            t = psutil.Process(pid).cpu_times()
            cpu[pid] = t.user + t.system
    commits = psql(f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{DB_NAME}'", db="postgres")[0][0]
    return {"cpu": cpu, "commits": commits}


def ledger() -> dict:
    """The ledger's sums: every currency's entries (zero when balanced), balances that differ from their entries,
    the loadtest rooms' holds still open, and what the players hold."""
    entries = dict(psql("SELECT a.currency, COALESCE(SUM(e.amount), 0) FROM wallets_entry e "
                        "JOIN wallets_account a ON a.id = e.account_id GROUP BY a.currency"))
    off = psql("SELECT COUNT(*) FROM wallets_account a WHERE a.balance <> "
               "(SELECT COALESCE(SUM(amount), 0) FROM wallets_entry e WHERE e.account_id = a.id)")[0][0]
    holds = psql("SELECT COUNT(*) FROM wallets_account WHERE kind = 'hold' AND closed_at IS NULL")[0][0]
    players = dict(psql("SELECT currency, SUM(balance) FROM wallets_account WHERE kind <> 'system' GROUP BY currency"))
    system = dict(psql("SELECT currency, SUM(balance) FROM wallets_account WHERE kind = 'system' GROUP BY currency"))
    return {"entries_sum": {k: int(v) for k, v in entries.items()}, "balances_off": off, "open_holds": holds,
            "players": {k: int(v) for k, v in players.items()}, "system": {k: int(v) for k, v in system.items()}}


def loadtest(nodes: Nodes, a, *, label: str, tables: int, rate: str, seconds: float, kill: int = 0) -> dict:
    run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DB_NAME, "-qc", "VACUUM (ANALYZE)"])
    cmd = [PY, "manage.py", "loadtest", "--url", f"ws://127.0.0.1:{NGINX_PORT}", "--tables", str(tables),
           "--seconds", str(seconds), "--rate", rate, "--json", "--warmup", str(a.warmup),
           "--pids", ",".join(map(str, nodes.pids("daphne") + nodes.pids("worker")))]
    if kill:
        cmd.append("--reconnect")
    load = os.getloadavg()[0]
    log(f"{label}: loadtest --tables {tables} --rate {rate} --seconds {seconds:g}{' --reconnect' if kill else ''} "
        f"(load average {load:.2f})")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=stack_env("127.0.0.1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    samples: dict = {}
    lines: list[str] = []

    def window():  # PostgreSQL sampled at the window's edges; the kill at 30 % of it
        samples["before"] = postgres_sample()
        if kill:
            time.sleep(0.3 * seconds)
            samples["kill_at"] = nodes.kill(kill)
            log(f"  killed node {kill}'s daphne and worker (SIGKILL)")
            time.sleep(0.7 * seconds)
        else:
            time.sleep(seconds)
        samples["after"] = postgres_sample()

    sampler = None
    try:
        for line in proc.stderr:
            lines.append(line)
            log("  | " + line.rstrip())
            if "measuring" in line and sampler is None:
                sampler = threading.Thread(target=window, daemon=True)
                sampler.start()
        stdout = proc.stdout.read()
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:  # interrupted: its clients go too
            proc.kill()
            proc.wait()
    if sampler is not None:
        sampler.join(timeout=seconds + 30)
    if proc.returncode != 0:
        raise RuntimeError("loadtest failed:\n" + "".join(lines)[-3000:])
    r = json.loads(stdout)
    r.update(label=label, load_before=round(load, 2))
    if "after" in samples:
        r["postgres"] = postgres_share(samples["before"], samples["after"], r["commands"], seconds)
    if kill:
        r["kill"] = {"node": kill, **recovery(samples["kill_at"], r.get("recovery", []))}
    lat = r["latency_ms"]
    log(f"  -> {r['commands_per_second']} commands/s, p50 {lat['p50']} p99 {lat['p99']} ms, errors {r['errors']}, "
        f"lost {r['lost']}; PostgreSQL {r.get('postgres')}" + (f"; kill {r['kill']}" if kill else ""))
    return r


def measure(a, count: int, results: dict) -> None:
    net = Network(count, OUT)
    nodes = None
    try:
        net.up()
        for db in FLUSH_DBS:
            run(["redis-cli", "-n", str(db), "flushdb"])
        nodes = Nodes(net, count)
        log(f"{count} node(s) up: daphne+worker at {', '.join(node_ip(i) for i in range(1, count + 1))}")
        out = results.setdefault(str(count), {"default": [], "steps": []})
        for tables in a.tables:
            out["default"].append(loadtest(nodes, a, label=f"{count} node(s) x{tables}", tables=tables, rate="0.5",
                                           seconds=a.seconds))
        for tables in a.steps:
            r = loadtest(nodes, a, label=f"{count} node(s) max x{tables}", tables=tables, rate="max",
                         seconds=a.step_seconds)
            ok = r["latency_ms"]["p99"] is not None and r["latency_ms"]["p99"] < 250 and not r["errors"] and not r["lost"]
            out["steps"].append({"tables": tables, "ok": ok, "commands_per_second": r["commands_per_second"],
                                 "p99": r["latency_ms"]["p99"], "postgres": r.get("postgres"),
                                 "servers": r["servers"]})
            if not ok:
                break
        if a.kill and count >= 2:
            before = ledger()
            r = loadtest(nodes, a, label=f"{count} nodes, node 1 killed", tables=a.kill_tables, rate="0.5",
                         seconds=a.kill_seconds, kill=1)
            r["ledger_before"], r["ledger_after"] = before, ledger()  # the rooms are closed by then
            out["kill"] = r
            log(f"  ledger before {before}\n  ledger after {r['ledger_after']}")
    finally:
        if nodes is not None:
            nodes.stop()
        net.down()
    (OUT / "nodes.json").write_text(json.dumps(results, indent=1))


def summary(results: dict, a) -> str:
    lines = [f"# `make bench-nodes` ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average before the first run "
             f"{results['load']})", "",
             f"Machine: {results['machine']['cores']} cores ({results['machine']['cpu']})", "",
             "| nodes | run | tables | commands/s | p50 ms | p99 ms | errors | lost | daphne CPU % | worker CPU % "
             "| node CPU ms/command | PostgreSQL cores | PG CPU ms/command | commits/command |", "|" + "---|" * 14]
    for count, out in results.items():
        if not isinstance(out, dict) or "default" not in out:
            continue
        runs = out["default"] + ([out["kill"]] if "kill" in out else [])
        for r in runs:
            pg = r.get("postgres") or {}
            cpu = {k: "/".join(f"{s.get('cpu_percent', 0):.0f}" for s in r["servers"] if k in s["name"])
                   for k in ("daphne", "celery")}
            node = cpu_ms_per_command(sum(s.get("cpu_percent", 0) for s in r["servers"]), r["commands_per_second"])
            lines.append(f"| {count} | {r['label']} | {r['tables']} | {r['commands_per_second']} | "
                         f"{r['latency_ms']['p50']} | {r['latency_ms']['p99']} | {r['errors']} | {r['lost']} | "
                         f"{cpu['daphne']} | {cpu['celery']} | {node} | {pg.get('cores')} | {pg.get('cpu_ms_per_command')} | "
                         f"{pg.get('commits_per_command')} |")
    lines.append("")
    for count, out in results.items():
        if not isinstance(out, dict) or "default" not in out:
            continue
        best = saturation_point(out["steps"])
        steps = ", ".join(f"{s['tables']}: {s['commands_per_second']}/s p99 {s['p99']} ms"
                          f" PG {(s.get('postgres') or {}).get('cpu_ms_per_command')} ms/cmd{'' if s['ok'] else ' ✗'}"
                          for s in out["steps"])
        lines.append(f"- {count} node(s): tables within p99 100 ms: {tables_within(out['default'], 100)}, within 250 ms: "
                     f"{tables_within(out['default'], 250)}; saturation {best and best['commands_per_second']} "
                     f"commands/s ({steps})")
        if "kill" in out:
            k = out["kill"]
            lb, la = k["ledger_before"], k["ledger_after"]
            lines.append(f"- kill of node {k['kill']['node']}: {k['kill']['affected']} tables lost their sockets, "
                         f"{k['kill']['recovered']} applied a command again, the last {k['kill']['seconds_to_all']} s "
                         f"after the kill (first {k['kill']['seconds_first']} s, median {k['kill']['seconds_median']} s); reconnects {k['reconnects']}, "
                         f"versions older than seen before {k['regressions']}, commands interrupted "
                         f"{k['interrupted']}; ledger entries sum {la['entries_sum']}, balances off {la['balances_off']}, "
                         f"open holds {lb['open_holds']} -> {la['open_holds']}, players {lb['players']} -> "
                         f"{la['players']}, house {lb['system']} -> {la['system']}")
    lines.append(f"- PostgreSQL {results['settings']}")
    lines += ["", "Command: `python benchmarks/nodes.py " + " ".join(sys.argv[1:]) + "`"]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", default="1,2", help="node counts to measure")
    p.add_argument("--tables", help="tables of the default-rate runs (50,100,200,400)")
    p.add_argument("--steps", help="tables of the --rate max steps (5,10,25,50,100)")
    p.add_argument("--seconds", type=float, help="measured window of the default-rate and kill runs (60)")
    p.add_argument("--step-seconds", type=float, help="measured window of a --rate max step (20)")
    p.add_argument("--warmup", type=float, help="seconds played before each window (10)")
    p.add_argument("--kill-tables", type=int, help="tables of the kill run (100)")
    p.add_argument("--kill-seconds", type=float, help="measured window of the kill run, killed at 30 %% of it (60)")
    p.add_argument("--no-kill", dest="kill", action="store_false", help="leave out the kill run")
    p.add_argument("--short", action="store_true",
                   help="a smoke run of a few minutes: 10 and 20 tables, steps 2 and 5, 15 s windows, 20 tables killed in a 25 s one")
    a = p.parse_args()
    defaults = {"tables": "50,100,200,400", "steps": "5,10,25,50,100", "seconds": 60, "step_seconds": 20,
                "warmup": 10, "kill_tables": 100, "kill_seconds": 60}
    if a.short:
        defaults.update(tables="10,20", steps="2,5", seconds=15, step_seconds=15, warmup=5, kill_tables=20,
                        kill_seconds=25)
    for name, value in defaults.items():  # an option given wins over both
        if getattr(a, name) is None:
            setattr(a, name, value)
    a.tables = [int(x) for x in str(a.tables).split(",") if x]
    a.steps = [int(x) for x in str(a.steps).split(",") if x]
    if os.geteuid() != 0:
        sys.exit("benchmarks/nodes.py makes network namespaces: run it as root")
    OUT.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally blocks stop everything
    Network(0, OUT).down()  # what an interrupted run left
    log("PostgreSQL and Redis (.ci/services), database and static files")
    subprocess.run(["bash", ".ci/services"], cwd=ROOT, check=True)
    if not psql(f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}'", db="postgres"):
        run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB_NAME])
    run([PY, "manage.py", "migrate", "--noinput"], env=stack_env("127.0.0.1"))
    run([PY, "manage.py", "collectstatic", "--noinput"], env=stack_env("127.0.0.1"))
    # The CPU's model with the figures: a command's CPU differs by more than half between the machines of one kind.
    results: dict = {"load": round(os.getloadavg()[0], 2), "machine": machine(), "settings": {
        k: psql(f"SHOW {k}", db="postgres")[0][0] for k in ("server_version", "synchronous_commit", "fsync")}}
    for count in [int(x) for x in a.nodes.split(",")]:
        measure(a, count, results)
    text = summary(results, a)
    (OUT / "nodes.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
