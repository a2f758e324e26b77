"""Fleet analysis: read many nodes' envguard results, group them by fingerprint, count findings, name outliers.

Pure apart from reading the result files; a bad file becomes a :class:`Problem` entry, never an exception.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from envguard import _json
from envguard.errors import EnvguardError
from envguard.findings import Severity
from envguard.fingerprints import Fingerprint, FleetGroup, fingerprint_of, fleet
from envguard.snapshot import DriverInfo, Snapshot, Unavailable

logger = logging.getLogger(__name__)

#: The ``envguard_result_version`` this envguard reads (= formatters.base.RESULT_VERSION; a test keeps them equal).
READS_RESULT_VERSION: Final = 1
#: Commands whose JSON results describe one node.
NODE_COMMANDS: Final = ("preflight", "check", "smoke")
#: A node is a perf outlier below this fraction of the median of its GPU-model peers.
DEFAULT_PERF_THRESHOLD: Final = 0.80
#: perf-case metrics compared across peers (names from smoke/_payload.py ``_case_perf``), in charting preference.
PERF_METRICS: Final = ("tflops_bf16", "tflops_fp16", "tflops_tf32", "tflops_fp32", "d2d_GBps")
METRIC_LABELS: Final = {
    "tflops_bf16": "bf16 matmul TFLOP/s", "tflops_fp16": "fp16 matmul TFLOP/s", "tflops_tf32": "tf32 matmul TFLOP/s",
    "tflops_fp32": "fp32 matmul TFLOP/s", "d2d_GBps": "device-to-device copy GB/s",
}
#: Largest result file read (a preflight.json with a full snapshot is tens of kB).
MAX_RESULT_BYTES: Final = 32 << 20
#: File names that say what a file is rather than which node: the node is then the folder (node1/preflight.json).
_GENERIC_STEMS: Final = frozenset({"preflight", "check", "smoke", "result", "results", "envguard"})
#: The perf case's detail opens with the device name: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs): matmul ...".
_PERF_DEVICE = re.compile(r"^(?P<name>[^;]+?) \(sm_\d+, \d+ SMs\)")
_BAD_SMOKE = ("failed", "error", "timeout")
#: The folder under a node's results where the launchers (`envguard init fleet`) put its DDP smoke result.
DDP_FOLDER: Final = "ddp"

UNREADABLE: Final = "unreadable"
INCOMPLETE: Final = "incomplete"
SKIPPED: Final = "skipped"


@dataclass(frozen=True, slots=True)
class Problem:
    """Why one file was not (fully) used; the rest of the report is still produced."""

    file: str
    message: str
    #: "unreadable" (nothing in the file was used), "incomplete" (the node is in the report with some facts
    #: missing) or "skipped" (not a node result, such as the fingerprint.json beside a preflight.json).
    kind: str = UNREADABLE
    node: str | None = None


@dataclass(frozen=True, slots=True)
class NodeFinding:
    """A finding one node reported: a check finding, a bad smoke case, or drift from the lock."""

    code: str
    severity: Severity
    message: str
    subject: str | None = None
    #: "check", "smoke" or "verify".
    origin: str = "check"


@dataclass(frozen=True, slots=True)
class DdpRun:
    """One node's part of the multi-node DDP smoke (``<node>/ddp/smoke.json``, as the fleet launchers write it)."""

    #: The ddp case's status ("passed", "failed", "timeout", ...), or "missing" when the file held no result.
    status: str
    detail: str
    file: str
    world_size: int | None = None
    #: sha256 of the trained weights: every rank of one DDP run ends with the same (name -> digest).
    digests: Mapping[str, str] = field(default_factory=dict)

    @property
    def weights(self) -> str | None:
        """The weights digest (the first digest whose name starts with "weights"), None when none."""
        return next((v for k, v in sorted(self.digests.items()) if k.startswith("weights")), None)


@dataclass(frozen=True, slots=True)
class NodeResult:
    """What was read about one node (from one file, or a check and a smoke file of the same node)."""

    node: str
    files: tuple[str, ...]
    #: "preflight", "check", "smoke" or "check+smoke".
    kind: str
    snapshot: Snapshot | None
    fingerprint: Fingerprint | None
    findings: tuple[NodeFinding, ...] = ()
    #: The perf case's metrics (TFLOP/s, GB/s, pct_of_peak_*); empty when perf did not run or did not pass.
    perf: Mapping[str, float] = field(default_factory=dict)
    #: GPU name the perf case reported, used when there is no snapshot.
    perf_device: str | None = None
    exit_code: int | None = None
    #: The node's part of the multi-node DDP smoke, when its ddp/ result was read.
    ddp: DdpRun | None = None

    @property
    def driver(self) -> str | None:
        """Driver version, "none" when no driver answered, None when unknown (no snapshot, no version)."""
        if self.snapshot is None:
            return None
        drv = self.snapshot.driver
        if isinstance(drv, Unavailable):
            return "none"
        return drv.version if isinstance(drv, DriverInfo) else None

    @property
    def cudnn(self) -> str | None:
        """cuDNN version(s) found, "not found", or None without a snapshot."""
        if self.snapshot is None:
            return None
        found = self.snapshot.cudnn
        return "not found" if isinstance(found, Unavailable) else ", ".join(sorted({c.version for c in found}))

    @property
    def gpu(self) -> str | None:
        """The GPU model(s) ("none" without GPUs), from the snapshot or else the perf case; None when unknown."""
        if self.snapshot is not None:
            names = sorted({g.name for g in self.snapshot.gpu_list()})
            if names:
                return ", ".join(names)
            if self.perf_device is None:
                return "none"
        return self.perf_device


@dataclass(frozen=True, slots=True)
class FindingCount:
    """One finding and the nodes that report it."""

    code: str
    severity: Severity
    subject: str | None
    origin: str
    #: The message as the first node reported it (messages name versions, which can vary by node).
    message: str
    nodes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outlier:
    """A node that differs from the rest of the fleet, and how."""

    node: str
    #: "fingerprint", "driver", "cudnn", "ddp" (its DDP weights differ) or "perf".
    kind: str
    reason: str
    value: str
    #: What the majority has (or the peers' median); "" where there is no majority.
    expected: str


@dataclass(frozen=True, slots=True)
class NodePerf:
    """One node's perf numbers against its GPU-model peers (the other nodes with the same GPU)."""

    node: str
    gpu: str
    metrics: Mapping[str, float]
    #: metric → median over the peers (the node itself left out); absent without peers.
    peer_medians: Mapping[str, float]

    def ratio(self, metric: str) -> float | None:
        """value / peer median, None when there are no peers or no value."""
        value, median = self.metrics.get(metric), self.peer_medians.get(metric)
        return value / median if value is not None and median else None


@dataclass(frozen=True, slots=True)
class FleetReport:
    """The whole fleet: groups, findings by node count, outliers, perf, and the problems per file."""

    nodes: tuple[NodeResult, ...]
    groups: tuple[FleetGroup, ...]
    findings: tuple[FindingCount, ...]
    outliers: tuple[Outlier, ...]
    perf: tuple[NodePerf, ...]
    #: The metric charted (the one most nodes report), None when no node has perf numbers.
    perf_metric: str | None
    perf_threshold: float
    #: Majority value of "driver" and "cudnn" (None where the fleet splits evenly or nothing is known).
    majority: Mapping[str, str | None]
    problems: tuple[Problem, ...]
    #: How many files were looked at.
    files: int
    source: str = ""

    @property
    def readable(self) -> bool:
        """At least one node could be read (else the exit code is 3)."""
        return bool(self.nodes)

    @property
    def uniform(self) -> bool:
        """One fingerprint and no outliers."""
        return len(self.groups) <= 1 and not self.outliers

    @property
    def error_findings(self) -> int:
        """Distinct error findings (each counted once, however many nodes report it)."""
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def ok(self) -> bool:
        """Uniform, with no error finding on any node (exit 0)."""
        return self.readable and self.uniform and not self.error_findings


# ---- reading one file --------------------------------------------------------------------------


class _UnusableError(Exception):
    """The file holds nothing this report can use (becomes a Problem)."""

    def __init__(self, message: str, kind: str = UNREADABLE) -> None:
        super().__init__(message)
        self.kind = kind


def _load(path: Path) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_RESULT_BYTES:
            raise _UnusableError(f"{size} bytes is more than an envguard result can be ({MAX_RESULT_BYTES} bytes)")
        raw = path.read_bytes()
    except OSError as exc:
        raise _UnusableError(f"cannot read: {exc.strerror or exc}") from None
    if not raw.strip():
        raise _UnusableError("empty file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _UnusableError(f"not UTF-8 text (byte {exc.start}): not a JSON result") from None
    try:
        return _json.loads(text)
    except _json.DocumentError as exc:
        raise _UnusableError(f"{exc}: not an envguard result") from None
    except json.JSONDecodeError as exc:
        # NOTE: JSON strings cannot hold raw newlines, so an unterminated one always runs into the end of the text.
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise _UnusableError(f"truncated JSON: the document ends early ({exc.msg}, line {exc.lineno}, column "
                                 f"{exc.colno}); was the copy interrupted?") from None
        raise _UnusableError(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


def _is_ddp(path: Path, root: Path | None) -> bool:
    """``<node>/ddp/<file>``: a node's part of the multi-node DDP smoke."""
    return path.parent.name == DDP_FOLDER and root not in (path.parent, path.parent.parent)


def _default_name(path: Path, root: Path | None) -> str:
    if _is_ddp(path, root) and path.parent.parent.name:
        return path.parent.parent.name
    stem = path.stem
    if stem.lower() in _GENERIC_STEMS and path.parent != root and path.parent.name:
        return path.parent.name
    return stem


def _check_version(doc: Mapping[str, Any], what: str = "") -> None:
    version = doc.get("envguard_result_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _UnusableError(f"{what}envguard_result_version {version!r} is not an integer")
    if version > READS_RESULT_VERSION:
        raise _UnusableError(f"{what}written by a newer envguard (result version {version}; this envguard reads "
                             f"{READS_RESULT_VERSION}): upgrade envguard where you run the fleet report")
    if version < READS_RESULT_VERSION:
        raise _UnusableError(f"{what}written by an older envguard (result version {version}; this envguard reads "
                             f"{READS_RESULT_VERSION}): rerun a current envguard on that node")


def _not_a_result(doc: Mapping[str, Any]) -> _UnusableError:
    if "digest" in doc and "components" in doc and "schema_version" in doc:
        return _UnusableError("a fingerprint file, not a node result (preflight writes it beside preflight.json; "
                              "`envguard fingerprint diff` compares those)", SKIPPED)
    if "schema_version" in doc and "host" in doc and "driver" in doc:
        return _UnusableError("a bare snapshot, not a node result: give `envguard check --format json` or "
                              "`envguard preflight` output instead")
    return _UnusableError("not an envguard result: no envguard_result_version")


@dataclass
class _Parts:
    """What one file yielded, before it becomes a NodeResult."""

    snapshot: Snapshot | None = None
    hostname: str | None = None
    fingerprint: Fingerprint | None = None
    findings: list[NodeFinding] = field(default_factory=list)
    perf: dict[str, float] = field(default_factory=dict)
    perf_device: str | None = None
    missing: list[str] = field(default_factory=list)

    def driver_unknown(self) -> bool:
        """A snapshot whose driver answered without a version."""
        drv = self.snapshot.driver if self.snapshot is not None else None
        return isinstance(drv, DriverInfo) and not drv.version


def _read_check(env: Any, parts: _Parts, what: str) -> None:
    if not isinstance(env, Mapping):
        parts.missing.append(f"no {what}: driver, cuDNN and GPU model unknown")
        return
    if "error" in env:
        parts.missing.append(f"{what} could not run on the node: {env['error']}")
        return
    raw = env.get("snapshot")
    if not isinstance(raw, Mapping):
        parts.missing.append(f"{what} has no snapshot: driver, cuDNN and GPU model unknown")
    else:
        host = raw.get("host")
        if isinstance(host, Mapping) and isinstance(host.get("hostname"), str) and host["hostname"]:
            parts.hostname = host["hostname"]
        try:
            parts.snapshot = Snapshot.from_dict(raw)
        except EnvguardError as exc:
            parts.missing.append(f"{what} snapshot unreadable ({exc}): driver, cuDNN and GPU model unknown")
    findings = env.get("findings")
    if not isinstance(findings, list):
        parts.missing.append(f"{what} has no findings list")
        return
    for i, item in enumerate(findings):
        try:
            parts.findings.append(NodeFinding(str(item["code"]), Severity.parse(str(item["severity"])),
                                              str(item.get("message") or ""),
                                              str(item["subject"]) if item.get("subject") else None, "check"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            parts.missing.append(f"{what} finding {i} unreadable ({exc})")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _read_fingerprint(raw: Any, parts: _Parts, what: str) -> None:
    if raw is None:
        return
    try:
        parts.fingerprint = Fingerprint.from_dict(raw, what)
    except EnvguardError as exc:
        parts.missing.append(f"{exc}: left out of the grouping")


def _read_smoke(env: Any, parts: _Parts, what: str) -> None:
    if not isinstance(env, Mapping):
        return
    if "error" in env:
        parts.missing.append(f"{what} could not run on the node: {env['error']}")
        return
    results = env.get("results")
    if not isinstance(results, list):
        parts.missing.append(f"{what} has no results list: perf unknown")
        return
    for item in results:
        if not isinstance(item, Mapping):
            parts.missing.append(f"{what}: a result is not an object")
            continue
        case, status = str(item.get("case")), str(item.get("status"))
        detail = str(item.get("detail") or "")
        if status in _BAD_SMOKE:
            message = f"smoke case {case} {status}" + (f": {detail}" if detail else "")
            parts.findings.append(NodeFinding(f"smoke-{status}", Severity.ERROR, message, case, "smoke"))
        if case == "perf" and status == "passed":
            metrics = item.get("metrics")
            for name, value in (metrics.items() if isinstance(metrics, Mapping) else ()):
                number = _number(value)
                if number is not None and (name in PERF_METRICS or str(name).startswith("pct_of_peak_")):
                    parts.perf[str(name)] = number
            match = _PERF_DEVICE.match(detail)
            parts.perf_device = match.group("name").strip() if match else None
    _read_fingerprint(env.get("fingerprint"), parts, f"{what} fingerprint")


def _read_verify(env: Any, parts: _Parts) -> None:
    if not isinstance(env, Mapping) or env.get("ok", True) is not False:
        return
    drift = env.get("drift")
    names = [str(d.get("name")) for d in drift if isinstance(d, Mapping)] if isinstance(drift, list) else []
    shown = ", ".join(names[:5]) + (f" (+{len(names) - 5})" if len(names) > 5 else "")
    parts.findings.append(NodeFinding("verify-drift", Severity.ERROR,
                                      f"the environment drifted from its lock {env.get('lock') or ''}".rstrip()
                                      + (f": {shown}" if shown else ""), None, "verify"))


def parse_result(doc: Any, file: str, default_node: str, *, ddp: bool = False,
                 ) -> tuple[NodeResult | None, tuple[Problem, ...]]:
    """One decoded result document → the node it describes (or None) and the problems met reading it.

    ``ddp``: the file is a node's part of the multi-node DDP smoke (``<node>/ddp/smoke.json``); it becomes a
    "ddp" result that joins the node's other result, and one that cannot be used still names the node.
    """
    try:
        if ddp:
            return _parse_ddp(doc, file, default_node)
        return _parse(doc, file, default_node)
    except _UnusableError as exc:
        if ddp and exc.kind == UNREADABLE:
            return _missing_ddp(file, default_node, str(exc))
        return None, (Problem(file, str(exc), exc.kind),)
    except (TypeError, ValueError, KeyError, AttributeError, EnvguardError) as exc:  # reason: never raise per file
        logger.debug("malformed result %s", file, exc_info=True)
        if ddp:
            return _missing_ddp(file, default_node, f"malformed envguard result: {exc}")
        return None, (Problem(file, f"malformed envguard result: {exc}"),)


def _missing_ddp(file: str, node: str, why: str) -> tuple[NodeResult, tuple[Problem, ...]]:
    """A DDP result file that holds no result: the node's DDP smoke did not finish (an error finding)."""
    if why == "empty file":
        why = ("empty file: the node's DDP smoke wrote no result (killed, or it died before the end; the job's "
               "output says why)")
    message = f"no DDP smoke result from {node}: {why}"
    result = NodeResult(node, (file,), "ddp", None, None,
                        (NodeFinding("ddp-no-result", Severity.ERROR, message, "ddp", "smoke"),),
                        ddp=DdpRun("missing", why, file))
    return result, (Problem(file, why, UNREADABLE, node),)


def _parse_ddp(doc: Any, file: str, node: str) -> tuple[NodeResult | None, tuple[Problem, ...]]:
    if not isinstance(doc, Mapping):
        raise _UnusableError(f"not an envguard result: a JSON {type(doc).__name__}, not an object")
    if "envguard_result_version" not in doc:
        raise _not_a_result(doc)
    _check_version(doc)
    if doc.get("command") != "smoke":
        raise _UnusableError(f"an `envguard {doc.get('command')}` result where the DDP smoke's (envguard smoke "
                             "--only ddp) was expected")
    if "error" in doc:
        raise _UnusableError(f"envguard smoke could not run on the node: {doc['error']}")
    results = doc.get("results")
    case = next((r for r in results if isinstance(r, Mapping) and r.get("case") == "ddp"), None) \
        if isinstance(results, list) else None
    if case is None:
        raise _UnusableError("a smoke result without a ddp case")
    parts = _Parts()
    _read_smoke({"results": [case]}, parts, "DDP smoke")
    metrics = case.get("metrics")
    world = _number(metrics.get("world_size")) if isinstance(metrics, Mapping) else None
    raw_digests = case.get("digests")
    digests = {str(k): str(v) for k, v in raw_digests.items()} if isinstance(raw_digests, Mapping) else {}
    run = DdpRun(str(case.get("status")), str(case.get("detail") or ""), file,
                 int(world) if world is not None else None, digests)
    exit_code = doc.get("exit_code")
    result = NodeResult(node, (file,), "ddp", None, None, tuple(parts.findings),
                        exit_code=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool)
                        else None, ddp=run)
    return result, tuple(Problem(file, m, INCOMPLETE, node) for m in parts.missing)


def _parse(doc: Any, file: str, default_node: str) -> tuple[NodeResult | None, tuple[Problem, ...]]:
    if not isinstance(doc, Mapping):
        raise _UnusableError(f"not an envguard result: a JSON {type(doc).__name__}, not an object")
    if "envguard_result_version" not in doc:
        raise _not_a_result(doc)
    _check_version(doc)
    command = doc.get("command")
    if command not in NODE_COMMANDS:
        # NOTE: a fleet report written into the folder it reads is not a node, nor is it broken.
        kind = SKIPPED if command in ("fleet report", "fingerprint diff") else UNREADABLE
        raise _UnusableError(f"an `envguard {command}` result, not a node result (preflight, check or smoke)",
                             kind)
    if "error" in doc:
        raise _UnusableError(f"envguard {command} could not run on the node: {doc['error']}")
    parts = _Parts()
    node = default_node
    if command == "preflight":
        if isinstance(doc.get("node"), str) and doc["node"].strip():
            node = doc["node"].strip()
        for step in doc.get("steps") or ():
            if isinstance(step, Mapping) and step.get("status") == "error":
                parts.missing.append(f"step {step.get('step')} could not run: {step.get('detail')}")
        for step in doc.get("skipped") or ():
            if isinstance(step, Mapping):
                # NOTE: older preflight.json files carry "skipped: ..." reasons; say it once.
                reason = str(step.get("reason")).removeprefix("skipped: ")
                parts.missing.append(f"step {step.get('step')} skipped: {reason}")
        if doc.get("check") is not None:
            _read_check(doc["check"], parts, "check")
        else:
            why = next((i for i, m in enumerate(parts.missing) if m.startswith("step check")), None)
            if why is None:
                parts.missing.append("no check result: driver, cuDNN and GPU model unknown")
            else:
                parts.missing[why] += "; driver, cuDNN and GPU model unknown"
        _read_verify(doc.get("verify"), parts)
        _read_smoke(doc.get("smoke"), parts, "smoke")
        _read_fingerprint(doc.get("fingerprint"), parts, "fingerprint")
    elif command == "check":
        _read_check(doc, parts, "check result")
        node = parts.hostname or node
    else:
        _read_smoke(doc, parts, "smoke result")
        if parts.perf_device is None:
            parts.missing.append("a smoke result only: driver and cuDNN unknown, left out of those comparisons")
        else:
            parts.missing.append(f"a smoke result only: driver and cuDNN unknown (GPU {parts.perf_device} from "
                                 "the perf case)")
    if parts.fingerprint is None and parts.snapshot is not None:
        parts.fingerprint = fingerprint_of(parts.snapshot)
    if parts.snapshot is not None and parts.driver_unknown():
        parts.missing.append("driver version unknown: left out of the driver comparison")
    exit_code = doc.get("exit_code")
    result = NodeResult(node, (file,), str(command), parts.snapshot, parts.fingerprint, tuple(parts.findings),
                        dict(parts.perf), parts.perf_device,
                        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None)
    return result, tuple(Problem(file, m, INCOMPLETE, node) for m in parts.missing)



def read_file(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
              ) -> tuple[NodeResult | None, tuple[Problem, ...]]:
    """Read one result file; never raises (a bad file is a Problem)."""
    p = Path(path)
    base = Path(root) if root is not None else None
    label = str(p.relative_to(base)) if base is not None and p.is_relative_to(base) else str(p)
    ddp = _is_ddp(p, base)
    try:
        doc = _load(p)
    except _UnusableError as exc:
        if ddp:
            return _missing_ddp(label, _default_name(p, base), str(exc))
        return None, (Problem(label, str(exc), exc.kind),)
    return parse_result(doc, label, _default_name(p, base), ddp=ddp)


def result_paths(root: str | os.PathLike[str]) -> list[Path]:
    """The result files of a fleet folder: ``*.json`` in it and in its subfolders (one per node), and each node's
    DDP smoke result in ``<node>/ddp/`` (what `envguard init fleet` launchers write), sorted; the fingerprint.json
    that preflight writes beside its preflight.json is left out.

    :raises OSError: when the folder cannot be listed.
    """
    base = Path(root)
    found = {*base.glob("*.json"), *base.glob("*/*.json"), *base.glob(f"*/{DDP_FOLDER}/*.json")}
    # NOTE: preflight writes fingerprint.json beside preflight.json, which holds the same fingerprint.
    return sorted(p for p in found if p.is_file()
                  and not (p.name == "fingerprint.json" and (p.parent / "preflight.json").is_file()))


# ---- many nodes --------------------------------------------------------------------------------


def _attach_ddp(merged: list[NodeResult], ddp_parts: Sequence[NodeResult]) -> list[NodeResult]:
    """Each node's DDP smoke result joins the node's other result; one without another result is a node itself."""
    out = list(merged)
    for part in ddp_parts:
        # NOTE: the node whose result sits in the same folder (node1/preflight.json for node1/ddp/smoke.json),
        # else the node of the same name.
        folder = Path(part.files[0]).parent.parent
        index = next((i for i, n in enumerate(out) if n.ddp is None and any(Path(f).parent == folder
                                                                            for f in n.files)), None)
        if index is None:
            index = next((i for i, n in enumerate(out) if n.node == part.node and n.ddp is None), None)
        if index is None:
            out.append(part)
            continue
        node = out[index]
        codes = [c for c in (node.exit_code, part.exit_code) if c is not None]
        out[index] = replace(node, files=(*node.files, *part.files), findings=(*node.findings, *part.findings),
                             ddp=part.ddp, exit_code=max(codes) if codes else None)
    return out


def _merge(results: list[NodeResult]) -> tuple[list[NodeResult], list[Problem]]:
    """A check file and a smoke file of the same node become one node, and so does its DDP smoke result; other
    same-named nodes are renamed."""
    ddp_parts = [r for r in results if r.kind == "ddp"]
    results = [r for r in results if r.kind != "ddp"]
    by_name: dict[str, list[NodeResult]] = {}
    for r in results:
        by_name.setdefault(r.node, []).append(r)
    merged: list[NodeResult] = []
    problems: list[Problem] = []
    for name, same in by_name.items():
        kinds = sorted(r.kind for r in same)
        if len(same) == 1:
            merged.append(same[0])
        elif kinds == ["check", "smoke"]:
            check, smoke = sorted(same, key=lambda r: r.kind)
            merged.append(replace(
                check, files=(*check.files, *smoke.files), kind="check+smoke",
                fingerprint=smoke.fingerprint or check.fingerprint, findings=(*check.findings, *smoke.findings),
                perf=smoke.perf, perf_device=smoke.perf_device,
                exit_code=max(check.exit_code or 0, smoke.exit_code or 0)))
            problems.append(Problem(smoke.files[0], f"merged with {check.files[0]} (the same node {name})",
                                    SKIPPED, name))
        else:
            for r in same:
                alias = f"{name} [{r.files[0]}]"
                others = ", ".join(o.files[0] for o in same if o is not r)
                problems.append(Problem(r.files[0], f"node name {name} is also in {others}; shown as {alias}",
                                        INCOMPLETE, alias))
                merged.append(replace(r, node=alias))
    return _attach_ddp(merged, ddp_parts), problems


def _majority(values: Mapping[str, str]) -> tuple[str | None, list[tuple[str, str]]]:
    """The most common value (None on a tie) and the (node, value) pairs that differ from it."""
    counts = Counter(values.values()).most_common()
    if len(counts) <= 1:
        return (counts[0][0] if counts else None), []
    if counts[0][1] == counts[1][1]:
        return None, sorted(values.items())
    top = counts[0][0]
    return top, sorted((n, v) for n, v in values.items() if v != top)


def _fact_outliers(kind: str, label: str, values: Mapping[str, str]) -> tuple[str | None, list[Outlier]]:
    top, odd = _majority(values)
    counts = Counter(values.values())
    out: list[Outlier] = []
    for node, value in odd:
        if top is None:
            split = ", ".join(f"{v} on {c}" for v, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
            out.append(Outlier(node, kind, f"{label} {value}: the fleet is split with no majority ({split})",
                               value, ""))
        else:
            out.append(Outlier(node, kind, f"{label} {value}, the majority ({counts[top]} of {len(values)} nodes) "
                                           f"has {top}", value, top))
    return top, out


def _group_outliers(groups: Sequence[FleetGroup]) -> list[Outlier]:
    if len(groups) <= 1:
        return []
    total = sum(len(g.members) for g in groups)
    largest = len(groups[0].members)
    tie = len(groups[1].members) == largest
    out: list[Outlier] = []
    for i, group in enumerate(groups):
        if i == 0 and not tie:
            continue
        if group.differences:
            shown = "; ".join(f"{d.component}: {d.left if d.left is not None else '(absent)'} → "
                              f"{d.right if d.right is not None else '(absent)'}" for d in group.differences[:3])
            more = f" (+{len(group.differences) - 3} more)" if len(group.differences) > 3 else ""
            detail = f" differs from the largest group in {shown}{more}"
        else:
            detail = ""
        if len(group.members) < largest:
            head = f"fingerprint shared by {len(group.members)} of {total} nodes;"
        else:
            head = f"no fingerprint has a majority ({len(groups)} groups, the largest {largest} of {total} nodes);"
        reason = f"{head}{detail}" if detail else head.rstrip(";")
        out.extend(Outlier(m, "fingerprint", reason, group.digest[:16], groups[0].digest[:16] if not tie else "")
                   for m in group.members)
    return out


def _perf(nodes: Sequence[NodeResult], threshold: float) -> tuple[list[NodePerf], str | None, list[Outlier]]:
    with_perf = [n for n in nodes if n.perf]
    if not with_perf:
        return [], None, []
    counts = Counter(m for n in with_perf for m in PERF_METRICS if m in n.perf)
    metric = max(PERF_METRICS, key=lambda m: (counts[m], -PERF_METRICS.index(m))) if counts else None
    peers: dict[str, list[NodeResult]] = {}
    for n in with_perf:
        peers.setdefault(n.gpu or "unknown GPU", []).append(n)
    perf: list[NodePerf] = []
    outliers: list[Outlier] = []
    for gpu, members in sorted(peers.items()):
        for n in sorted(members, key=lambda r: r.node):
            medians: dict[str, float] = {}
            for m in PERF_METRICS:
                others = [o.perf[m] for o in members if o is not n and m in o.perf]
                if m in n.perf and others:
                    medians[m] = statistics.median(others)
            entry = NodePerf(n.node, gpu, dict(n.perf), medians)
            perf.append(entry)
            low = [m for m in PERF_METRICS if (r := entry.ratio(m)) is not None and r < threshold]
            if low:
                # NOTE: one outlier per node, led by the charted metric when it is among the low ones.
                low.sort(key=lambda m: m != metric)
                peers_n = sum(1 for o in members if o is not n and low[0] in o.perf)
                said = [f"{METRIC_LABELS[m]} {n.perf[m]:.1f} is {entry.ratio(m) or 0:.0%} of the peer median "
                        f"{medians[m]:.1f}" for m in low]
                outliers.append(Outlier(
                    n.node, "perf", f"{'; '.join(said)} ({peers_n} other {gpu} node(s); threshold {threshold:.0%})",
                    f"{n.perf[low[0]]:.1f}", f"{medians[low[0]]:.1f}"))
    return perf, metric, outliers


def _count_findings(nodes: Sequence[NodeResult]) -> list[FindingCount]:
    seen: dict[tuple[str, str, Severity, str | None], tuple[str, list[str]]] = {}
    for n in nodes:
        for f in n.findings:
            key = (f.origin, f.code, f.severity, f.subject)
            _message, members = seen.setdefault(key, (f.message, []))
            if n.node not in members:
                members.append(n.node)
    counts = [FindingCount(code, sev, subject, origin, message, tuple(sorted(members)))
              for (origin, code, sev, subject), (message, members) in seen.items()]
    return sorted(counts, key=lambda c: (-len(c.nodes), -c.severity, c.code, c.subject or ""))


def analyse(results: Sequence[NodeResult], problems: Sequence[Problem] = (), *,
            perf_threshold: float = DEFAULT_PERF_THRESHOLD, files: int | None = None, source: str = "") -> FleetReport:
    """Group, count and compare the nodes read (pure)."""
    merged, merge_problems = _merge(list(results))
    nodes = sorted(merged, key=lambda n: n.node)
    groups = fleet([(n.node, n.fingerprint) for n in nodes if n.fingerprint is not None])
    outliers = _group_outliers(groups)
    majority: dict[str, str | None] = {}
    for kind, label in (("driver", "driver"), ("cudnn", "cuDNN")):
        values = {n.node: v for n in nodes if (v := getattr(n, kind)) is not None}
        majority[kind], odd = _fact_outliers(kind, label, values)
        outliers.extend(odd)
    # NOTE: one DDP run trains one model: every node that finished it holds the same weights.
    weights = {n.node: w for n in nodes if n.ddp is not None and n.ddp.status == "passed" and (w := n.ddp.weights)}
    _weights, odd = _fact_outliers("ddp", "DDP weights digest", {k: v[:16] for k, v in weights.items()})
    outliers.extend(odd)
    perf, metric, slow = _perf(nodes, perf_threshold)
    outliers.extend(slow)
    order = {"fingerprint": 0, "driver": 1, "cudnn": 2, "ddp": 3, "perf": 4}
    all_problems = sorted([*problems, *merge_problems], key=lambda p: (p.file, p.kind, p.message))
    return FleetReport(
        nodes=tuple(nodes), groups=groups, findings=tuple(_count_findings(nodes)),
        outliers=tuple(sorted(outliers, key=lambda o: (o.node, order.get(o.kind, 9), o.reason))),
        perf=tuple(perf), perf_metric=metric, perf_threshold=perf_threshold, majority=majority,
        problems=tuple(all_problems), files=files if files is not None else len(results), source=source,
    )


def read_results(paths: Sequence[str | os.PathLike[str]], *, root: str | os.PathLike[str] | None = None,
                 perf_threshold: float = DEFAULT_PERF_THRESHOLD) -> FleetReport:
    """Read every file and analyse the fleet; a bad file is a Problem entry, never an exception."""
    results: list[NodeResult] = []
    problems: list[Problem] = []
    for path in paths:
        result, found = read_file(path, root=root)
        problems.extend(found)
        if result is not None:
            results.append(result)
    return analyse(results, problems, perf_threshold=perf_threshold, files=len(paths),
                   source=str(root) if root is not None else "")
