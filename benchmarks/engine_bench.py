"""Engine speed figures: ``python benchmarks/engine_bench.py [--hands N] [--runs R]``.

Prints hands per second of the simulation for each preset (4 seats, basic bots; the target for ten-half is
25,000 on one core), of the full state machine, and of ``--workers 2``. The machine is shared and noisy, so
each figure is the best and the median of R runs.
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games import fields  # noqa: E402
from games.engine import codec  # noqa: E402
from games.engine.simulate import simulate  # noqa: E402

# The codec every process of the site runs the engine with (games/apps.py), not the standard library's default.
codec.use(copy=fields.json_copy, key=fields.json_key)


def measure(label, runs, **kw):
    rates = [simulate(**kw)["hands_per_second"] for _ in range(runs)]
    print(f"{label:<46} best {max(rates):>9,.0f}  median {statistics.median(rates):>9,.0f} hands/s")
    return max(rates)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    a = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, {a.hands} hands per run, {a.runs} runs")
    started = time.perf_counter()
    measure("ten-half, 4 seats, basic (fast path)", a.runs, preset="ten-half", hands=a.hands, seed=1, seats=4)
    measure("zhejiang-ten-half, 4 seats, basic (fast path)", a.runs, preset="zhejiang-ten-half", hands=a.hands,
            seed=1, seats=4)
    measure("ban-luck, 4 seats, basic (fast path)", a.runs, preset="ban-luck", hands=a.hands, seed=1, seats=4)
    small = max(a.hands // 50, 200)
    measure("ten-half, 4 seats, basic (state machine)", 1, preset="ten-half", hands=small, seed=1, seats=4,
            engine="machine")
    measure("seven-half, 4 seats, basic (state machine)", 1, preset="seven-half", hands=small, seed=1, seats=4)
    measure("ten-half, 4 seats, expert (state machine)", 1, preset="ten-half", hands=small // 4, seed=1, seats=4,
            strategy="expert")
    one = simulate("ten-half", a.hands * 2, 1, seats=4)
    two = simulate("ten-half", a.hands * 2, 1, seats=4, workers=2)
    same = {k: v for k, v in one.items() if k not in ("hands_per_second", "workers")} == {
        k: v for k, v in two.items() if k not in ("hands_per_second", "workers")}
    print(f"ten-half --workers 2: {two['hands_per_second']:,.0f} hands/s, same result as 1 worker: {same}")
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
