"""Use cases (check, snapshot): wire probes, rules and matrices together; return results, never print."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
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
    from envguard.lock.render import LockOutcome
    from envguard.lock.request import HostFacts
    from envguard.lock.spec import LockSpec
    from envguard.lock.verify import VerifyResult
    from envguard.preflight import PreflightResult
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


def write_files(
    out_dir: str, files: Sequence[tuple[str, str]], *, force: bool, option: str = "-o",
) -> tuple[str, ...]:
    """Write (relative path, text) pairs under ``out_dir``, each atomically; every target is checked before the
    first is written, so a refusal writes nothing. ``option`` names the flag in messages ("-o", "--out").

    :raises InputError: a target exists (without ``force``) or is a folder, or a path cannot be created.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{option} {out_dir} is not a folder")
    targets = [out / name for name, _text in files]
    for target in targets:
        if target.is_dir():
            raise InputError(f"{target} is a directory")
        blocked = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        if blocked is not None:
            where = f"{option} {out_dir}" if blocked == out or blocked in out.parents else str(target)
            raise InputError(f"cannot create {where}: {blocked} is not a folder")
    existing = [str(t) for t in targets if t.exists()]
    if existing and not force:
        raise InputError(f"{', '.join(existing)} exist(s); use --force to overwrite (nothing was written)")
    written = []
    for (_name, text), target in zip(files, targets, strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            where = f"{option} {out_dir}" if target.parent == out else str(target.parent)
            raise InputError(f"cannot create {where}: {exc.strerror or exc}") from None
        write_atomic(str(target), text, force=force)
        written.append(str(target))
    return tuple(written)


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


# ---- lock / verify / image -----------------------------------------------------------------

LOCK_FORMATS = ("pip", "conda", "docker", "json")


@dataclass(frozen=True, slots=True)
class LockOptions:
    """What `envguard lock` was asked to do."""

    requirements: tuple[str, ...] = ()
    requirement_files: tuple[str, ...] = ()
    pyproject: str | None = None
    from_current: bool = False
    #: An interpreter (path, venv folder, name on PATH) or a version ("3.11").
    python: str = ""
    #: "auto", "cpu", "X.Y", or None: auto for a request, the installed build for --from-current.
    cuda: str | None = None
    platform: str | None = None
    formats: tuple[str, ...] = LOCK_FORMATS
    output_dir: str = "."
    force: bool = False
    dry_run: bool = False
    resolver: str = "auto"
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    base_image: str | None = None
    wheelhouse: str | None = None
    build: bool = False
    tag: str | None = None
    timeout_s: float = 600.0
    #: The bytes of stdin when a requirements file is "-".
    stdin: bytes | None = None


def _interpreter_facts(exe: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(X.Y.Z, "linux-x86_64") of an interpreter."""
    from envguard import _subprocess

    probe = ("import sys, platform; print('%d.%d.%d' % sys.version_info[:3], sys.platform, platform.machine())")
    result = _subprocess.run((exe, "-c", probe), timeout=60.0, env=dict(env))
    if not result.ok:
        raise TargetPythonError(f"cannot run {exe}: {result.describe_failure()}")
    version, system, machine = [*result.stdout.split(), "", "", ""][:3]
    return version, _platform_tag(system, machine)


def _platform_tag(system: str, machine: str) -> str:
    """("linux", "AMD64") → "linux-x86_64": the lock's platform names."""
    return f"{system}-{machine.lower().replace('amd64', 'x86_64').replace('arm64', 'aarch64')}"


def _host_facts(environ: Mapping[str, str]) -> HostFacts:
    from envguard.lock.request import HostFacts
    from envguard.probes import collect_machine
    from envguard.snapshot import DriverInfo as _Driver

    _host, driver, gpus, _notes = collect_machine(ProbeContext(env=dict(environ), target_python=sys.executable))
    version = driver.version if isinstance(driver, _Driver) else None
    ccs = tuple(sorted({g.compute_capability for g in gpus if g.compute_capability})) if isinstance(gpus, tuple) \
        else ()
    return HostFacts(version, ccs)


def lock(options: LockOptions, env: Mapping[str, str] | None = None) -> LockOutcome:
    """Resolve, render and (unless --dry-run) write the lock files; optionally build the image.

    :raises EnvguardError: bad input, no build fits, resolver failure, existing files without --force.
    """
    import hashlib
    import platform as _platform
    import re

    from envguard import _subprocess
    from envguard._version import __version__
    from envguard.errors import LockError
    from envguard.lock import render as _render
    from envguard.lock import request as _request
    from envguard.lock.resolve import ResolveRequest, choose_resolver
    from envguard.lock.spec import LockSpec as _Spec
    from envguard.probes.installed import installed_distributions

    environ = dict(os.environ if env is None else env)
    mats = load_matrices(env=environ)
    unknown = [f for f in options.formats if f not in LOCK_FORMATS]
    if unknown or not options.formats:
        raise LockError(f"--format {','.join(unknown) or '(empty)'}: choose from {','.join(LOCK_FORMATS)}")
    if options.build and "docker" not in options.formats:
        raise LockError("--build needs the docker format (--format docker,...)")
    if options.wheelhouse and not Path(options.wheelhouse).is_dir():
        raise InputError(f"--wheelhouse {options.wheelhouse} is not a folder")
    docker_opts = _render.DockerOptions(options.base_image, bool(options.wheelhouse))
    if options.base_image:
        _render.check_image_ref(options.base_image)
    if options.tag:
        _render.check_image_ref(options.tag)
    from envguard.lock.spec import check_url

    if options.index_url:
        check_url(options.index_url, "--index-url")
    skipped: tuple[tuple[str, str], ...] = ()
    interpreter: str | None = None
    python_text = options.python or sys.executable
    if options.from_current:
        if options.requirements or options.requirement_files or options.pyproject:
            raise LockError("--from-current locks what is installed; do not also give requirements")
        exe = resolve_python(python_text, environ)
        ctx = ProbeContext(env=environ, target_python=exe)
        version, installed = installed_distributions(ctx)
        pins, skipped = _request.current_requirements(installed)
        reqs = _request.parse_requirements(pins, f"installed packages of {exe}")
        cuda = options.cuda or _request.current_cuda(mats, installed)
        interpreter = exe
        _v, plat = _interpreter_facts(exe, environ)
    else:
        reqs = _request.parse_requirements(options.requirements, "command line")
        for path in options.requirement_files:
            text, name = read_text_input(path, stdin=options.stdin, what="requirements file")
            reqs += _request.parse_requirements(text.splitlines(), name)
        if options.pyproject:
            text, name = read_text_input(options.pyproject, what="pyproject.toml")
            reqs += _request.requirements_from_pyproject(text, name)
        cuda = options.cuda or "auto"
        if re.fullmatch(r"\d+\.\d+(\.\d+)?", python_text.strip()):
            version = python_text.strip()
            plat = _platform_tag("linux", _platform.machine())
        else:
            interpreter = resolve_python(python_text, environ)
            version, plat = _interpreter_facts(interpreter, environ)
    python = _request.python_minor(version)
    platform_ = options.platform or plat
    names = {r.name.lower() for r in reqs}
    host = _host_facts(environ) if cuda == "auto" and names & {"torch", "torchvision", "torchaudio"} else None
    plan = _request.plan(mats, reqs, python=python, platform=platform_, cuda=cuda, host=host,
                         extra_index_urls=options.extra_index_urls)
    resolver = choose_resolver(options.resolver, environ, _subprocess.run)
    native = interpreter if interpreter and platform_ == plat and _request.python_minor(version) == python else None
    request = ResolveRequest(
        requirements=plan.requirements, python=python, platform=platform_,
        extra_index_urls=tuple(i.url for i in plan.indexes) + tuple(options.extra_index_urls),
        index_url=options.index_url, find_links=tuple(os.path.abspath(f) for f in options.find_links),
        no_index=options.no_index, interpreter=native, timeout_s=options.timeout_s,
    )
    resolution = resolver.resolve(request, _subprocess.run)
    _request.check_resolution(plan, resolution.packages)
    from envguard.lock.spec import IndexUse

    indexes = plan.indexes + tuple(IndexUse(u, "--extra-index-url") for u in options.extra_index_urls)
    if options.index_url:
        indexes = (IndexUse(options.index_url, "--index-url"), *indexes)
    spec = _Spec(
        target=plan.target, packages=resolution.packages, indexes=indexes,
        mode="current" if options.from_current else "request",
        requirements=tuple(str(r) for r in reqs), resolver=resolution.resolver, envguard_version=__version__,
        matrices=tuple(m.describe() for m in (mats.torch.meta, mats.cuda_driver.meta, mats.cuda_images.meta)),
        skipped=skipped,
    )
    files = _render.render(spec, mats, tuple(options.formats), docker_opts)
    wheels: list[tuple[str, str]] = []
    if options.wheelhouse and "docker" in options.formats:
        wanted = {h.removeprefix("sha256:") for p in spec.packages for h in p.hashes}
        found: set[str] = set()
        for entry in sorted(Path(options.wheelhouse).iterdir()):
            if entry.is_file() and entry.suffix in (".whl", ".gz", ".zip"):
                # NOTE: in chunks: CUDA wheels are gigabytes.
                sha = hashlib.sha256()
                try:
                    with entry.open("rb") as fh:
                        while chunk := fh.read(1 << 20):
                            sha.update(chunk)
                except OSError as exc:
                    raise InputError(f"cannot read {entry}: {exc.strerror or exc}") from None
                digest = sha.hexdigest()
                if digest in wanted:
                    wheels.append((str(entry), digest))
                    found.add(digest)
        lacking = [f"{p.name}=={p.version}" for p in spec.packages
                   if not any(h.removeprefix("sha256:") in found for h in p.hashes)]
        if lacking:
            raise LockError(f"--wheelhouse {options.wheelhouse} has no file matching the locked hash of "
                            f"{', '.join(lacking[:5])}")
    if options.dry_run:
        return _render.LockOutcome(spec, files, (), plan.reasons, tuple(w for w, _ in wheels))
    from envguard import engine

    # NOTE: before writing, so that --build without an engine leaves nothing behind.
    client = engine.connect() if options.build else None
    out_dir = Path(options.output_dir)
    written = write_files(str(out_dir), [(f.name, f.text) for f in files], force=options.force)
    if wheels:
        import shutil

        house = out_dir / "wheelhouse"
        try:
            house.mkdir(exist_ok=True)
            for path, _digest in wheels:
                shutil.copy2(path, house / Path(path).name)
        except OSError as exc:
            raise InputError(f"cannot copy the locked files into {house}: {exc.strerror or exc}") from None
    image = None
    if client is not None:
        tag = options.tag or f"envguard-lock:{spec.fingerprint.removeprefix('sha256:')[:12]}"
        args = {"BASE_IMAGE": options.base_image} if options.base_image else {}
        built = engine.build(client, str(out_dir), tag=tag, buildargs=args, timeout_s=max(options.timeout_s, 1800))
        image = _render.BuiltImage(built.tag, built.image_id, built.duration_s)
    return _render.LockOutcome(spec, files, written, plan.reasons, tuple(w for w, _ in wheels), image)


def read_lock(path: str) -> tuple[LockSpec, str]:
    """envguard.lock.json (or a folder holding one), validated.

    :raises InputError: unreadable, not JSON, or not a valid lock.
    """
    from envguard.lock.spec import LOCK_JSON
    from envguard.lock.spec import LockSpec as _Spec

    p = Path(path)
    if p.is_dir():
        p = p / LOCK_JSON
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p} does not exist") from None
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{p} is not JSON: verify reads the envguard.lock.json that `envguard lock` "
                         "writes (--format json)") from None
    return _Spec.from_dict(doc, str(p)), str(p)


def verify(lock_path: str, python: str, *, records: bool = True, ignore: tuple[str, ...] = (),
           env: Mapping[str, str] | None = None) -> VerifyResult:
    """Compare the target interpreter's environment (and this machine's driver) with a lock."""
    from envguard.lock.verify import compare
    from envguard.probes.installed import installed_distributions
    from envguard.probes.nvidia import probe_nvidia

    environ = dict(os.environ if env is None else env)
    spec, name = read_lock(lock_path)
    exe = resolve_python(python, environ)
    ctx = ProbeContext(env=environ, target_python=exe)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-driver") as pool:
        driver_future = pool.submit(probe_nvidia, ctx) if spec.target.cuda else None
        version, installed = installed_distributions(ctx, records=records, only=[p.key for p in spec.packages])
        driver = driver_future.result()[0] if driver_future is not None else None
    return compare(spec, installed, python=version, interpreter=exe, driver=driver, lock_name=name, ignore=ignore)


def check_image(ref: str, *, timeout_s: float = 120.0, env: Mapping[str, str] | None = None,
                matrices: Matrices | None = None) -> Report:
    """Judge a local container image against this host's driver and Docker engine.

    Python and frameworks come from the in-target script run inside a network-less container, the CUDA
    libraries from the image's ``ldconfig -p`` and wheels, the driver and GPUs from this host.
    """
    from envguard import engine
    from envguard._version import __version__
    from envguard.lock.render import check_image_ref
    from envguard.probes import collect_machine
    from envguard.probes.cuda import libraries_in_image
    from envguard.probes.target import decode_target_report
    from envguard.resources import script_source
    from envguard.rules import ALL_RULES
    from envguard.rules.image import image_findings
    from envguard.snapshot import CudaToolkit, Unavailable

    check_image_ref(ref)
    environ = dict(os.environ if env is None else env)
    mats = matrices if matrices is not None else load_matrices(env=environ)
    client = engine.connect()
    image = engine.inspect_image(client, ref)
    facts = engine.engine_facts(client)
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="envguard-image") as pool:
        f_host = pool.submit(collect_machine, ProbeContext(env=environ, target_python=sys.executable))
        f_ld = pool.submit(engine.run_in_image, client, ref, ["-p"], entrypoint=["ldconfig"], timeout_s=timeout_s)
        out = engine.run_script(client, ref, script_source("envguard.probes", "_inspect_target.py"),
                                timeout_s=timeout_s)
        host, driver, gpus, notes = f_host.result()
        try:
            ld_status, ld_out, _ld_err = f_ld.result()
        except engine.EngineError as exc:
            ld_status, ld_out = 1, ""
            notes += (f"ldconfig in the image: {exc}",)
    try:
        doc = json.loads(out.strip().splitlines()[-1])
        target = decode_target_report(doc)
    except (json.JSONDecodeError, IndexError, KeyError, TypeError) as exc:
        raise TargetPythonError(f"the inspection script printed no report in {ref}: {exc}") from None
    cuda_version = image.env.get("CUDA_VERSION")
    toolkits: tuple[CudaToolkit, ...] | Unavailable
    if cuda_version:
        parts = cuda_version.split(".")
        toolkits = (CudaToolkit(".".join(parts[:2]), "/usr/local/cuda", "image env CUDA_VERSION",
                                build=cuda_version),)
    else:
        toolkits = Unavailable("the image sets no CUDA_VERSION", ("image env",))
    libraries = libraries_in_image(ld_out if ld_status == 0 else "", target.wheel_files)
    snapshot = Snapshot(
        host=host, driver=driver, gpus=gpus, python=target.python, packages=target.packages,
        frameworks=target.frameworks, cuda_toolkits=toolkits, libraries=libraries,
        cudnn=Unavailable("not read inside images"), nccl=Unavailable("not read inside images"),
        environment={k: v for k, v in sorted(image.env.items()) if k.startswith(("NVIDIA_", "CUDA_", "NV_"))},
        origin=f"image {ref}", envguard_version=__version__,
    )
    report = run_rules(snapshot, mats, ALL_RULES, notes=notes)
    extra = tuple(f for f in image_findings(image, facts, snapshot) if f not in report.findings)
    findings = tuple(sorted((*report.findings, *extra), key=lambda f: -f.severity))
    notes_out = (*report.notes, f"image {ref} ({image.id[:19]}), engine {facts.server_version}: runtimes "
                 f"{', '.join(facts.runtimes) or 'none'}")
    return dataclasses.replace(report, findings=findings, notes=notes_out)


# ---- preflight -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreflightOptions:
    """What `envguard preflight` was asked to do."""

    target_python: str
    lock: str | None = None
    #: Look for ./envguard.lock.json when no --lock is given.
    find_lock: bool = True
    smoke_level: int = 1
    deep: bool = False
    budget_s: float | None = None
    fail_on: str = "error"
    timeout_s: float = 10.0
    smoke_timeout_s: float | None = None
    device: str = "auto"
    verify_files: bool = True


def preflight(options: PreflightOptions, env: Mapping[str, str] | None = None) -> PreflightResult:
    """check, then verify (when a lock is given or found), then smoke; a step that cannot run is recorded,
    not raised, so the gate always reports every step."""
    import socket
    import time

    from envguard.errors import EnvguardError
    from envguard.findings import Severity
    from envguard.fingerprints import fingerprint_of
    from envguard.lock.spec import LOCK_JSON
    from envguard.preflight import PreflightResult as _Result
    from envguard.preflight import StepOutcome, fits, node_name, plan_steps
    from envguard.smoke import DistOptions, select_cases

    environ = dict(os.environ if env is None else env)
    start = time.monotonic()
    lock = options.lock
    if lock is None and options.find_lock and Path(LOCK_JSON).is_file():
        lock = LOCK_JSON
    steps: list[StepOutcome] = []
    report = verify_result = run = fingerprint = None
    for step in plan_steps(verify=lock is not None, smoke_level=options.smoke_level, deep=options.deep):
        elapsed = time.monotonic() - start
        reason = fits(step, elapsed, options.budget_s)
        if reason is not None:
            steps.append(StepOutcome(step, "skipped", reason))
            continue
        t0 = time.monotonic()
        try:
            if step.startswith("check"):
                report = check(ProbeOptions(options.target_python, options.deep, options.timeout_s), env=environ)
            elif step == "verify":
                assert lock is not None  # reason: plan_steps adds verify only with a lock
                verify_result = verify(lock, options.target_python, records=options.verify_files, env=environ)
            else:
                level = options.smoke_level
                run, fingerprint = smoke(ProbeOptions(options.target_python, timeout_s=options.timeout_s),
                                         level=level, cases=select_cases(level), timeout_s=options.smoke_timeout_s,
                                         device=options.device, dist=DistOptions(), env=environ)
        except EnvguardError as exc:
            steps.append(StepOutcome(step, "error", str(exc), time.monotonic() - t0))
            continue
        steps.append(StepOutcome(step, "ran", "", time.monotonic() - t0))
    if fingerprint is None and report is not None:
        fingerprint = fingerprint_of(report.snapshot)
    return _Result(node=node_name(environ, socket.gethostname()), steps=tuple(steps), report=report,
                   verify=verify_result, smoke=run,
                   fingerprint=fingerprint, fail_on=Severity.parse(options.fail_on),
                   wall_s=time.monotonic() - start)


PREFLIGHT_FILES = ("preflight.json", "junit.xml", "summary.md", "fingerprint.json")


def check_preflight_out(out_dir: str, *, force: bool) -> None:
    """Refuse early (before the steps run) when --out holds earlier results and --force is not given.

    :raises InputError: when --out is a file or would be overwritten.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out_dir} is not a folder")
    existing = [str(out / n) for n in PREFLIGHT_FILES if (out / n).exists()]
    if existing and not force:
        raise InputError(f"{', '.join(existing)} exist(s); use --force to overwrite (nothing was run or written)")


def write_preflight(result: PreflightResult, out_dir: str, *, force: bool,
                    env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Write preflight.json, junit.xml, summary.md and fingerprint.json into ``out_dir`` (atomically; refuses to
    overwrite without ``force``), and append the summary to $GITHUB_STEP_SUMMARY when it is set."""
    from envguard.formatters.preflight import preflight_json, preflight_junit, preflight_markdown

    environ = os.environ if env is None else env
    files = {"preflight.json": preflight_json(result), "junit.xml": preflight_junit(result),
             "summary.md": preflight_markdown(result)}
    if result.fingerprint is not None:
        files["fingerprint.json"] = fingerprint_json(result.fingerprint)
    written = write_files(out_dir, list(files.items()), force=force, option="--out")
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(files["summary.md"])
        except OSError as exc:
            raise InputError(f"cannot append to GITHUB_STEP_SUMMARY {summary}: {exc.strerror or exc}") from None
    return written


# ---- fleet report ----------------------------------------------------------------------------

if TYPE_CHECKING:
    from envguard.fleet import FleetReport


def fleet_report(directory: str, *, perf_threshold: float | None = None) -> FleetReport:
    """Read every ``*.json`` result in ``directory``, its immediate subfolders and their ``ddp/`` folders (see
    fleet.result_paths), and analyse the fleet.

    A bad file is a problem entry in the report, never an error; an empty folder is a report without nodes.

    :raises InputError: when ``directory`` is not a folder or cannot be listed.
    """
    from envguard.fleet import DEFAULT_PERF_THRESHOLD, Problem, analyse, read_results, result_paths

    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{directory} is not a folder (give the folder that holds the nodes' JSON results)")
    threshold = DEFAULT_PERF_THRESHOLD if perf_threshold is None else perf_threshold
    try:
        paths = result_paths(root)
    except OSError as exc:
        raise InputError(f"cannot list {directory}: {exc.strerror or exc}") from None
    if not paths:
        return analyse([], [Problem(directory, "no *.json files in the folder or its subfolders")],
                       perf_threshold=threshold, files=0, source=directory)
    return read_results(paths, root=root, perf_threshold=threshold)


# ---- init: CI workflows and fleet launchers --------------------------------------------------------

if TYPE_CHECKING:
    from envguard.scaffold import CiOptions, FleetOptions, ScaffoldFile


def render_ci(kinds: Sequence[str], options: CiOptions) -> tuple[ScaffoldFile, ...]:
    """The `envguard init ci` files (validated, rendered, not written).

    :raises InputError: an unknown kind or a bad option value.
    """
    from envguard.scaffold import render_ci as _render_ci

    return _render_ci(kinds, options)


def render_fleet(kind: str, options: FleetOptions) -> tuple[ScaffoldFile, ...]:
    """The `envguard init fleet` file (validated, rendered, not written).

    :raises InputError: an unknown kind or a bad option value.
    """
    from envguard.scaffold import render_fleet as _render_fleet

    return _render_fleet(kind, options)


def write_scaffold(files: Sequence[ScaffoldFile], out_dir: str, *, force: bool) -> tuple[str, ...]:
    """Write rendered files under ``out_dir`` (see write_files)."""
    return write_files(out_dir, [(f.path, f.text) for f in files], force=force)


def init_ci(kinds: Sequence[str], out_dir: str, force: bool, options: CiOptions) -> tuple[str, ...]:
    """Render and write the CI files for ``kinds`` (github, gitlab, pre-commit) under ``out_dir``."""
    return write_scaffold(render_ci(kinds, options), out_dir, force=force)


def init_fleet(kind: str, out_dir: str, force: bool, options: FleetOptions) -> tuple[str, ...]:
    """Render and write the fleet launcher for ``kind`` (slurm, kubernetes) under ``out_dir``."""
    return write_scaffold(render_fleet(kind, options), out_dir, force=force)
