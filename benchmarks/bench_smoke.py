"""Time `envguard smoke` at levels 1 and 2, and its overhead over the same cases run bare.

"Bare" runs the very same payload script per case directly (the DDP case through torch.distributed.run),
one after another, without envguard: the difference is envguard's own cost (start-up, probing for the
fingerprint, process handling). Targets (issue: smoke): level 1 <= 15 s, level 2 <= 90 s on a 2-core
CPU machine, overhead <= 20 %. Run:

    python benchmarks/bench_smoke.py --python .venv/bin/python [--runs 3] [--out benchmarks/results/smoke-DATE.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envguard.smoke import select_cases  # noqa: E402
from envguard.smoke.base import CASES  # noqa: E402


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, timeout=900, check=False)
    return time.perf_counter() - start


def bare(python: str, payload: str, level: int) -> float:
    total = 0.0
    for name in select_cases(level):
        case = next(c for c in CASES if c.name == name)
        tail = [payload, name, "--level", str(level), "--device", "auto"]
        if case.distributed:
            argv = [python, "-m", "torch.distributed.run", "--nproc-per-node=2", "--nnodes=1", "--node-rank=0",
                    "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{_port()}", "--max-restarts=0", *tail]
        else:
            argv = [python, *tail]
        total += timed(argv)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    envguard = shutil.which("envguard", path=str(Path(args.python).parent)) or "envguard"
    rows = []
    with tempfile.TemporaryDirectory() as work:
        payload = str(Path(work) / "envguard_smoke_payload.py")
        shutil.copy(ROOT / "envguard" / "smoke" / "_payload.py", payload)
        for level in (1, 2):
            suite = [timed([envguard, "smoke", "--python", args.python, "--level", str(level), "--format", "json"])
                     for _ in range(args.runs)]
            plain = [bare(args.python, payload, level) for _ in range(args.runs)]
            s, b = statistics.median(suite), statistics.median(plain)
            rows.append({"level": level, "envguard_smoke_s": s, "bare_cases_s": b, "overhead_pct": 100 * (s / b - 1),
                         "target_s": 15 if level == 1 else 90})
    print("| level | envguard smoke (median s) | same cases bare (median s) | overhead | target |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['level']} | {r['envguard_smoke_s']:.1f} | {r['bare_cases_s']:.1f} | {r['overhead_pct']:+.0f} % | "
              f"<= {r['target_s']} s, overhead <= 20 % |")
    if args.out:
        args.out.write_text(json.dumps({"runs": args.runs, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
