"""run_suite: each case in the target interpreter as its own subprocess with a timeout; the suite goes on."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from envguard._subprocess import CommandResult, CommandRunner
from envguard.resources import script_source
from envguard.smoke.base import CASE_NAMES, CASES, SmokeCase, SmokeResult, SmokeRun, SmokeStatus

logger = logging.getLogger(__name__)

__all__ = ["CASES", "CASE_NAMES", "DistOptions", "SmokeResult", "SmokeRun", "SmokeStatus", "run_suite",
           "select_cases"]

#: Seconds a case may take, by level (a hung case is killed and reported, the suite goes on).
DEFAULT_TIMEOUT = {1: 120.0, 2: 300.0, 3: 900.0}


@dataclass(frozen=True, slots=True)
class DistOptions:
    """What the DDP case hands to torch.distributed.run."""

    #: Ranks per node; None = every GPU on a machine with two or more, else 2 (gloo on the CPU).
    nproc_per_node: int | None = None
    nnodes: int = 1
    node_rank: int = 0
    rdzv_endpoint: str | None = None


@dataclass(frozen=True)
class SuiteOptions:
    """Everything run_suite needs besides the runner."""

    target_python: str
    level: int = 2
    cases: tuple[str, ...] = CASE_NAMES
    timeout_s: float | None = None
    device: str = "auto"
    dist: DistOptions = field(default_factory=DistOptions)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


def select_cases(level: int, only: Sequence[str] = (), skip: Sequence[str] = ()) -> tuple[str, ...]:
    """Case names for a level, narrowed by --only and --skip.

    :raises ValueError: for an unknown case name.
    """
    for name in (*only, *skip):
        if name not in CASE_NAMES:
            raise ValueError(f"unknown smoke case {name!r} (known: {', '.join(CASE_NAMES)})")
    chosen = [c.name for c in CASES if c.level <= level]
    if only:
        chosen = [c.name for c in CASES if c.name in only]
    return tuple(c for c in chosen if c not in skip)


#: Runs torch.distributed.run (its arguments follow) in a process that dies with envguard (Linux
#: PR_SET_PDEATHSIG): the runner kills only the launcher's process group, and a killed envguard would
#: otherwise leave the launcher, and with it the ranks, running. Python 3.8 syntax: the target's.
_LAUNCHER = (
    "import ctypes, runpy, signal, sys\n"
    "if sys.platform.startswith('linux'):\n"
    "    try:\n"
    "        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))\n"
    "    except Exception:\n"
    "        pass\n"
    "sys.argv[0] = 'torch.distributed.run'\n"
    "runpy.run_module('torch.distributed.run', run_name='__main__', alter_sys=True)\n"
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _argv(case: SmokeCase, payload: str, options: SuiteOptions) -> tuple[str, ...]:
    tail = (payload, case.name, "--level", str(options.level), "--device", options.device)
    if not case.distributed:
        return (options.target_python, *tail)
    dist = options.dist
    endpoint = dist.rdzv_endpoint or f"127.0.0.1:{_free_port()}"
    return (options.target_python, "-c", _LAUNCHER, f"--nproc-per-node={dist.nproc_per_node or 2}",
            f"--nnodes={dist.nnodes}", f"--node-rank={dist.node_rank}", "--rdzv-backend=c10d",
            f"--rdzv-endpoint={endpoint}", "--max-restarts=0", *tail)


def decode_case(case: str, result: CommandResult) -> SmokeResult:
    """One case's process outcome → SmokeResult (pure): the last JSON line, or why there is none."""
    if result.timed_out:
        return SmokeResult(case, SmokeStatus.TIMEOUT, result.duration_s,
                           f"did not finish within {result.duration_s:.0f}s (killed with its process group)",
                           returncode=result.returncode)
    doc = None
    for line in reversed(result.stdout.splitlines()):
        text = line.strip()
        if text.startswith("{") and text.endswith("}"):
            try:
                doc = json.loads(text)
            except json.JSONDecodeError:
                continue
            break
    if not isinstance(doc, dict) or "status" not in doc:
        return SmokeResult(case, SmokeStatus.ERROR, result.duration_s, _crash_detail(result),
                           returncode=result.returncode)
    try:
        status = SmokeStatus(doc["status"])
    except ValueError:
        status = SmokeStatus.ERROR
    if status is SmokeStatus.PASSED and result.returncode not in (0, None):
        status = SmokeStatus.ERROR
    metrics = {str(k): float(v) for k, v in (doc.get("metrics") or {}).items()
               if isinstance(v, int | float) and not isinstance(v, bool)}
    digests = {str(k): str(v) for k, v in (doc.get("digests") or {}).items()}
    return SmokeResult(case, status, result.duration_s, str(doc.get("detail") or ""), metrics, digests,
                       doc.get("device"), doc.get("torch") or doc.get("framework"), result.returncode)


def _multinode_hint(dist: DistOptions) -> str:
    where = f"at {dist.rdzv_endpoint}" if dist.rdzv_endpoint else "(no --rdzv-endpoint was given)"
    return f"multi-node: all {dist.nnodes} nodes must join the rendezvous {where}; did every node start and reach it?"


def _crash_detail(result: CommandResult) -> str:
    if result.start_error:
        return f"could not start: {result.start_error}"
    code = result.returncode
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"crashed with {name} before reporting a result"
    tail = (result.stderr.strip().splitlines() or ["no output"])[-1][:300]
    return f"exited with status {code} without a result: {tail}"


def run_suite(
    runner: CommandRunner,
    options: SuiteOptions,
    on_event: Callable[[str, SmokeResult | None], None] | None = None,
) -> SmokeRun:
    """Run the chosen cases one after another; each case's crash or hang is that case's result."""
    source = script_source("envguard.smoke", "_payload.py")
    timeout = options.timeout_s or DEFAULT_TIMEOUT.get(options.level, 300.0)
    env = dict(options.env)
    env.setdefault("ENVGUARD_SMOKE_DIST_TIMEOUT", str(int(max(10.0, min(60.0, timeout / 2)))))
    env["PYTHONIOENCODING"] = "utf-8"
    results: list[SmokeResult] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="envguard-smoke-") as work:
        # NOTE: torch.distributed.run needs a script file, so the payload is written out once.
        payload = os.path.join(work, "envguard_smoke_payload.py")
        with open(payload, "w", encoding="utf-8") as fh:
            fh.write(source)
        for case in (c for c in CASES if c.name in options.cases):
            if on_event:
                on_event(case.name, None)
            result = runner(_argv(case, payload, options), timeout=timeout, env=env, cwd=work)
            decoded = decode_case(case.name, result)
            if case.distributed and options.dist.nnodes > 1 and decoded.status is SmokeStatus.TIMEOUT:
                decoded = replace(decoded, detail=f"{decoded.detail}; {_multinode_hint(options.dist)}")
            logger.info("smoke %s: %s in %.1fs", case.name, decoded.status.value, decoded.duration_s)
            results.append(decoded)
            if on_event:
                on_event(case.name, decoded)
    return SmokeRun(options.level, options.target_python, tuple(results), time.monotonic() - start)
