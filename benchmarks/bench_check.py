#!/usr/bin/env python3
"""Time ``envguard check`` side by side with ``torch.utils.collect_env`` and ``env-doctor check``.

Standalone (standard library only); it is not part of the envguard package. Every command is run
from one benchmark virtualenv that has torch, tensorflow-cpu, env-doctor and envguard installed::

    python benchmarks/bench_check.py --python .bench/venv/bin/python --runs 5 \\
        --out benchmarks/results/check-YYYY-MM-DD.json

What is measured, per command (see benchmarks/README.md):

* wall time: one untimed warm-up run each, then ``--runs`` timed rounds over all commands,
  round-robin (``time.perf_counter`` around spawn and reap); median, min and max are reported.
  Bytecode is cached for the children unless ``--keep-bytecode-env`` (see the README).
* ``tree_maxrss``: peak RSS of the *largest single process* in the command's process tree. On
  Linux the rusage that ``os.wait4`` returns for a reaped child is RUSAGE_BOTH: the child's own
  ru_maxrss maxed with that of every descendant it waited for.
* ``tree_sum_rss`` (one extra, untimed run): the largest *sum* of RSS over all live processes of
  the tree, sampled from /proc every 10 ms; shared pages count once per process. Approximate.
* envguard only, ``self_maxrss``: envguard's own process, without the target-interpreter
  subprocesses it spawns. The console script is run in-process under a tiny wrapper that reads
  getrusage(RUSAGE_SELF) at exit; getrusage(RUSAGE_CHILDREN) there gives ``children_maxrss``, the
  largest of envguard's children.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Targets from the issue: ratios of median wall time, and envguard's own peak RSS.
TARGET_DEFAULT_VS_COLLECT_ENV = 0.1
TARGET_DEFAULT_VS_ENV_DOCTOR = 0.05
TARGET_DEEP_VS_ENV_DOCTOR = 0.6
TARGET_SELF_RSS_MB = 60.0

SAMPLE_INTERVAL_S = 0.01
STDERR_TAIL_CHARS = 4000
DEFAULT_PYCACHE_PREFIX = Path(__file__).resolve().parents[1] / ".bench" / "pycache"

#: Environment every measured child gets (set once in main); None means this process's own.
_CHILD: dict[str, dict[str, str] | None] = {"env": None}

#: Runs a console script in-process and writes getrusage(SELF/CHILDREN).ru_maxrss to argv[1].
#: getrusage is read before anything else is imported, so the wrapper adds almost nothing. It is written from an
#: atexit handler too: envguard's console script (envguard.cli:run) runs the atexit handlers and then leaves with
#: os._exit, so a ``finally`` after it never runs.
_RUSAGE_WRAPPER = """\
import atexit, resource, runpy, sys
out, script = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
def write():
    s = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(out, "w") as fh:
        fh.write('{"self_maxrss": %d, "children_maxrss": %d}' % (s, c))
atexit.register(write)
code = 0
try:
    runpy.run_path(script, run_name="__main__")
except SystemExit as exc:
    code = exc.code
sys.exit(code)
"""

_VERSIONS_SNIPPET = """\
import importlib.metadata as m, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        out[name] = None
print(json.dumps(out))
"""


def _maxrss_to_bytes(value: int) -> int:
    """ru_maxrss is KiB on Linux and bytes on macOS."""
    return value if sys.platform == "darwin" else value * 1024


def _mb(num_bytes: float | None) -> float | None:
    return None if num_bytes is None else round(num_bytes / 1e6, 1)


@dataclass
class RunResult:
    wall_s: float
    returncode: int
    timed_out: bool
    tree_maxrss_bytes: int
    cpu_s: float
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)
    tree_sum_rss_bytes: int | None = None


@dataclass
class CommandSpec:
    key: str
    label: str
    argv: list[str]
    #: The console script to wrap for self-RSS (envguard only), else None.
    rusage_script: str | None = None
    expect_json: bool = False
    skip_reason: str | None = None


def _tree_rss_bytes(root: int, page: int) -> int:
    """Sum of RSS over ``root`` and all its live descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                data = fh.read()
            ppid = int(data[data.rfind(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
        stack.extend(children.get(pid, []))
    return total


def run_once(argv: list[str], timeout: float, *, sample: bool = False) -> RunResult:
    """Spawn ``argv``, reap it with os.wait4 and return wall time, exit status and rusage."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        peak = [0]
        done = threading.Event()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            env=_CHILD["env"],
        )
        timed_out = threading.Event()

        def _kill() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, _kill)
        timer.start()
        sampler = None
        if sample:
            page = os.sysconf("SC_PAGE_SIZE")

            def _sample() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], _tree_rss_bytes(proc.pid, page))
                    done.wait(SAMPLE_INTERVAL_S)

            sampler = threading.Thread(target=_sample, daemon=True)
            sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            wall = time.perf_counter() - t0
            done.set()
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler is not None:
            sampler.join()
        out.seek(0)
        err.seek(0)
        return RunResult(
            wall_s=wall,
            returncode=proc.returncode,
            timed_out=timed_out.is_set(),
            tree_maxrss_bytes=_maxrss_to_bytes(usage.ru_maxrss),
            cpu_s=usage.ru_utime + usage.ru_stime,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            tree_sum_rss_bytes=peak[0] if sample else None,
        )


def run_self_rusage(python: str, spec: CommandSpec, timeout: float) -> dict[str, object]:
    """Run the console script in-process under the rusage wrapper; return its own and children's peak."""
    assert spec.rusage_script is not None
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        argv = [python, "-c", _RUSAGE_WRAPPER, path, spec.rusage_script, *spec.argv[1:]]
        res = run_once(argv, timeout)
        try:
            data = json.loads(Path(path).read_text() or "{}")
        except ValueError:
            data = {}
    finally:
        Path(path).unlink(missing_ok=True)
    return {
        "returncode": res.returncode,
        "wall_s": res.wall_s,
        "self_maxrss_bytes": _maxrss_to_bytes(data["self_maxrss"]) if "self_maxrss" in data else None,
        "children_maxrss_bytes": (_maxrss_to_bytes(data["children_maxrss"]) if "children_maxrss" in data else None),
        "traceback": "Traceback (most recent call last)" in res.stderr,
        "stderr_tail": res.stderr[-STDERR_TAIL_CHARS:] if res.returncode not in (0, 1) else "",
    }


def _problems(spec: CommandSpec, res: RunResult) -> list[str]:
    found = []
    if res.timed_out:
        found.append("timed out")
    if "Traceback (most recent call last)" in res.stderr:
        found.append("traceback on stderr")
    if spec.expect_json:
        try:
            json.loads(res.stdout)
        except ValueError:
            found.append("stdout is not one JSON document")
    return found


def _summarise(spec: CommandSpec, warm: RunResult, timed: list[RunResult]) -> dict[str, object]:
    walls = [r.wall_s for r in timed]
    problems = sorted({p for r in [warm, *timed] for p in _problems(spec, r)})
    entry: dict[str, object] = {
        "label": spec.label,
        "argv": spec.argv,
        "warmup_wall_s": round(warm.wall_s, 4),
        "wall_s": [round(w, 4) for w in walls],
        "median_s": round(statistics.median(walls), 4),
        "min_s": round(min(walls), 4),
        "max_s": round(max(walls), 4),
        "cpu_s_median": round(statistics.median(r.cpu_s for r in timed), 3),
        "returncodes": sorted({r.returncode for r in timed}),
        "tree_maxrss_bytes": max(r.tree_maxrss_bytes for r in timed),
        "problems": problems,
    }
    bad = [r for r in [warm, *timed] if _problems(spec, r) or r.returncode not in (0, 1)]
    if bad:
        entry["stderr_tail"] = bad[0].stderr[-STDERR_TAIL_CHARS:]
    return entry


def _self_rss(python: str, spec: CommandSpec, runs: int, timeout: float) -> dict[str, object]:
    wrapped = [run_self_rusage(python, spec, timeout) for _ in range(runs)]
    selfs = [w["self_maxrss_bytes"] for w in wrapped if isinstance(w["self_maxrss_bytes"], int)]
    kids = [w["children_maxrss_bytes"] for w in wrapped if isinstance(w["children_maxrss_bytes"], int)]
    return {
        "self_maxrss_bytes_median": int(statistics.median(selfs)) if selfs else None,
        "self_maxrss_bytes_max": max(selfs) if selfs else None,
        "children_maxrss_bytes_max": max(kids) if kids else None,
        "runs": wrapped,
    }


def bench_all(
    specs: list[CommandSpec], python: str, runs: int, timeout: float, sample: bool
) -> dict[str, dict[str, object]]:
    """Warm up every command, then time them round-robin, then take the memory-only runs."""
    active = [s for s in specs if not s.skip_reason]
    for spec in specs:
        if spec.skip_reason:
            print(f"- {spec.label}: skipped: {spec.skip_reason}", file=sys.stderr, flush=True)
    warm: dict[str, RunResult] = {}
    for spec in active:
        print(f"- warm-up {spec.label}: {' '.join(spec.argv)}", file=sys.stderr, flush=True)
        warm[spec.key] = run_once(spec.argv, timeout)
    # Round-robin, so drift (background load, a file edited meanwhile) hits every command alike.
    timed: dict[str, list[RunResult]] = {s.key: [] for s in active}
    for i in range(runs):
        print(f"- timed round {i + 1}/{runs}", file=sys.stderr, flush=True)
        for spec in active:
            timed[spec.key].append(run_once(spec.argv, timeout))
    results: dict[str, dict[str, object]] = {}
    for spec in specs:
        if spec.skip_reason:
            results[spec.key] = {"label": spec.label, "argv": spec.argv, "skipped": spec.skip_reason}
            continue
        entry = _summarise(spec, warm[spec.key], timed[spec.key])
        if sample and sys.platform.startswith("linux"):
            print(f"- sampled-RSS run {spec.label}", file=sys.stderr, flush=True)
            entry["tree_sum_rss_bytes"] = run_once(spec.argv, timeout, sample=True).tree_sum_rss_bytes
        if spec.rusage_script:
            print(f"- self-RSS runs {spec.label}", file=sys.stderr, flush=True)
            entry["self_rss"] = _self_rss(python, spec, runs, timeout)
        results[spec.key] = entry
    return results


def build_specs(python: str) -> list[CommandSpec]:
    bindir = Path(python).parent
    envguard = str(bindir / "envguard")
    env_doctor = str(bindir / "env-doctor")
    eg_argv = [envguard, "check", "--python", python, "--format", "json"]
    no_ed = None if Path(env_doctor).exists() else f"{env_doctor} not found (pip install env-doctor)"
    no_eg = None if Path(envguard).exists() else f"{envguard} not found (pip install -e .)"
    return [
        CommandSpec("envguard", "envguard check", eg_argv, envguard, True, no_eg),
        # NOTE: the default text output, into a pipe as in CI (the JSON run above is what machines read)
        CommandSpec("envguard_text", "envguard check (text)", eg_argv[:-2], envguard, False, no_eg),
        CommandSpec("envguard_deep", "envguard check --deep", [*eg_argv, "--deep"], envguard, True, no_eg),
        CommandSpec("collect_env", "python -m torch.utils.collect_env", [python, "-m", "torch.utils.collect_env"]),
        CommandSpec("env_doctor", "env-doctor check", [env_doctor, "check"], skip_reason=no_ed),
        CommandSpec(
            "env_doctor_json",
            "env-doctor check --json",
            [env_doctor, "check", "--json"],
            expect_json=True,
            skip_reason=no_ed,
        ),
    ]


def _ratio(results: dict, num: str, den: str, target: float) -> dict[str, object] | None:
    a, b = results.get(num, {}).get("median_s"), results.get(den, {}).get("median_s")
    if a is None or not b:
        return None
    value = a / b
    return {"numerator": num, "denominator": den, "ratio": round(value, 4), "target": target, "met": value <= target}


def _envguard_source() -> dict[str, object]:
    """Commit of the checkout this script lives in, and whether envguard's files differ from it."""
    root = Path(__file__).resolve().parents[1]
    info: dict[str, object] = {"checkout": str(root)}
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], check=False, capture_output=True, text=True
        )
        dirty = subprocess.run(
            # --no-optional-locks: a read-only look, never an index refresh.
            [
                "git",
                "--no-optional-locks",
                "-C",
                str(root),
                "status",
                "--porcelain",
                "--",
                "envguard",
                "matrices",
                "templates",
            ],
            check=False,
            capture_output=True,
            text=True,
        )
    except OSError as exc:
        info["error"] = str(exc)
        return info
    info["commit"] = head.stdout.strip() or None
    info["uncommitted_changes"] = dirty.stdout.splitlines() if dirty.returncode == 0 else None
    return info


def environment_info(python: str, timeout: float) -> dict[str, object]:
    names = ["envguard", "torch", "tensorflow-cpu", "tensorflow", "env-doctor", "nvidia-ml-py"]
    res = run_once([python, "-c", _VERSIONS_SNIPPET, *names], timeout)
    try:
        versions = json.loads(res.stdout)
    except ValueError:
        versions = {"error": res.stderr[-500:]}
    baseline = run_once([python, "-c", "pass"], timeout)
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": python,
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "packages": versions,
        "bare_python_maxrss_bytes": baseline.tree_maxrss_bytes,
        "envguard_source": _envguard_source(),
    }


def _fmt_mb(num_bytes: object) -> str:
    return "-" if not isinstance(num_bytes, int) else f"{_mb(num_bytes):.1f}"


def markdown(report: dict) -> str:
    lines = [
        "| command | median s | min s | max s | exit | peak RSS, largest process (MB) "
        "| peak RSS, sum of tree (MB, sampled) |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    for entry in report["commands"].values():
        if "skipped" in entry:
            lines.append(f"| `{entry['label']}` | skipped: {entry['skipped']} | | | | | |")
            continue
        lines.append(
            f"| `{entry['label']}` | {entry['median_s']:.3f} | {entry['min_s']:.3f} | {entry['max_s']:.3f} "
            f"| {','.join(map(str, entry['returncodes']))} | {_fmt_mb(entry['tree_maxrss_bytes'])} "
            f"| {_fmt_mb(entry.get('tree_sum_rss_bytes'))} |"
        )
    lines += ["", "| ratio (median wall time) | value | target | met |", "|---|---:|---:|---|"]
    for name, r in report["ratios"].items():
        if r is None:
            lines.append(f"| {name} | n/a | | |")
        else:
            lines.append(f"| {name} | {r['ratio']:.3f} | ≤ {r['target']} | {'yes' if r['met'] else 'NO'} |")
    lines += ["", "| envguard memory | self (envguard process) MB | largest child MB |", "|---|---:|---:|"]
    for key in ("envguard", "envguard_deep"):
        s = report["commands"].get(key, {}).get("self_rss")
        if s:
            lines.append(
                f"| `{report['commands'][key]['label']}` | {_fmt_mb(s['self_maxrss_bytes_max'])} "
                f"| {_fmt_mb(s['children_maxrss_bytes_max'])} |"
            )
    rss = report["self_rss_target"]
    lines += [
        "",
        f"envguard's own peak RSS (max over default and --deep runs): {_fmt_mb(rss['value_bytes'])} MB; "
        f"target ≤ {TARGET_SELF_RSS_MB:.0f} MB: {'met' if rss['met'] else 'NOT met'}. "
        f"A bare `python -c pass` peaks at {_fmt_mb(report['environment']['bare_python_maxrss_bytes'])} MB.",
        "",
        "'self' is the envguard process alone (getrusage(RUSAGE_SELF) at exit); 'largest child' is the "
        "biggest target-interpreter subprocess envguard spawned (getrusage(RUSAGE_CHILDREN)). 'Largest "
        "process' is os.wait4's rusage: the biggest single process of the tree. 'Sum of tree' adds the "
        "RSS of all live processes (shared pages counted per process), sampled every 10 ms in one "
        "extra run. MB = 10^6 bytes.",
        "",
        f"Bytecode: {report['environment']['bytecode']}.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the benchmark virtualenv's python")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--out", required=True, help="JSON results file to write")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run (default 600)")
    parser.add_argument("--no-sample", action="store_true", help="skip the sampled sum-of-tree RSS run")
    parser.add_argument(
        "--pycache-prefix",
        default=str(DEFAULT_PYCACHE_PREFIX),
        help="PYTHONPYCACHEPREFIX for the measured commands, so bytecode is cached as after a normal "
        "install even for an editable envguard (default: %(default)s)",
    )
    parser.add_argument(
        "--keep-bytecode-env",
        action="store_true",
        help="pass PYTHONDONTWRITEBYTECODE / PYTHONPYCACHEPREFIX through unchanged instead",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    # Keep the venv path as given: resolving the symlink would leave the virtualenv.
    python = os.path.abspath(args.python)
    if not Path(python).exists():
        parser.error(f"{python} does not exist")

    if args.keep_bytecode_env:
        bytecode = {
            "mode": "environment as given",
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
        }
    else:
        # An editable install has no .pyc, and PYTHONDONTWRITEBYTECODE (set on some machines) would
        # make every run recompile envguard from source: not what a user of the wheel pays.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.abspath(args.pycache_prefix)
        _CHILD["env"] = env
        bytecode = {"mode": "cached (warm-up run writes it)", "PYTHONPYCACHEPREFIX": env["PYTHONPYCACHEPREFIX"]}

    specs = build_specs(python)
    env_info = environment_info(python, args.timeout)
    env_info["bytecode"] = bytecode
    results = bench_all(specs, python, args.runs, args.timeout, not args.no_sample)
    ratios = {
        "envguard / collect_env": _ratio(results, "envguard", "collect_env", TARGET_DEFAULT_VS_COLLECT_ENV),
        "envguard (text) / collect_env": _ratio(results, "envguard_text", "collect_env",
                                                TARGET_DEFAULT_VS_COLLECT_ENV),
        "envguard / env-doctor": _ratio(results, "envguard", "env_doctor", TARGET_DEFAULT_VS_ENV_DOCTOR),
        "envguard --deep / env-doctor": _ratio(results, "envguard_deep", "env_doctor", TARGET_DEEP_VS_ENV_DOCTOR),
    }
    selfs = [
        results[k]["self_rss"]["self_maxrss_bytes_max"]
        for k in ("envguard", "envguard_deep")
        if results.get(k, {}).get("self_rss", {}).get("self_maxrss_bytes_max") is not None
    ]
    peak_self = max(selfs) if selfs else None
    report = {
        "environment": env_info,
        "runs": args.runs,
        "commands": results,
        "ratios": ratios,
        "self_rss_target": {
            "value_bytes": peak_self,
            "target_mb": TARGET_SELF_RSS_MB,
            "met": peak_self is not None and peak_self / 1e6 <= TARGET_SELF_RSS_MB,
        },
        "notes": {
            "tree_maxrss_bytes": "os.wait4 rusage (RUSAGE_BOTH on Linux): largest single process of the tree",
            "tree_sum_rss_bytes": "sampled sum of RSS of all live tree processes, one untimed run",
            "self_rss": "envguard in-process under a wrapper: RUSAGE_SELF (envguard) and RUSAGE_CHILDREN",
        },
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    print(f"\nresults written to {out}", file=sys.stderr)
    bad = [e["label"] for e in results.values() if e.get("problems")]
    if bad:
        print(f"problems in: {', '.join(bad)} (see stderr_tail in {out})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
