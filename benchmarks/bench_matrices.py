"""Time loading the knowledge: every matrix parsed and validated, and the headers ``--version`` reads.

Target (issue 15): ``load_matrices().load_all()`` <= 50 ms. Each run builds a fresh ``Matrices`` (its modules are
imported once, by the warm-up run, as in a long-lived process; ``--version`` and ``check`` pay the import once).
Run:

    python benchmarks/bench_matrices.py [--runs 30] [--out benchmarks/results/matrices-DATE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from envguard.knowledge import MATRIX_NAMES, load_matrices

ROOT = Path(__file__).resolve().parent.parent
TARGET_LOAD_ALL_MS = 50.0


def _time(fn: Callable[[], object], runs: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    out = []
    for _ in range(runs):
        start = clock()
        fn()
        out.append((clock() - start) * 1000)
    return out


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = ROOT / "matrices"
    load_matrices(root).load_all()  # warm-up: imports every table module, fills the page cache

    def load_all() -> None:
        load_matrices(root).load_all()

    def headers() -> None:
        load_matrices(root).headers()

    per_table = {}
    for name in MATRIX_NAMES:
        def one(name: str = name) -> None:
            load_matrices(root)._get(name)
        per_table[name] = statistics.median(_time(one, args.runs, time.process_time))
    loads, heads = _time(load_all, args.runs), _time(headers, args.runs)
    cpu = _time(load_all, args.runs, time.process_time)
    result = {
        "runs": args.runs,
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
        "load_all_ms": _stats(loads),
        #: CPU time of this process: less sensitive than wall time to other load on a shared machine.
        "load_all_cpu_ms": _stats(cpu),
        "headers_ms": _stats(heads),
        "per_table_median_ms": per_table,
        "bytes": {name: (root / f"{name}.toml").stat().st_size for name in MATRIX_NAMES},
        "target_load_all_ms": TARGET_LOAD_ALL_MS,
    }
    print("| matrix | bytes | parse CPU ms (median) |\n|---|---:|---:|")
    for name in MATRIX_NAMES:
        print(f"| {name} | {result['bytes'][name]} | {per_table[name]:.2f} |")
    la = result["load_all_ms"]
    print(f"\nload_all: median {la['median']:.1f} ms (min {la['min']:.1f}, max {la['max']:.1f}; "
          f"{args.runs} runs; target <= {TARGET_LOAD_ALL_MS:g})")
    print(f"load_all CPU time: median {result['load_all_cpu_ms']['median']:.1f} ms "
          f"(min {result['load_all_cpu_ms']['min']:.1f}); load average {os.getloadavg()[0]:.1f}")
    print(f"headers (--version): median {result['headers_ms']['median']:.2f} ms")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
