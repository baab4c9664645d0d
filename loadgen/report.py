"""A run's figures: the workers' measurements merged, and the report printed when `--json` is not given."""

from __future__ import annotations

import math
from collections import Counter

from loadgen.players import Plan


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of sorted values."""
    if not values:
        return None
    return values[min(len(values) - 1, max(0, math.ceil(q / 100 * len(values)) - 1))]


def merge(plan: Plan, results: list[dict], *, servers: list[dict], setup_seconds: float, setup_errors: Counter,
          workers: int, machine: dict) -> dict:
    """The workers' results as one report. `machine`: the whole machine's CPU over the measured window
    (processes.ProcessWatch.machine)."""
    lat = sorted(x for r in results for x in r["latencies"])
    total = Counter()
    for r in results:
        total.update({k: r[k] for k in ("commands", "errors", "dropped", "unanswered", "lost", "hands", "versions",
                                        "frames", "frame_bytes", "resyncs")})
    codes = Counter()
    for r in results:
        codes.update(r["error_codes"])
    cpu = sum(r["cpu_seconds"] for r in results)
    s = plan.seconds

    def ms(x):
        return None if x is None else round(x, 1)

    return {
        "tables": len(plan.tables), "seconds": s, "warmup": plan.warmup, "commands": total["commands"],
        "hands": total["hands"],
        "errors": total["errors"],
        "latency_ms": {"p50": ms(percentile(lat, 50)), "p95": ms(percentile(lat, 95)),
                       "p99": ms(percentile(lat, 99)), "max": ms(lat[-1] if lat else None)},
        "rate": "max" if plan.rate is None else plan.rate, "bare": plan.bare,
        "sockets": sum(len(t.seats) for t in plan.tables),
        "commands_per_second": round(total["commands"] / s, 1),
        "completed": len(lat), "lost": total["lost"], "unanswered": total["unanswered"],
        "dropped": total["dropped"], "error_codes": dict(codes), "resyncs": total["resyncs"],
        "versions_per_second": round(total["versions"] / s, 1),
        "frames_per_second": round(total["frames"] / s, 1),
        "mean_frame_bytes": round(total["frame_bytes"] / total["frames"]) if total["frames"] else 0,
        "setup_seconds": round(setup_seconds, 1), "setup_errors": dict(setup_errors),
        "generator": {"workers": workers, "cpu_percent": round(100 * cpu / s, 1)},
        "servers": servers,
        "machine": machine,
        **({"reconnects": sum(r["reconnects"] for r in results), "interrupted": sum(r["interrupted"] for r in results),
            "regressions": sum(r["regressions"] for r in results),
            "recovery": [x for r in results for x in r["recovery"]]} if plan.reconnect else {}),
    }


def format_report(r: dict, urls: list[str]) -> str:
    lat = r["latency_ms"]
    rate = "as fast as the game allows" if r["rate"] == "max" else f"{r['rate']:g} commands/s per table"
    lines = [
        f"{'bare relay' if r['bare'] else 'loadtest'}: {r['tables']} tables ({r['sockets']} sockets) on "
        f"{', '.join(urls)}; {r['seconds']:g} s at {rate}"
        + (f", after {r['warmup']:g} s of warm-up" if r.get("warmup") else ""),
        f"commands {r['commands']} ({r['commands_per_second']:g}/s), completed {r['completed']}, hands {r['hands']},"
        f" table versions {r['versions_per_second']:g}/s, frames received {r['frames_per_second']:g}/s"
        f" (mean {r['mean_frame_bytes']} bytes)",
        f"latency to every seat, ms: p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}",
        f"errors {r['errors']} (dropped sockets {r['dropped']}, error frames {dict(r['error_codes']) or 0}),"
        f" lost {r['lost']}, unanswered {r['unanswered']}, resyncs {r['resyncs']}",
        f"setup {r['setup_seconds']} s" + (f", setup errors {r['setup_errors']}" if r["setup_errors"] else ""),
        f"generator: {r['generator']['workers']} process(es), {r['generator']['cpu_percent']}% of one core",
    ]
    for p in r["servers"]:
        lines.append(f"server pid {p['pid']} ({p['name']}): peak RSS {p['peak_rss_mb']} MB, "
                     f"CPU {p.get('cpu_percent', '?')}% of one core")
    return "\n".join(lines)
