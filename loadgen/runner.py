"""A run split over worker processes: each sets up its tables, they all start at one moment, and the command's
process watches the servers' processes over the measured window, then merges what the workers measured."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue as queue_module
import random
import time
from collections import Counter

from loadgen import LoadTestError
from loadgen.players import ANSWER_SECONDS, GRACE_SECONDS, Plan, Run
from loadgen.processes import ProcessWatch
from loadgen.report import merge


def setup_limit(tables: int) -> float:
    """Seconds a worker may take to connect, seat and start its tables (the server may be slow to accept)."""
    return 120 + 0.5 * tables


def _worker(plan: Plan, start: multiprocessing.Queue, out: multiprocessing.Queue) -> None:
    """A worker process: set up its tables, report ready, wait for the common start time, play."""
    if plan.seed is not None:
        random.seed(plan.seed)

    async def main():
        run = Run(plan)
        setup = await run.set_up(setup_limit(len(plan.tables)))
        out.put(("ready", os.getpid(), setup, dict(run.stats.setup_errors)))
        loop = asyncio.get_running_loop()
        wall_t0 = await loop.run_in_executor(None, start.get)
        if wall_t0 is None:  # told to give up
            run.stopping = True
            return {}
        result = await run.play(time.monotonic() + (wall_t0 - time.time()))
        result["setup_seconds"] = setup
        return result

    try:
        out.put(("result", os.getpid(), asyncio.run(main())))
    except BaseException as e:  # report, do not hang the parent
        out.put(("failed", os.getpid(), f"{type(e).__name__}: {e}"))


def execute(plan: Plan, *, workers: int, pids: set[int], log=print) -> dict:
    """Run `plan` split over `workers` processes; returns the merged figures."""
    workers = max(1, min(workers, len(plan.tables)))
    ctx = multiprocessing.get_context("spawn")  # nothing of this process (threads, database sockets) is inherited
    out = ctx.Queue()
    starts = [ctx.Queue() for _ in range(workers)]
    procs = []
    for w in range(workers):
        sub = Plan(**{**plan.__dict__, "tables": plan.tables[w::workers],
                      "seed": None if plan.seed is None else plan.seed + w})
        p = ctx.Process(target=_worker, args=(sub, starts[w], out), daemon=True)
        p.start()
        procs.append(p)
    results, setup_errors, setup_seconds = [], Counter(), 0.0
    try:
        ready = 0
        deadline = time.monotonic() + setup_limit(len(plan.tables)) + 60
        while ready < workers:
            kind, _pid, *rest = _get(out, deadline, "the workers' setup")
            if kind == "failed":
                raise LoadTestError(f"a load worker failed: {rest[0]}")
            ready += 1
            setup_seconds = max(setup_seconds, rest[0])
            setup_errors.update(rest[1])
        if plan.warmup > 0:
            log(f"setup done in {setup_seconds:.1f} s; warming up for {plan.warmup:g} s (not measured)...")
        else:
            log(f"setup done in {setup_seconds:.1f} s; measuring for {plan.seconds:g} s...")
        wall_t0 = time.time() + 1.0
        for q in starts:
            q.put(wall_t0)
        time.sleep(max(0.0, wall_t0 + plan.warmup - time.time()))
        if plan.warmup > 0:
            log(f"measuring for {plan.seconds:g} s...")
        watch = ProcessWatch(pids)
        end = time.monotonic() + plan.seconds
        while time.monotonic() < end:
            watch.sample()
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        watch.sample()
        servers, machine = watch.report(), watch.machine()
        deadline = time.monotonic() + GRACE_SECONDS + ANSWER_SECONDS + 30
        while len(results) < workers:
            kind, _pid, payload = _get(out, deadline, "the workers' results")
            if kind == "failed":
                raise LoadTestError(f"a load worker failed: {payload}")
            results.append(payload)
    finally:
        for q in starts:
            q.put(None)
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    return merge(plan, results, servers=servers, machine=machine, setup_seconds=setup_seconds,
                 setup_errors=setup_errors, workers=workers)


def _get(q, deadline: float, what: str):
    try:
        return q.get(timeout=max(0.1, deadline - time.monotonic()))
    except queue_module.Empty:
        raise LoadTestError(f"timed out waiting for {what}") from None


