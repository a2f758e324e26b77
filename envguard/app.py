"""Use cases (check, snapshot): wire probes, rules and matrices together; return results, never print."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envguard.errors import InputError, SnapshotError, TargetPythonError
from envguard.findings import Report
from envguard.matrix import Matrices, load_matrices
from envguard.probes import ProbeContext, collect_snapshot
from envguard.rules import run_rules
from envguard.snapshot import Snapshot

if TYPE_CHECKING:
    # NOTE: imported where used, so that `envguard check` does not pay for smoke, queries and fingerprints.
    from envguard.fingerprints import Fingerprint
    from envguard.query import CudaAnswer, TorchCandidate
    from envguard.rules.signatures import Explanation
    from envguard.smoke import DistOptions
    from envguard.smoke.base import SmokeResult, SmokeRun

#: Largest snapshot file envguard reads (a real one is tens of kB).
MAX_SNAPSHOT_BYTES = 32 << 20


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    """What the user asked the probes to do."""

    target_python: str
    deep: bool = False
    timeout_s: float = 10.0


def resolve_python(target: str, env: Mapping[str, str]) -> str:
    """An interpreter path from ``--python`` (a path, or a name on PATH).

    :raises TargetPythonError: when it does not exist.
    """
    import shutil

    if os.sep in target or (os.altsep and os.altsep in target) or Path(target).expanduser().is_dir():
        path = Path(target).expanduser()
        if path.is_dir():  # a virtual environment folder
            for candidate in (path / "bin" / "python", path / "Scripts" / "python.exe"):
                if candidate.exists():
                    return os.path.abspath(candidate)
            raise TargetPythonError(f"{target} is a folder without bin/python: not a virtual environment")
        if not path.exists():
            raise TargetPythonError(f"target interpreter {target} does not exist")
        # NOTE: absolute, because the target runs with a fresh temporary working directory.
        return os.path.abspath(path)
    found = shutil.which(target, path=env.get("PATH"))
    if found is None:
        raise TargetPythonError(f"target interpreter {target!r} is not on PATH")
    return found


def take_snapshot(options: ProbeOptions, env: Mapping[str, str] | None = None) -> tuple[Snapshot, tuple[str, ...]]:
    """Probe this machine and the target interpreter."""
    environ = dict(os.environ if env is None else env)
    ctx = ProbeContext(env=environ, target_python=resolve_python(options.target_python, environ),
                       timeout_s=options.timeout_s, deep=options.deep)
    return collect_snapshot(ctx)


def check(
    options: ProbeOptions,
    *,
    snapshot_file: str | None = None,
    matrices: Matrices | None = None,
    env: Mapping[str, str] | None = None,
) -> Report:
    """Probe (or read a saved snapshot) and judge it against the matrices."""
    mats = matrices if matrices is not None else load_matrices(env=dict(os.environ if env is None else env))
    notes: tuple[str, ...] = ()
    if snapshot_file is not None:
        snapshot = read_snapshot(snapshot_file)
    else:
        # NOTE: probing mostly waits on subprocesses; parse the matrices every check consults meanwhile.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-matrices") as pool:
            warm = pool.submit(lambda: (mats.cuda_driver, mats.torch, mats.tensorflow, mats.gpu_arch))
            snapshot, notes = take_snapshot(options, env)
            warm.result()
    return run_rules(snapshot, mats, notes=notes)


def read_text_input(path: str, *, stdin: bytes | None = None, what: str = "report") -> tuple[str, str]:
    """(text, name) of a file, or of stdin when ``path`` is "-" (``stdin`` holds its bytes).

    :raises InputError: unreadable, a directory, or too large.
    """
    from envguard.probes.report import MAX_REPORT_CHARS

    if path == "-":
        raw, name = stdin or b"", "<stdin>"
    else:
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_REPORT_CHARS + 1)
        except OSError as exc:
            raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
        name = path
    if len(raw) > MAX_REPORT_CHARS:
        raise InputError(f"{name} is larger than {MAX_REPORT_CHARS >> 20} MiB: not a {what}")
    if not raw.strip():
        raise InputError(f"{name} is empty")
    if b"\x00" in raw[:65536]:
        raise InputError(f"{name} is a binary file, not a text {what}")
    return raw.decode("utf-8", errors="replace"), name


def check_report(text: str, name: str, matrices: Matrices | None = None) -> Report:
    """Diagnose a pasted report (collect_env, TF template, nvidia-smi, pip lines, logs, envguard JSON).

    :raises SnapshotError: when the text holds no environment fact.
    """
    from envguard.probes.report import parse_report

    snapshot, notes = parse_report(text, name)
    return run_rules(snapshot, matrices if matrices is not None else load_matrices(), notes=notes)


def judge(snapshot: Snapshot, matrices: Matrices | None = None) -> Report:
    """Judge an already-loaded snapshot."""
    return run_rules(snapshot, matrices if matrices is not None else load_matrices())


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot JSON file (``-`` is not accepted here; the CLI reads stdin itself).

    :raises SnapshotError: unreadable, not JSON, truncated, or of an unknown schema version.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SNAPSHOT_BYTES + 1)
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(f"{path} is larger than {MAX_SNAPSHOT_BYTES >> 20} MiB: not an envguard snapshot")
    return parse_snapshot(raw, path)


def parse_snapshot(raw: bytes, name: str) -> Snapshot:
    """Decode snapshot bytes; the error names the file.

    :raises SnapshotError: when the bytes are not a supported snapshot.
    """
    if not raw.strip():
        raise SnapshotError(f"{name} is empty: not an envguard snapshot")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{name} is not UTF-8 text: not an envguard snapshot") from exc
    except json.JSONDecodeError as exc:
        hint = " (truncated?)" if exc.pos >= len(raw.rstrip()) - 1 else ""
        raise SnapshotError(f"{name} is not valid JSON{hint}: {exc.msg} at line {exc.lineno}") from exc
    if isinstance(data, dict) and "snapshot" in data and "envguard_result_version" in data:
        data = data["snapshot"]  # a saved `check --format json` envelope carries the snapshot
    try:
        snapshot = Snapshot.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from exc
    return dataclasses.replace(snapshot, origin=f"snapshot {name}, taken by {snapshot.origin}")


def snapshot_json(snapshot: Snapshot) -> str:
    """The canonical snapshot file text."""
    return json.dumps(snapshot.to_dict(), indent=2, sort_keys=True) + "\n"


def write_atomic(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` via a temp file and rename; refuse to overwrite without ``force``.

    :raises InputError: when the file exists and ``force`` is false, or it cannot be written.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{path} is a directory")
    if target.exists() and not force:
        raise InputError(f"{path} exists; use --force to overwrite it")
    directory = target.parent if str(target.parent) else Path()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        # NOTE: mkstemp creates 0600 files; give the result the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def explain_text(
    text: str, *, report_file: str | None = None, snapshot_file: str | None = None, probe: ProbeOptions | None = None,
) -> Explanation:
    """Recognise error messages in ``text``; check each cause against a report, a snapshot or this machine."""
    from envguard.probes.report import normalize_report
    from envguard.rules.signatures import explain

    matrices = load_matrices()
    facts: Report | None = None
    if report_file is not None:
        facts = check_report(*read_text_input(report_file), matrices)
    elif snapshot_file is not None:
        facts = run_rules(read_snapshot(snapshot_file), matrices)
    elif probe is not None:
        facts = check(probe, matrices=matrices)
    return explain(normalize_report(text), matrices, facts)


def matrix_torch(
    *, driver: str | None, gpu: str | None, cc: str | None, python: str | None, system: str,
) -> tuple[tuple[TorchCandidate, ...], str | None]:
    """torch candidates for the constraints, and the compute capability the GPU resolved to."""
    from envguard.query import resolve_gpu, torch_candidates

    matrices = load_matrices()
    resolved, _how = resolve_gpu(matrices, gpu, cc)
    return torch_candidates(matrices, driver=driver, cc=resolved, python=python, system=system), resolved


def matrix_cuda(driver: str, system: str) -> CudaAnswer:
    """What CUDA a driver runs."""
    from envguard.query import cuda_for_driver

    return cuda_for_driver(load_matrices(), driver, system)


# ---- smoke and fingerprints -----------------------------------------------------------------------


def smoke(
    probe: ProbeOptions,
    *,
    level: int,
    cases: tuple[str, ...],
    timeout_s: float | None,
    device: str,
    dist: DistOptions,
    on_event: Callable[[str, SmokeResult | None], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[SmokeRun, Fingerprint]:
    """Run the smoke suite in the target interpreter and fingerprint the environment with its results."""
    from envguard import _subprocess
    from envguard.fingerprints import fingerprint_of
    from envguard.probes.nvml import ThrottleSampler
    from envguard.smoke import SuiteOptions, run_suite
    from envguard.smoke.peaks import annotate as annotate_peaks

    environ = dict(os.environ if env is None else env)
    snapshot, _notes = take_snapshot(probe, environ)
    python = resolve_python(probe.target_python, environ)
    if dist.nproc_per_node is None:
        gpus = len(snapshot.gpu_list())
        dist = dataclasses.replace(dist, nproc_per_node=gpus if gpus >= 2 else 2)
    options = SuiteOptions(python, level, cases, timeout_s, device, dist, environ)
    sampler: list[ThrottleSampler] = []
    throttled: dict[str, tuple[str, ...]] = {}

    def watch(case: str, result: SmokeResult | None) -> None:
        # NOTE: clock-event reasons are sampled while the GPU-bound perf case runs, not after it.
        if case == "perf" and snapshot.gpu_list():
            if result is None:
                sampler.append(ThrottleSampler().start())
            elif sampler:
                reasons = sampler.pop().stop()
                if reasons:
                    throttled[case] = reasons
        if on_event is not None:
            on_event(case, result)

    run = run_suite(_subprocess.run, options, watch)
    run = annotate_peaks(run, snapshot, load_matrices(env=environ), throttled)
    return run, fingerprint_of(snapshot, run)


def environment_fingerprint(probe: ProbeOptions, env: Mapping[str, str] | None = None) -> Fingerprint:
    """The fingerprint of this machine and the target interpreter (no smoke results)."""
    from envguard.fingerprints import fingerprint_of

    snapshot, _notes = take_snapshot(probe, env)
    return fingerprint_of(snapshot)


def read_fingerprint(path: str) -> Fingerprint:
    """A fingerprint file, or a smoke JSON envelope that carries one.

    :raises InputError: unreadable, not JSON, or not a fingerprint.
    """
    from envguard.fingerprints import Fingerprint

    text, name = read_text_input(path, what="fingerprint")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    return Fingerprint.from_dict(data, name)


def fingerprint_json(fingerprint: Fingerprint) -> str:
    """The fingerprint file text."""
    return json.dumps(fingerprint.to_dict(), indent=2, sort_keys=True) + "\n"
