"""The cyclic garbage collector's passes in every Python process started with this directory on its path:
`python benchmarks/bench.py --quick ... --env PYTHONPATH=benchmarks/gc_census`, then
`python benchmarks/gc_census/read.py .bench/...log` (docs/performance.md, "Garbage collection in the web process").

Each process appends a line every `GC_CENSUS_EVERY` seconds (5) to `GC_CENSUS_DIR/series-<pid>` (.bench/gc under
its working directory): its command line, its passes of each generation so far, and the CPU time of the thread that
ran them (the collector holds the GIL: wall time would count the other processes of a busy machine). Measurement
only: nothing of HalfPoint imports it.
"""

import gc
import json
import os
import sys
import threading
import time

_passes = [0, 0, 0]
_cpu = [0.0, 0.0, 0.0]
_began = [0.0]


def _on_pass(phase: str, info: dict) -> None:
    if phase == "start":
        _began[0] = time.thread_time()
    else:
        generation = info["generation"]
        _passes[generation] += 1
        _cpu[generation] += time.thread_time() - _began[0]


def line() -> dict:
    return {"t": time.time(), "argv": " ".join(sys.argv[:4]), "passes": list(_passes),
            "cpu_ms": [round(1000 * x, 1) for x in _cpu]}


def _write(path: str, every: float) -> None:
    while True:
        time.sleep(every)
        try:
            with open(path, "a") as f:
                f.write(json.dumps(line()) + "\n")
        except OSError:
            return  # the directory went: nothing more to record


def _start() -> None:
    folder = os.environ.get("GC_CENSUS_DIR", os.path.join(".bench", "gc"))
    os.makedirs(folder, exist_ok=True)
    gc.callbacks.append(_on_pass)
    threading.Thread(target=_write, args=(os.path.join(folder, f"series-{os.getpid()}"),
                                          float(os.environ.get("GC_CENSUS_EVERY", "5"))),
                     name="gc-census", daemon=True).start()


_start()
