"""Time `check --from` internals: parsing a pasted report, judging it, and loading every matrix.

Targets: parse + judge <= 20 ms median per corpus report (issue 14), loading all matrices <= 50 ms (issue 15).
Reports are the real ones in tests/data/reports (the corpus, every environment a report describes). Run:

    python benchmarks/bench_report.py [--runs 20] [--out benchmarks/results/report-DATE.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from envguard.errors import SnapshotError
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.rules import run_rules

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    loads = []
    for _ in range(args.runs):
        start = time.perf_counter()
        matrices = load_matrices(ROOT / "matrices")
        matrices.load_all()
        loads.append(time.perf_counter() - start)
    rows = []
    for case in sorted((ROOT / "tests" / "data" / "reports").glob("*/env.txt")):
        text = case.read_text(encoding="utf-8")
        parse_t, judge_t = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            try:
                envs = parse_environments(text, case.parent.name, matrices)
            except SnapshotError:
                envs = ()
            mid = time.perf_counter()
            for env in envs:
                run_rules(env.snapshot, matrices, notes=env.notes)
            parse_t.append(mid - start)
            judge_t.append(time.perf_counter() - mid)
        rows.append({"report": case.parent.name, "bytes": len(text.encode()),
                     "parse_ms": statistics.median(parse_t) * 1000, "judge_ms": statistics.median(judge_t) * 1000,
                     "total_ms": statistics.median(p + j for p, j in zip(parse_t, judge_t, strict=True)) * 1000})
    result = {
        "runs": args.runs,
        "load_all_matrices_ms": statistics.median(loads) * 1000,
        "reports": rows,
        "max_parse_ms": max(r["parse_ms"] for r in rows),
        "max_judge_ms": max(r["judge_ms"] for r in rows),
        "median_total_ms": statistics.median(r["total_ms"] for r in rows),
        "targets": {"median_total_ms": 20, "load_all_matrices_ms": 50},
    }
    print("| report | bytes | parse ms (median) | judge ms (median) |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['report']} | {r['bytes']} | {r['parse_ms']:.2f} | {r['judge_ms']:.2f} |")
    print(f"\nloading all matrices: {result['load_all_matrices_ms']:.1f} ms (median of {args.runs}; target <= 50)")
    print(f"median parse + judge per report {result['median_total_ms']:.2f} ms (target <= 20); worst parse "
          f"{result['max_parse_ms']:.2f} ms, worst judge {result['max_judge_ms']:.2f} ms")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
