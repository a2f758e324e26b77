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

__all__ = ["CASES", "CASE_NAMES", "DistOptions", "SmokeResult", "SmokeRun", "SmokeStatus", "default_nproc",
           "payload_device", "run_suite", "select_cases", "visible_gpus"]

#: Seconds a case may take, by level (a hung case is killed and reported, the suite goes on).
DEFAULT_TIMEOUT = {1: 120.0, 2: 300.0, 3: 900.0}


@dataclass(frozen=True, slots=True)
class DistOptions:
    """What the DDP case hands to torch.distributed.run."""

    #: Ranks per node; None = one per visible GPU (NCCL) on a machine with a GPU, else 2 (gloo on the CPU).
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
    #: Folder for every case's full output (stderr, then stdout); None: ENVGUARD_SMOKE_LOG_DIR from ``env``,
    #: else only the cases that did not pass keep theirs, in a new folder under the temp directory.
    log_dir: str | None = None


#: Where gpu-validate (or anyone) asks every case's output to be kept.
LOG_DIR_ENV = "ENVGUARD_SMOKE_LOG_DIR"


def visible_gpus(gpus: int, env: Mapping[str, str]) -> int:
    """How many of the machine's ``gpus`` a CUDA process sees under CUDA_VISIBLE_DEVICES (unset: all; empty
    or "-1"-led: none; else the entries before the first invalid one, as the CUDA runtime reads it)."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return gpus
    count = 0
    for raw in value.split(","):
        item = raw.strip()
        if not item or item.startswith("-"):
            break
        if item.isdigit() and int(item) >= gpus:
            break
        count += 1
    return min(count, gpus)


def payload_device(device: str, gpus_visible: int) -> str:
    """The --device the payload gets: "auto" on a machine with a visible GPU means "cuda", so that a torch
    that cannot see that GPU fails the run instead of skipping to the CPU."""
    return "cuda" if device == "auto" and gpus_visible > 0 else device


def default_nproc(gpus_visible: int, device: str) -> int:
    """DDP ranks per node when --nproc-per-node is not given: one per visible GPU (NCCL), else 2 (gloo)."""
    return gpus_visible if gpus_visible >= 1 and device != "cpu" else 2


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
    info = {str(k): str(v) for k, v in (doc.get("info") or {}).items() if v is not None} if isinstance(
        doc.get("info"), dict) else {}
    return SmokeResult(case, status, result.duration_s, str(doc.get("detail") or ""), metrics, digests,
                       doc.get("device"), doc.get("torch") or doc.get("framework"), result.returncode, info)


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


class _Logs:
    """Keeps each case's full output: every case in a given folder, else the cases that did not pass in a
    folder made on first use (so a one-off GPU failure leaves its traceback)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.keep_all = folder is not None

    def keep(self, case: str, result: CommandResult, decoded: SmokeResult) -> str | None:
        if not self.keep_all and decoded.status in (SmokeStatus.PASSED, SmokeStatus.SKIPPED):
            return None
        if not (result.stderr or result.stdout):
            return None
        try:
            if self.folder is None:
                self.folder = tempfile.mkdtemp(prefix="envguard-smoke-logs-")
            os.makedirs(self.folder, exist_ok=True)
            path = os.path.join(self.folder, f"{case}.log")
            tmp = f"{path}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(f"# envguard smoke {case}: {decoded.status.value}, exit {result.returncode}, "
                         f"{result.duration_s:.1f}s\n# argv: {' '.join(result.argv)}\n"
                         f"# ---- stderr ----\n{result.stderr}\n# ---- stdout ----\n{result.stdout}\n")
            os.replace(tmp, path)
        except OSError as exc:
            logger.warning("could not keep the output of smoke case %s: %s", case, exc)
            return None
        return path


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
    logs = _Logs(options.log_dir or options.env.get(LOG_DIR_ENV) or None)
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
            log = logs.keep(case.name, result, decoded)
            if log is not None:
                decoded = replace(decoded, log=log)
            logger.info("smoke %s: %s in %.1fs", case.name, decoded.status.value, decoded.duration_s)
            results.append(decoded)
            if on_event:
                on_event(case.name, decoded)
    return SmokeRun(options.level, options.target_python, tuple(results), time.monotonic() - start)
