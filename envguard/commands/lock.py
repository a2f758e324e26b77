"""`envguard lock` and `envguard verify`: plan the build, resolve, render and write the lock; compare with it."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envguard._files import read_regular
from envguard.commands._io import read_text_input, write_files
from envguard.commands._probe import resolve_python
from envguard.errors import InputError, TargetPythonError
from envguard.knowledge import load_matrices
from envguard.probes.base import ProbeContext

if TYPE_CHECKING:
    from collections.abc import Mapping

    from packaging.requirements import Requirement

    from envguard.knowledge import Matrices
    from envguard.lock.render import LockOutcome
    from envguard.lock.request import HostFacts, LockPlan
    from envguard.lock.resolve import Resolution, Resolver, ResolveRequest
    from envguard.lock.spec import LockedPackage, LockSpec, LockTarget
    from envguard.lock.verify import VerifyResult


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
    #: --platform given more than once: one resolution each, merged (pins that differ carry a marker).
    platforms: tuple[str, ...] = ()
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
    #: Lock for other machines: snapshots (or folders of them) taken there, and manual facts.
    for_paths: tuple[str, ...] = ()
    driver: str | None = None
    gpus: tuple[str, ...] = ()
    ccs: tuple[str, ...] = ()
    os_tag: str | None = None
    constraint_files: tuple[str, ...] = ()
    #: Read each locked wheel's RECORD (ranged reads) and record its file digest, for `verify`.
    record_files: bool = False


def _interpreter_facts(exe: str, env: Mapping[str, str], timeout_s: float = 60.0) -> tuple[str, str]:
    """(X.Y.Z, "linux-x86_64") of an interpreter (this one's own answer when it is the same binary: a venv of
    it has the same version and machine)."""
    import platform

    from envguard import _subprocess

    try:
        same = os.path.samefile(os.path.realpath(exe), os.path.realpath(sys.executable))
    except OSError:
        same = False
    if same:
        return "{}.{}.{}".format(*sys.version_info[:3]), _platform_tag(sys.platform, platform.machine())

    probe = ("import sys, platform; print('%d.%d.%d' % sys.version_info[:3], sys.platform, platform.machine())")
    result = _subprocess.run((exe, "-c", probe), timeout=min(timeout_s, 60.0), env=dict(env))
    if not result.ok:
        from envguard.probes.target import not_python

        raise TargetPythonError(not_python(exe, result))
    version, system, machine = [*result.stdout.split(), "", "", ""][:3]
    return version, _platform_tag(system, machine)


def _platform_tag(system: str, machine: str) -> str:
    """("linux", "AMD64") → "linux-x86_64": the lock's platform names."""
    return f"{system}-{machine.lower().replace('amd64', 'x86_64').replace('arm64', 'aarch64')}"


def _target_facts(options: LockOptions, environ: Mapping[str, str], wanted: bool) -> HostFacts | None:
    """The machine(s) to lock for: --for snapshots and --driver/--gpu/--cc, else (when ``wanted``) this host."""
    from envguard.commands._io import read_snapshot
    from envguard.errors import LockError
    from envguard.lock import targets

    snaps = []
    for path in options.for_paths:
        p = Path(path)
        files = sorted(f for f in p.iterdir() if f.suffix == ".json" and f.is_file()) if p.is_dir() else [p]
        if not files:
            raise LockError(f"--for {path}: the folder holds no *.json snapshot")
        snaps += [(str(f), read_snapshot(str(f))) for f in files]
    base = targets.from_snapshots(snaps) if snaps else None
    facts = targets.manual(load_matrices(env=dict(environ)), driver=options.driver, gpus=options.gpus,
                           ccs=options.ccs, base=base)
    if facts is not None:
        return facts
    return _host_facts(environ) if wanted else None


def _host_facts(environ: Mapping[str, str]) -> HostFacts:
    from envguard.lock.request import HostFacts
    from envguard.probes.collect import collect_machine
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
    from dataclasses import replace

    from envguard import _subprocess
    from envguard._version import __version__
    from envguard.errors import LockError
    from envguard.lock import render as _render
    from envguard.lock import request as _request
    from envguard.lock.resolve import ResolveRequest, choose_resolver
    from envguard.lock.spec import LockSpec as _Spec
    from envguard.probes.installed import installed_state

    environ = dict(os.environ if env is None else env)
    mats = load_matrices(env=environ)
    unknown = [f for f in options.formats if f not in LOCK_FORMATS]
    if unknown or not options.formats:
        raise LockError(f"--format {','.join(unknown) or '(empty)'}: choose from {','.join(LOCK_FORMATS)}")
    if options.build and "docker" not in options.formats:
        raise LockError("--build needs the docker format (--format docker,...)")
    if options.wheelhouse and not Path(options.wheelhouse).is_dir():
        raise InputError(f"--wheelhouse {options.wheelhouse} is not a folder")
    if options.base_image:
        _render.check_image_ref(options.base_image)
    if options.tag:
        _render.check_image_ref(options.tag)
    from envguard.lock.spec import check_url

    if options.index_url:
        check_url(options.index_url, "--index-url")
    skipped: tuple[tuple[str, str], ...] = ()
    file_notes: tuple[str, ...] = ()
    file_constraints: tuple[str, ...] = ()
    interpreter: str | None = None
    python_text = options.python or sys.executable
    if options.from_current:
        if options.requirements or options.requirement_files or options.pyproject:
            raise LockError("--from-current locks what is installed; do not also give requirements")
        exe = resolve_python(python_text, environ)
        ctx = ProbeContext(env=environ, target_python=exe)
        # NOTE: --timeout bounds the interpreter's answers too (at most the 300 s a full listing may take).
        version, installed, _scan = installed_state(ctx, scan=True, timeout_s=min(options.timeout_s, 300.0))
        pins, skipped = _request.current_requirements(installed)
        reqs = _request.parse_requirements(pins, f"installed packages of {exe}")
        cuda = options.cuda or _request.current_cuda(mats, installed)
        interpreter = exe
        _v, plat = _interpreter_facts(exe, environ, options.timeout_s)
    else:
        reqs = _request.parse_requirements(options.requirements, "command line")
        for path in options.requirement_files:
            text, name = read_text_input(path, stdin=options.stdin, what="requirements file")
            folder = Path(path).parent if path != "-" else Path.cwd()

            def load(rel: str, folder: Path = folder) -> tuple[str, str]:
                return read_text_input(str(folder / os.path.expanduser(rel)), what="requirements file")

            rfile = _request.read_requirements_file(text, name, load)
            reqs += rfile.requirements
            file_notes += rfile.notes
            if rfile.index_url and options.index_url and rfile.index_url != options.index_url:
                raise LockError(f"{name} sets --index-url {rfile.index_url}, the command line {options.index_url}")
            options = replace(
                options, index_url=options.index_url or rfile.index_url,
                extra_index_urls=tuple(dict.fromkeys(options.extra_index_urls + rfile.extra_index_urls)),
                find_links=options.find_links + tuple(f if "://" in f else str(folder / f) for f in rfile.find_links),
                no_index=options.no_index or rfile.no_index)
            file_constraints += rfile.constraints
        if options.pyproject:
            text, name = read_text_input(options.pyproject, what="pyproject.toml")
            reqs += _request.requirements_from_pyproject(text, name)
        cuda = options.cuda or "auto"
        if re.fullmatch(r"\d+\.\d+(\.\d+)?", python_text.strip()):
            version = python_text.strip()
            _request.check_python_version(mats, version)
            plat = _platform_tag("linux", _platform.machine())
        else:
            interpreter = resolve_python(python_text, environ)
            version, plat = _interpreter_facts(interpreter, environ)
    python = _request.python_minor(version)
    platforms = tuple(dict.fromkeys(options.platforms or (options.platform or plat,)))
    all_reqs = reqs
    if len(platforms) == 1:
        reqs, dropped = _request.apply_markers(reqs, python, platforms[0])
        file_notes += dropped
    names = {r.name.lower() for r in reqs}
    frameworks = {"torch", "torchvision", "torchaudio", "tensorflow", "jax"}
    host = _target_facts(options, environ, cuda == "auto" and bool(names & frameworks))
    if options.os_tag and options.os_tag not in {o.tag for o in mats.cuda_images.oses}:
        raise LockError(f"--os {options.os_tag!r}: cuda-images.toml knows "
                        + ", ".join(o.tag for o in mats.cuda_images.oses))
    if options.index_url:
        check_url(options.index_url, "--index-url")
    constraints: tuple[str, ...] = file_constraints
    for path in options.constraint_files:
        text, name = read_text_input(path, what="constraints file")
        constraints += tuple(str(r) for r in _request.parse_requirements(text.splitlines(), name))
    per_platform = []
    for platform_ in platforms:
        # NOTE: with several platforms each resolves its own pins; requirements keep their markers (the
        # resolver evaluates them per platform) and the pins that differ get a platform marker.
        preqs = reqs if len(platforms) == 1 else _request.apply_markers(all_reqs, python, platform_)[0]
        plan = _request.plan(mats, preqs, python=python, platform=platform_, cuda=cuda, host=host,
                             extra_index_urls=options.extra_index_urls)
        native = interpreter if interpreter and platform_ == plat else None
        request = ResolveRequest(
            requirements=plan.requirements, python=python, platform=platform_,
            extra_index_urls=tuple(i.url for i in plan.indexes) + tuple(options.extra_index_urls),
            index_url=options.index_url, find_links=tuple(os.path.abspath(f) for f in options.find_links),
            no_index=options.no_index, interpreter=native, timeout_s=options.timeout_s, constraints=constraints,
        )
        try:
            resolver = choose_resolver(options.resolver, environ, _subprocess.run)
            resolution, target, checked = _resolve_built(resolver, request, plan, mats, host, preqs)
        except LockError as exc:
            from envguard.errors import PlannedLockError

            raise PlannedLockError(str(exc) if len(platforms) == 1 else f"{platform_}: {exc}", plan.to_dict()) \
                from None
        per_platform.append((platform_, plan, request, resolution, target, checked))
    platform_, plan, request, resolution, target, checked = per_platform[0]
    reasons = plan.reasons + checked + file_notes
    from envguard.lock.spec import IndexUse

    packages = resolution.packages
    if len(per_platform) > 1:
        from envguard.lock.multi import merge

        packages, target, indexes_extra, merged_why = merge(
            [(pf, t, r.packages, pl.indexes) for pf, pl, _rq, r, t, _c in per_platform])
        reasons = tuple(dict.fromkeys(reasons + tuple(x for *_r, c in per_platform for x in c) + merged_why))
        plan = replace(plan, indexes=indexes_extra)
    if options.from_current:
        from dataclasses import replace

        from packaging.utils import canonicalize_name

        digests: dict[str, str | None] = {str(canonicalize_name(d.name)): d.record.files_digest
                                          for d in installed if d.record is not None}
        packages = tuple(replace(p, files=digests.get(p.key)) for p in packages)
    elif options.record_files and len(per_platform) == 1:
        packages = _record_files(resolver, request, resolution, options.timeout_s)
    elif options.record_files:
        raise LockError("--record-files reads the wheels of one platform; give one --platform")
    from envguard._redact import redact_urls

    indexes = plan.indexes + tuple(IndexUse(redact_urls(u), "--extra-index-url") for u in options.extra_index_urls)
    if options.index_url:
        indexes = (IndexUse(redact_urls(options.index_url), "--index-url"), *indexes)
    spec = _Spec(
        target=target, packages=packages, indexes=indexes,
        mode="current" if options.from_current else "request",
        requirements=tuple(str(r) for r in (reqs if len(platforms) == 1 else all_reqs)),
        resolver=resolution.resolver, envguard_version=__version__,
        matrices=_tables_used(mats, plan, target, options.formats),
        skipped=skipped,
    )
    docker_opts = _render.DockerOptions(options.base_image, bool(options.wheelhouse), options.os_tag)
    if "docker" in options.formats:
        base = _render.choose_base_image(spec, mats, docker_opts).ref
        digest = _local_digest(base, environ)
        if digest:
            docker_opts = _render.DockerOptions(options.base_image, bool(options.wheelhouse), options.os_tag,
                                                ((base, digest),))
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
        return _render.LockOutcome(spec, files, (), reasons, tuple(w for w, _ in wheels), plan=plan.to_dict())
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
    return _render.LockOutcome(spec, files, written, reasons, tuple(w for w, _ in wheels), image, plan.to_dict())


def _record_files(resolver: Resolver, request: ResolveRequest, resolution: Resolution,
                  timeout_s: float) -> tuple[LockedPackage, ...]:
    """Each pin with the files digest of the RECORD in the wheel it installs on the lock's platform.

    :raises LockError: when a wheel's RECORD cannot be read (the lock would silently record less).
    """
    from dataclasses import replace

    from envguard import _subprocess
    from envguard.errors import LockError
    from envguard.lock import wheels

    urls = resolver.file_urls(request, resolution.packages, _subprocess.run, resolution)
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="envguard-record") as pool:
        found = {k: pool.submit(wheels.record_digest, u, timeout_s=min(timeout_s, 60.0)) for k, u in urls.items()}
        digests = {k: f.result() for k, f in found.items()}
    lacking = [p.name for p in resolution.packages if not digests.get(p.key)]
    if lacking:
        raise LockError(f"--record-files: the RECORD of {', '.join(lacking[:5])} could not be read from its wheel "
                        "(an sdist, or an index that serves neither ranges nor small files)")
    return tuple(replace(p, files=digests[p.key]) for p in resolution.packages)


#: Rounds of "exclude the mismatched companion and resolve again" before refusing.
_ROUNDS = 3


def _resolve_built(
    resolver: Resolver, request: ResolveRequest, plan: LockPlan, mats: Matrices, host: HostFacts | None,
    reqs: tuple[Requirement, ...],
) -> tuple[Resolution, LockTarget, tuple[str, ...]]:
    """Resolve, then check every companion against the chosen build from the wheels themselves; exclude a
    mismatched companion release and resolve again, or refuse: never a lock `envguard check` would fail.

    :raises LockError: the resolver's reason, or the mismatch that no re-resolution fixes.
    """
    from dataclasses import replace

    from envguard import _subprocess
    from envguard.errors import LockError
    from envguard.lock import companions
    from envguard.lock import request as _request

    reasons: list[str] = []
    newer = None
    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="envguard-lock") as pool:
        probe = _newest_probe(plan, reqs, mats)
        if probe is not None:
            newer = pool.submit(resolver.newest, request, probe, _subprocess.run)
        # NOTE: what comes after resolving is imported (and its tables parsed) while the resolver runs.
        warm = pool.submit(_warm_up, mats, plan.target.cuda)
        for attempt in range(_ROUNDS + 1):
            try:
                resolution = resolver.resolve(request, _subprocess.run)
            except LockError as exc:
                if not request.constraints or attempt == 0:
                    raise
                raise LockError(f"{exc} (after excluding {', '.join(request.constraints)}: {'; '.join(reasons)})"
                                ) from None
            _request.check_resolution(plan, resolution.packages)
            check_target = plan.target
            if plan.unknown_release:
                derived, _ = companions.wheel_target(plan.target, resolution.packages, force=True)
                check_target = replace(derived, variant=companions.cuda_tag(derived.cuda))
            need = companions.needs_embedded(check_target, resolution.packages)
            embedded: dict[str, str | None] = {}
            if need:
                from envguard.lock import wheels  # NOTE: here, not above: urllib and ssl cost ~0.1 s to import

                urls = resolver.file_urls(request, need, _subprocess.run, resolution)
                found = {p.key: pool.submit(wheels.embedded_version, urls[p.key], p.key,
                                            timeout_s=min(request.timeout_s, 60.0))
                         for p in need if p.key in urls}
                embedded = {k: f.result() for k, f in found.items()}
            bad, notes = companions.mismatches(check_target, resolution.packages, embedded)
            fixable = [m for m in bad if m.constraint and m.constraint not in request.constraints]
            if not bad:
                break
            if len(fixable) < len(bad) or attempt == _ROUNDS:
                raise LockError("the resolved set does not match the planned build, so `envguard check` would "
                                "fail it: " + "; ".join(m.detail for m in bad) + " (refusing to write the lock)")
            reasons += [f"{m.detail}: excluded ({m.constraint}) and resolved again" for m in fixable]
            request = replace(request, constraints=request.constraints + tuple(str(m.constraint) for m in fixable))
        reasons += notes
        warm.result()
        if newer is not None:
            reasons += _newer_note(newer.result(), resolution, mats)
    target = plan.target
    if plan.unknown_release:
        target, why = companions.wheel_target(target, resolution.packages, force=True)
        reasons += why
        if plan.target.cuda and target.cuda != plan.target.cuda:
            raise LockError(f"--cuda {plan.target.cuda}: the default index's torch "
                            f"{next((p.version for p in resolution.packages if p.key == 'torch'), '?')} is a "
                            f"{'CUDA ' + target.cuda if target.cuda else 'CPU'} build, and torch.toml does not know "
                            "which index serves its other builds")
    else:
        target, why = companions.wheel_target(target, resolution.packages)
        reasons += why
    if target.cuda != plan.target.cuda:
        target = replace(target, driver_floor=_request.driver_floor(mats, target.cuda))
        if host is not None and host.driver and target.driver_floor:
            from packaging.version import Version

            if Version(host.driver) < Version(target.driver_floor):
                raise LockError(f"the locked wheels bring CUDA {target.cuda}, which needs driver >= "
                                f"{target.driver_floor}; the target ({host.source}) has {host.driver}")
    return resolution, target, tuple(reasons)


def _warm_up(mats: Matrices, cuda: str | None) -> None:
    """Import the renderers and parse the driver table in a thread while the resolver subprocess runs."""
    import envguard.formatters.lockfiles
    import envguard.lock.render  # noqa: F401 - imported for its side effect (the module cache)

    if cuda:
        _ = mats.cuda_driver


def _newest_probe(plan: LockPlan, reqs: tuple[Requirement, ...], mats: Matrices) -> str | None:
    """"torch" when the request leaves torch open above the newest release torch.toml knows."""
    from packaging.version import Version


    torch_req = next((r for r in reqs if r.name.lower() == "torch"), None)
    if torch_req is None and not any(r.name.lower() in ("torchvision", "torchaudio") for r in reqs):
        return None  # NOTE: before touching mats.torch, which parses torch.toml
    if plan.unknown_release or not mats.torch.releases:
        return None
    top = Version(mats.torch.releases[0].version)
    spec = torch_req.specifier if torch_req is not None else None
    later = f"{top.major}.{top.minor + 1}.0"
    return "torch" if spec is None or spec.contains(later, prereleases=True) else None


def _newer_note(newest: str | None, resolution: Resolution, mats: Matrices) -> tuple[str, ...]:
    from packaging.version import Version

    pinned = next((p.version for p in resolution.packages if p.key == "torch"), None)
    if newest is None or pinned is None:
        return ()
    top = mats.torch.releases[0].version
    if Version(newest) <= Version(pinned) or Version(newest).public.startswith(top + "."):
        return ()
    return (f"torch {newest} is on the index, newer than the newest release torch.toml knows ({top}): pinned "
            f"torch {pinned}, whose CUDA build, cuDNN, NCCL and GPU architectures are sourced facts; ask for "
            f"torch=={Version(newest).major}.{Version(newest).minor}.* to lock the newer release (envguard then "
            "reads its CUDA from the wheels and reports the rest unknown)",)


def _tables_used(mats: Matrices, plan: LockPlan, target: LockTarget, formats: tuple[str, ...]) -> tuple[str, ...]:
    """The matrix files this lock's decisions read, with their retrieval dates (only those are parsed)."""
    metas = [getattr(mats, b.framework).meta for b in plan.builds if b.framework in ("torch", "tensorflow", "jax")]
    if target.driver_floor:
        metas.append(mats.cuda_driver.meta)
    if "docker" in formats:
        metas.append(mats.cuda_images.meta)
    return tuple(dict.fromkeys(m.describe() for m in metas))


def _local_digest(ref: str, environ: Mapping[str, str]) -> str | None:
    """The registry digest of ``ref`` when a Docker engine answers and has the image (no pull, no registry)."""
    if "@" in ref or environ.get("ENVGUARD_NO_ENGINE"):
        return None
    from envguard import engine

    try:
        client = engine.connect(timeout_s=5.0)
        image = client.images.get(ref)
    except Exception:
        return None
    repo = ref.rsplit(":", 1)[0] if ":" in ref.rsplit("/", 1)[-1] else ref
    for item in image.attrs.get("RepoDigests") or ():
        name, _, digest = str(item).partition("@")
        if digest.startswith("sha256:") and (name == repo or name.endswith("/" + repo)):
            return digest
    return None


#: Largest envguard.lock.json read (a real one is tens of kB; per-file digests make it a few MB at most).
MAX_LOCK_BYTES = 64 << 20


def read_lock(path: str, *, allow_unsigned: bool = False) -> tuple[LockSpec, str]:
    """envguard.lock.json (or a folder holding one), validated.

    :raises InputError: unreadable, not JSON, or not a valid lock.
    """
    from envguard.lock.spec import LOCK_JSON
    from envguard.lock.spec import LockSpec as _Spec

    p = Path(path)
    if p.is_dir():
        p = p / LOCK_JSON
    if not p.exists() and not p.is_symlink():
        raise InputError(f"{p} does not exist")
    raw = read_regular(str(p), MAX_LOCK_BYTES, what="lock")
    if len(raw) > MAX_LOCK_BYTES:
        raise InputError(f"{p} is larger than {MAX_LOCK_BYTES >> 20} MiB: not an envguard lock")
    from envguard import _json

    try:
        doc = _json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{p} is not JSON: verify reads the envguard.lock.json that `envguard lock` "
                         "writes (--format json)") from None
    except _json.DocumentError as exc:
        raise InputError(f"{p} {exc}: not an envguard lock") from None
    return _Spec.from_dict(doc, str(p), allow_unsigned=allow_unsigned), str(p)


def verify(lock_path: str, python: str, *, records: bool = True, ignore: tuple[str, ...] = (),
           env: Mapping[str, str] | None = None, allow_unsigned: bool = False,
           timeout_s: float = 300.0) -> VerifyResult:
    """Compare the target interpreter's environment (and this machine's driver) with a lock.

    ``timeout_s`` bounds the interpreter's listing (and hashing) of its files; nvidia-smi gets at most 10 s.
    """
    from envguard.lock.verify import compare
    from envguard.probes.installed import installed_state
    from envguard.probes.nvidia import probe_nvidia

    environ = dict(os.environ if env is None else env)
    spec, name = read_lock(lock_path, allow_unsigned=allow_unsigned)
    exe = resolve_python(python, environ)
    ctx = ProbeContext(env=environ, target_python=exe, timeout_s=min(timeout_s, 10.0))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-driver") as pool:
        driver_future = pool.submit(probe_nvidia, ctx) if spec.target.cuda else None
        version, installed, scan = installed_state(ctx, records=records, scan=True,
                                                   only=[p.key for p in spec.packages], timeout_s=timeout_s)
        driver = driver_future.result()[0] if driver_future is not None else None
    # NOTE: only a multi-platform lock (pins with markers) needs the interpreter's machine.
    machine = _interpreter_facts(exe, environ, timeout_s)[1].split("-", 1)[-1] if any(p.marker for p in spec.packages) \
        else "x86_64"
    result = compare(spec, installed, python=version, interpreter=exe, driver=driver, lock_name=name, ignore=ignore,
                     scan=scan, machine=machine)
    if not records:
        from dataclasses import replace

        result = replace(result, notes=(*result.notes, "file contents not hashed and bytecode not compared "
                                        "(--no-files); RECORDs, unrecorded files and .pth files were checked"))
    return result


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    """What `envguard sync` ran, and the verify that followed."""

    installer: str
    commands: tuple[tuple[str, ...], ...]
    removed: tuple[str, ...]
    result: VerifyResult


def sync(lock_path: str, python: str, *, installer: str = "auto", find_links: tuple[str, ...] = (),
         no_index: bool = False, allow_unsigned: bool = False, timeout_s: float = 1800.0,
         env: Mapping[str, str] | None = None) -> SyncOutcome:
    """Install exactly the lock into the target interpreter (``uv pip sync`` when uv is there, else pip with
    ``--require-hashes --no-deps`` and an uninstall of what the lock does not list), then verify.

    :raises EnvguardError: unreadable lock, missing interpreter, an installer that fails.
    """
    import tempfile

    from packaging.utils import canonicalize_name

    from envguard import _subprocess
    from envguard.errors import LockError
    from envguard.knowledge import load_matrices as _load
    from envguard.lock.render import DockerOptions, render_pip
    from envguard.lock.resolve import find_uv
    from envguard.probes.installed import installed_distributions

    environ = dict(os.environ if env is None else env)
    spec, name = read_lock(lock_path, allow_unsigned=allow_unsigned)
    exe = resolve_python(python, environ)
    if installer not in ("auto", "uv", "pip"):
        raise LockError(f"--installer {installer!r}: choose auto, uv or pip")
    uv = find_uv(environ) if installer in ("auto", "uv") else None
    if installer == "uv" and uv is None:
        raise LockError("--installer uv: uv is not installed (pip install uv)")
    sources: list[str] = [a for f in find_links for a in ("--find-links", os.path.abspath(f))]
    sources += ["--no-index"] if no_index else []
    ran: list[tuple[str, ...]] = []
    removed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="envguard-sync-") as tmp:
        reqs = Path(tmp) / "requirements.lock.txt"
        reqs.write_text(render_pip(spec, _load(env=environ), DockerOptions()).text, encoding="utf-8")

        def run(argv: tuple[str, ...]) -> None:
            ran.append(argv)
            result = _subprocess.run(argv, timeout=timeout_s, env=environ)
            if not result.ok:
                tail = (result.stderr or result.stdout).strip().splitlines()[-6:]
                raise LockError(f"{argv[0]} {' '.join(argv[1:3])} failed: {result.describe_failure()}"
                                + ("\n  " + "\n  ".join(tail) if tail else ""))

        keep = {canonicalize_name(n) for n, _ in spec.skipped}
        if uv is not None and not keep:
            run((uv, "pip", "sync", "--python", exe, "--require-hashes", *sources, str(reqs)))
        else:
            base = (uv, "pip") if uv is not None else (exe, "-m", "pip")
            install = (*base, "install", *(("--python", exe) if uv is not None else ("--disable-pip-version-check",)),
                       "--require-hashes", "--no-deps", *sources, "-r", str(reqs))
            run(install)
            locked = {p.key for p in spec.packages}
            # NOTE: pip keeps itself (it is the installer running); the skipped (editable) installs stay.
            spare = keep | ({"pip"} if uv is None else set())
            _v, installed = installed_distributions(ProbeContext(env=environ, target_python=exe))
            removed = sorted(d.name for d in installed
                             if canonicalize_name(d.name) not in locked | spare)
            if removed:
                run((*base, "uninstall", *(("--python", exe) if uv is not None else ("-y",)), *removed))
    result = verify(name, exe, env=environ, allow_unsigned=allow_unsigned)
    return SyncOutcome("uv" if uv is not None else "pip", tuple(ran), tuple(removed), result)
