#!/usr/bin/env python3
"""Time ``envguard lock`` (uv and pip resolvers) side by side with ``pip-compile --generate-hashes``.

Standalone (standard library only); it is not part of the envguard package. Every tool runs from one
virtualenv that has envguard (editable is fine), uv and pip-tools installed::

    .venv/bin/python benchmarks/bench_lock.py [--python .venv/bin/python] [--runs 5] \\
        [--out benchmarks/results/lock-YYYY-MM-DD.json]

Requests (each run by all four tools; ``--request KEY`` picks some):

* ``torch``: ``torch==2.5.*`` for CUDA 12.4. cu124 is the build the default index serves for torch 2.5 on
  Linux x86_64, so envguard adds no framework index and pip-compile gets the very same line.
* ``app``: ``requests rich click numpy pandas`` (no framework; envguard with ``--cuda cpu``).

Commands, per request (``<venv>`` is the directory of ``--python``):

* ``envguard_uv``:  ``<venv>/envguard lock REQ... --python LOCK_PY --cuda CUDA --format pip,json -o TMP --force
  --resolver uv`` (uv runs ``uv pip compile --generate-hashes``: every file of each pin is hashed);
* ``envguard_pip``: the same with ``--resolver pip`` (pip's resolver, ``pip install --dry-run --report``;
  one hash per pin, that of the file pip chose);
* ``uv``:           ``<venv>/uv pip compile --generate-hashes --quiet --python-version X.Y --python-platform
  x86_64-manylinux_2_28 --output-file TMP/requirements.txt requirements.in``: the command envguard's uv
  backend runs, alone (issue 12 target: envguard <= 1.5 x its median, with the same pins);
* ``pip_compile``:  ``<venv>/pip-compile --generate-hashes --quiet --output-file TMP/requirements.txt
  requirements.in``, the request written one requirement a line, run in TMP.

Every run writes into a fresh temporary folder: pip-compile would otherwise reuse the pins of an
existing output file, and nothing accumulates. LOCK_PY (``--lock-python``) is by default the interpreter
itself, as pip-compile resolves for the interpreter it runs under; a version such as ``3.11`` makes
envguard's pip resolver pass ``--python-version``/``--platform``, which pip before 23.3 refuses in
``pip install --dry-run`` without ``--target`` (pypa/pip#12215).

Method:

* Warm cache: one untimed warm-up run per command, then ``--runs`` timed rounds (default 5, at least 3),
  round-robin over the four commands so that drift hits all alike; ``time.perf_counter`` from spawn to
  reap. Medians, min and max are reported; ratios are envguard median / pip-compile median. Timings are
  reported, never asserted (the uv backend's target, <= 0.3 x pip-compile, is shown as met or not).
* Cold cache (unless ``--no-cold``): one more run per command with empty caches: ``UV_CACHE_DIR`` and
  ``PIP_CACHE_DIR`` pointed at a new temporary folder, and pip-compile given ``--cache-dir`` there too.
* Same request, same pins? The set of pinned names of each envguard lock (``envguard.lock.json``) is
  compared with pip-compile's output; differences in chosen versions are listed, not hidden.
* Configuration is the machine's own and is shared: pip and pip-compile (and so envguard's pip resolver)
  read pip's configuration files and ``PIP_*`` variables (on the reference machine a global constraint
  file capping torch, extra local ``file://`` indexes and ``--find-links``); uv reads none of them and
  sees only the default index. The JSON records ``pip config list`` and what the default index offers:
  PEP 658 metadata files (without them pip downloads whole wheels for their metadata), and a JSON API
  whose file URLs are the simple page's (pip-tools takes hashes from it only then; otherwise it downloads
  and hashes every file of each pinned version, all platforms). pip-compile's time, and the pip
  resolver's, therefore depend heavily on the index; the table ends with a note when it lacks either.
* Bytecode is cached for the children as in bench_check.py (``PYTHONDONTWRITEBYTECODE`` dropped,
  ``PYTHONPYCACHEPREFIX`` set), unless ``--keep-bytecode-env``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PYCACHE_PREFIX = ROOT / ".bench" / "pycache"
#: Issue target: envguard lock with the uv resolver at most this many times pip-compile's median.
TARGET_UV_VS_PIP_COMPILE = 0.3
#: Issue 12 target: envguard lock (uv) at most this many times plain `uv pip compile` on the same request.
TARGET_VS_UV = 1.5
STDERR_TAIL_CHARS = 3000

REQUESTS: dict[str, tuple[tuple[str, ...], str]] = {
    "torch": (("torch==2.5.*",), "12.4"),
    "app": (("requests", "rich", "click", "numpy", "pandas"), "cpu"),
}
TOOLS = ("envguard_uv", "uv", "envguard_pip", "pip_compile")
LABELS = {"envguard_uv": "envguard lock (uv)", "uv": "uv pip compile", "envguard_pip": "envguard lock (pip)",
          "pip_compile": "pip-compile"}

_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(?P<version>[^\s;\\]+)")

#: Child-side probe of the default index: PEP 658 metadata links on the simple page, and whether the PyPI
#: JSON API's file URLs are those of the simple page (pip-tools takes hashes from it only then).
_INDEX_PROBE = """\
import json, os, ssl, sys, urllib.request
from pip._internal.models.index import PyPI
ctx = ssl.create_default_context(cafile=os.environ.get("PIP_CERT") or None)
out = {"index": "the installer's default index", "project": sys.argv[1]}
def get(url, accept):
    req = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(req, timeout=60, context=ctx) as resp:
        return resp.read().decode("utf-8", "replace")
page = ""
try:
    page = get(PyPI.simple_url + "/" + sys.argv[1] + "/", "text/html")
    out["pep658_metadata"] = "data-dist-info-metadata" in page or "data-core-metadata" in page
except Exception as exc:
    out["pep658_metadata"] = "error: %s" % exc
try:
    files = json.loads(get(PyPI.pypi_url + "/" + sys.argv[1] + "/json", "application/json"))["urls"]
    out["json_api"] = True
    out["json_api_urls_match_simple"] = bool(files) and all(f["url"] in page for f in files)
except Exception as exc:
    out["json_api"] = False if getattr(exc, "code", None) == 404 else "error: %s" % exc
print(json.dumps(out))
"""


@dataclass
class Run:
    wall_s: float
    returncode: int | None  # None: timed out
    stderr: str
    outdir: Path


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Run:
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        code: int | None = proc.returncode
        err = proc.stderr or proc.stdout
    except subprocess.TimeoutExpired as exc:
        code, err = None, str(exc)
    return Run(time.perf_counter() - start, code, err[-STDERR_TAIL_CHARS:], cwd)


class Bench:
    """Builds and runs one command of one request in a fresh folder under ``work``."""

    def __init__(self, bindir: Path, lock_python: str, work: Path, env: dict[str, str], timeout: float) -> None:
        self.bindir, self.lock_python, self.work, self.env, self.timeout = bindir, lock_python, work, env, timeout
        self.count = 0
        if re.fullmatch(r"\d+\.\d+", lock_python):
            self.uv_python = lock_python
        else:
            out = subprocess.run([lock_python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, check=True)
            self.uv_python = out.stdout.strip()

    def argv(self, tool: str, request: str, outdir: Path, cache: Path | None) -> list[str]:
        reqs, cuda = REQUESTS[request]
        if tool == "uv":
            # The very command envguard runs (same Python and platform), writing a file as envguard does.
            return [str(self.bindir / "uv"), "pip", "compile", "--generate-hashes", "--quiet", "--python-version",
                    self.uv_python, "--python-platform", "x86_64-manylinux_2_28",
                    "--output-file", str(outdir / "requirements.txt"), "requirements.in"]
        if tool == "pip_compile":
            argv = [str(self.bindir / "pip-compile"), "--generate-hashes", "--quiet",
                    "--output-file", str(outdir / "requirements.txt"), "requirements.in"]
            return argv if cache is None else [*argv, "--cache-dir", str(cache / "pip-tools")]
        resolver = tool.removeprefix("envguard_")
        return [str(self.bindir / "envguard"), "lock", *reqs, "--python", self.lock_python, "--cuda", cuda,
                "--format", "pip,json", "-o", str(outdir), "--force", "--resolver", resolver]

    def run(self, tool: str, request: str, *, cold: bool = False) -> Run:
        self.count += 1
        outdir = self.work / f"{request}-{tool}-{self.count}"
        outdir.mkdir()
        if tool in ("pip_compile", "uv"):
            (outdir / "requirements.in").write_text("\n".join(REQUESTS[request][0]) + "\n")
        env = self.env
        cache = None
        if cold:
            cache = outdir / "cache"
            env = {**env, "UV_CACHE_DIR": str(cache / "uv"), "PIP_CACHE_DIR": str(cache / "pip")}
        run = timed(self.argv(tool, request, outdir, cache), outdir, env, self.timeout)
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
        return run


def read_pins(tool: str, outdir: Path) -> dict[str, dict[str, object]] | None:
    """name -> {version, hashes} from one run's output, or None if it wrote none."""
    pins: dict[str, dict[str, object]] = {}
    if tool in ("pip_compile", "uv"):
        path = outdir / "requirements.txt"
        if not path.exists():
            return None
        current = None
        for line in path.read_text().splitlines():
            m = _PIN.match(line)
            if m:
                current = canonical(m.group("name"))
                pins[current] = {"version": m.group("version"), "hashes": 0}
            if current and "--hash=" in line:
                pins[current]["hashes"] = int(str(pins[current]["hashes"])) + line.count("--hash=")
        return pins
    path = outdir / "envguard.lock.json"
    if not path.exists():
        return None
    for pkg in json.loads(path.read_text())["packages"]:
        pins[canonical(pkg["name"])] = {"version": pkg["version"], "hashes": len(pkg.get("hashes", []))}
    return pins


def compare(mine: dict[str, dict[str, object]] | None, ref: dict[str, dict[str, object]] | None) -> dict[str, object]:
    if mine is None or ref is None:
        return {"comparable": False}
    versions = {n: {"envguard": mine[n]["version"], "pip_compile": ref[n]["version"]}
                for n in sorted(mine.keys() & ref.keys()) if mine[n]["version"] != ref[n]["version"]}
    return {
        "comparable": True,
        "same_names": mine.keys() == ref.keys(),
        "only_envguard": sorted(mine.keys() - ref.keys()),
        "only_pip_compile": sorted(ref.keys() - mine.keys()),
        "version_differences": versions,
    }


def summarise(warm: Run, runs: list[Run], cold: Run | None) -> dict[str, object]:
    walls = [r.wall_s for r in runs]
    entry: dict[str, object] = {
        "warmup_wall_s": round(warm.wall_s, 3),
        "wall_s": [round(w, 3) for w in walls],
        "median_s": round(statistics.median(walls), 3),
        "min_s": round(min(walls), 3),
        "max_s": round(max(walls), 3),
        "returncodes": sorted({-1 if r.returncode is None else r.returncode for r in [warm, *runs]}),
    }
    if cold is not None:
        entry["cold_wall_s"] = round(cold.wall_s, 3)
        entry["cold_returncode"] = -1 if cold.returncode is None else cold.returncode
    failed = [r for r in [warm, *runs, *([cold] if cold else [])] if r.returncode != 0]
    if failed:
        entry["stderr_tail"] = failed[0].stderr
    return entry


def bench_request(bench: Bench, request: str, runs: int, cold: bool,
                  selected: tuple[str, ...] = TOOLS) -> dict[str, Any]:
    log = sys.stderr
    warm: dict[str, Run] = {}
    for tool in selected:
        print(f"- {request}: warm-up {LABELS[tool]}: {' '.join(bench.argv(tool, request, Path('TMP'), None))}",
              file=log, flush=True)
        warm[tool] = bench.run(tool, request)
    timed_runs: dict[str, list[Run]] = {t: [] for t in selected}
    for i in range(runs):
        print(f"- {request}: timed round {i + 1}/{runs}", file=log, flush=True)
        for tool in selected:
            timed_runs[tool].append(bench.run(tool, request))
    cold_runs: dict[str, Run] = {}
    if cold:
        for tool in selected:
            print(f"- {request}: cold-cache run {LABELS[tool]}", file=log, flush=True)
            cold_runs[tool] = bench.run(tool, request, cold=True)
    tools = {t: summarise(warm[t], timed_runs[t], cold_runs.get(t)) for t in selected}
    pins = {t: read_pins(t, timed_runs[t][-1].outdir) for t in selected}
    for t in selected:
        tools[t]["argv"] = bench.argv(t, request, Path("TMP"), None)
        p = pins[t]
        tools[t]["pins"] = None if p is None else {n: v["version"] for n, v in sorted(p.items())}
        tools[t]["hashes_total"] = None if p is None else sum(int(str(v["hashes"])) for v in p.values())
    ratios: dict[str, dict[str, object]] = {}
    if "pip_compile" in tools:
        base = tools["pip_compile"]["median_s"]
        for t in ("envguard_uv", "envguard_pip"):
            if t not in tools:
                continue
            value = float(str(tools[t]["median_s"])) / float(str(base))
            ratios[t] = {"ratio": round(value, 4)}
            if cold:
                ratios[t]["cold_ratio"] = round(float(str(tools[t]["cold_wall_s"])) /
                                                float(str(tools["pip_compile"]["cold_wall_s"])), 4)
        if "envguard_uv" in ratios:
            ratios["envguard_uv"]["target"] = TARGET_UV_VS_PIP_COMPILE
            ratios["envguard_uv"]["met"] = float(str(ratios["envguard_uv"]["ratio"])) <= TARGET_UV_VS_PIP_COMPILE
    vs_uv = (float(str(tools["envguard_uv"]["median_s"])) / float(str(tools["uv"]["median_s"]))
             if {"envguard_uv", "uv"} <= tools.keys() else None)
    if vs_uv is not None:
        ratios["envguard_uv_vs_uv"] = {"ratio": round(vs_uv, 4), "target": TARGET_VS_UV,
                                       "met": vs_uv <= TARGET_VS_UV}
    if cold and vs_uv is not None:
        ratios["envguard_uv_vs_uv"]["cold_ratio"] = round(float(str(tools["envguard_uv"]["cold_wall_s"]))
                                                          / float(str(tools["uv"]["cold_wall_s"])), 4)
    reqs, cuda = REQUESTS[request]
    return {
        "requirements": list(reqs),
        "cuda": cuda,
        "tools": tools,
        "ratios": ratios,
        "pins_vs_pip_compile": {t: compare(pins.get(t), pins.get("pip_compile"))
                                for t in ("envguard_uv", "envguard_pip") if t in pins},
        "pins_vs_uv": compare(pins.get("envguard_uv"), pins.get("uv")),
    }


def _git(*args: str) -> str | None:
    try:
        res = subprocess.run(["git", "--no-optional-locks", "-C", str(ROOT), *args],
                             check=False, capture_output=True, text=True)
    except OSError:
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def environment_info(python: str, bindir: Path, env: dict[str, str]) -> dict[str, object]:
    def out(argv: list[str]) -> str | None:
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"error: {exc}"
        return (res.stdout or res.stderr).strip()

    probe = out([python, "-c", _INDEX_PROBE, "torch"]) or ""
    try:
        index: object = json.loads(probe)
    except ValueError:
        index = {"error": probe[-500:]}
    dirty = _git("status", "--porcelain", "--", "envguard")
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": python,
        "python_version": out([python, "-c", "import platform; print(platform.python_version())"]),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "versions": {
            "envguard": out([str(bindir / "envguard"), "--version"]),
            "uv": out([str(bindir / "uv"), "--version"]),
            "pip": out([python, "-m", "pip", "--version"]),
            "pip-tools": out([str(bindir / "pip-compile"), "--version"]),
        },
        "pip_config": (out([python, "-m", "pip", "config", "list"]) or "").splitlines(),
        "default_index": index,
        "envguard_source": {"commit": _git("rev-parse", "HEAD"),
                            "uncommitted_changes": None if dirty is None else dirty.splitlines()},
    }


def markdown(report: dict[str, object]) -> str:
    cold = bool(report["cold"])
    head = "| request | command | median s | min s | max s |" + (" cold s |" if cold else "") + " pins | hashes |"
    lines = [head, "|---|---|---:|---:|---:|" + ("---:|" if cold else "") + "---:|---:|"]
    results = report["requests"]
    assert isinstance(results, dict)
    for key, res in results.items():
        for tool in TOOLS:
            if tool not in res["tools"]:
                continue
            t = res["tools"][tool]
            pins = "-" if t["pins"] is None else str(len(t["pins"]))
            lines.append(f"| {key} | `{LABELS[tool]}` | {t['median_s']:.2f} | {t['min_s']:.2f} | {t['max_s']:.2f} |"
                         + (f" {t.get('cold_wall_s', 0):.2f} |" if cold else "")
                         + f" {pins} | {t['hashes_total'] if t['hashes_total'] is not None else '-'} |")
    lines += ["", "| request | ratio (median, vs pip-compile) | warm |" + (" cold |" if cold else "")
              + " target | pin names agree | versions differ |",
              "|---|---|---:|" + ("---:|" if cold else "") + "---|---|---|"]
    for key, res in results.items():
        for tool in ("envguard_uv", "envguard_pip"):
            if tool not in res["ratios"]:
                continue
            r, c = res["ratios"][tool], res["pins_vs_pip_compile"][tool]
            target = (f"<= {r['target']} ({'met' if r['met'] else 'NOT met'})") if "target" in r else ""
            if c["comparable"]:
                agree = "yes" if c["same_names"] else (
                    f"no (only envguard: {', '.join(c['only_envguard']) or '-'}; "
                    f"only pip-compile: {', '.join(c['only_pip_compile']) or '-'})")
                diff = ", ".join(f"{n} {v['envguard']} vs {v['pip_compile']}"
                                 for n, v in c["version_differences"].items()) or "none"
            else:
                agree, diff = "n/a (a run failed)", "n/a"
            lines.append(f"| {key} | `{LABELS[tool]}` / pip-compile | {r['ratio']:.3f} |"
                         + (f" {r['cold_ratio']:.3f} |" if cold else "") + f" {target} | {agree} | {diff} |")
    lines += ["", "| request | envguard lock (uv) / uv pip compile | warm |" + (" cold |" if cold else "")
              + " target | same pins |", "|---|---|---:|" + ("---:|" if cold else "") + "---|---|"]
    for key, res in results.items():
        if "envguard_uv_vs_uv" not in res["ratios"]:
            continue
        r, c = res["ratios"]["envguard_uv_vs_uv"], res["pins_vs_uv"]
        same = ("yes" if c["same_names"] and not c["version_differences"] else f"no: {c}") if c["comparable"] \
            else "n/a (a run failed)"
        lines.append(f"| {key} | `envguard lock (uv)` / `uv pip compile` | {r['ratio']:.3f} |"
                     + (f" {r['cold_ratio']:.3f} |" if cold else "")
                     + f" <= {r['target']} ({'met' if r['met'] else 'NOT met'}) | {same} |")
    env = report["environment"]
    assert isinstance(env, dict)
    lines += ["", f"Warm cache: median of {report['runs']} timed runs after one untimed warm-up per command"
              + ("; cold: one run with empty uv/pip/pip-tools caches." if cold else "."),
              f"Default index: {json.dumps(env['default_index'])}. pip config: {'; '.join(env['pip_config'])}."]
    index = env["default_index"]
    if isinstance(index, dict) and (index.get("pep658_metadata") is not True
                                    or index.get("json_api_urls_match_simple") is not True):
        lines.append("Note: this index lacks PEP 658 metadata and/or a JSON API pip-tools can match, so pip "
                     "downloads whole wheels for metadata and pip-compile downloads and hashes every file of "
                     "each pin; against an index that has both, pip and pip-compile would be faster.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable,
                        help="python of the virtualenv holding envguard, uv and pip-compile (default: this one)")
    parser.add_argument("--lock-python", help="what envguard lock gets as --python (default: --python itself)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5, at least 3)")
    parser.add_argument("--request", action="append", choices=sorted(REQUESTS), help="request(s) to run (default all)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-cache runs")
    parser.add_argument("--tools", action="append", metavar="REQUEST=TOOL,...",
                        help="run only these tools for a request, e.g. torch=envguard_uv,uv (pip-compile on the "
                             "torch request downloads and hashes every torch file: gigabytes); default all")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run (default 900)")
    default_out = ROOT / "benchmarks" / "results" / f"lock-{_dt.date.today():%Y-%m-%d}.json"
    parser.add_argument("--out", default=str(default_out),
                        help="JSON results file (default: %(default)s)")
    parser.add_argument("--pycache-prefix", default=str(DEFAULT_PYCACHE_PREFIX),
                        help="PYTHONPYCACHEPREFIX for the measured commands (default: %(default)s)")
    parser.add_argument("--keep-bytecode-env", action="store_true",
                        help="pass PYTHONDONTWRITEBYTECODE / PYTHONPYCACHEPREFIX through unchanged instead")
    args = parser.parse_args(argv)
    if args.runs < 3:
        parser.error("--runs must be at least 3")
    # Keep the venv path as given: resolving the symlink would leave the virtualenv.
    python = os.path.abspath(args.python)
    bindir = Path(python).parent
    for exe in ("envguard", "uv", "pip-compile"):
        if not (bindir / exe).exists():
            parser.error(f"{bindir / exe} not found (pip install -e . uv pip-tools)")
    env = dict(os.environ)
    if not args.keep_bytecode_env:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.abspath(args.pycache_prefix)

    requests = args.request or list(REQUESTS)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-lock-") as work:
        bench = Bench(bindir, args.lock_python or python, Path(work), env, args.timeout)
        chosen: dict[str, tuple[str, ...]] = {}
        for item in args.tools or ():
            key, _, names = item.partition("=")
            picked = tuple(n for n in names.split(",") if n)
            if key not in REQUESTS or not picked or any(n not in TOOLS for n in picked):
                parser.error(f"--tools {item!r}: REQUEST=TOOL,... with tools from {', '.join(TOOLS)}")
            chosen[key] = tuple(t for t in TOOLS if t in picked)
        for request in requests:
            results[request] = bench_request(bench, request, args.runs, not args.no_cold,
                                             chosen.get(request, TOOLS))
    report: dict[str, object] = {
        "environment": environment_info(python, bindir, env),
        "runs": args.runs,
        "cold": not args.no_cold,
        "lock_python": args.lock_python or python,
        "bytecode": "environment as given" if args.keep_bytecode_env else f"cached in {env['PYTHONPYCACHEPREFIX']}",
        "requests": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    print(f"\nresults written to {out}", file=sys.stderr)
    failed = [f"{k}/{t}" for k, r in results.items() for t, e in r["tools"].items()
              if e["returncodes"] != [0] or e.get("cold_returncode", 0) != 0]
    if failed:
        print(f"failed runs (see stderr_tail in the JSON): {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
