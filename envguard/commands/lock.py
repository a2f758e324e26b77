"""`envguard lock` and `envguard verify`: plan the build, resolve, render and write the lock; compare with it."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envguard.commands._io import read_text_input, write_files
from envguard.commands._probe import resolve_python
from envguard.errors import InputError, TargetPythonError
from envguard.knowledge import load_matrices
from envguard.probes import ProbeContext

if TYPE_CHECKING:
    from collections.abc import Mapping

    from envguard.lock.render import LockOutcome
    from envguard.lock.request import HostFacts
    from envguard.lock.spec import LockSpec
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


def _interpreter_facts(exe: str, env: Mapping[str, str], timeout_s: float = 60.0) -> tuple[str, str]:
    """(X.Y.Z, "linux-x86_64") of an interpreter."""
    from envguard import _subprocess

    probe = ("import sys, platform; print('%d.%d.%d' % sys.version_info[:3], sys.platform, platform.machine())")
    result = _subprocess.run((exe, "-c", probe), timeout=min(timeout_s, 60.0), env=dict(env))
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
        # NOTE: --timeout bounds the interpreter's answers too (at most the 300 s a full listing may take).
        version, installed = installed_distributions(ctx, timeout_s=min(options.timeout_s, 300.0))
        pins, skipped = _request.current_requirements(installed)
        reqs = _request.parse_requirements(pins, f"installed packages of {exe}")
        cuda = options.cuda or _request.current_cuda(mats, installed)
        interpreter = exe
        _v, plat = _interpreter_facts(exe, environ, options.timeout_s)
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
    from envguard._redact import redact_urls
    from envguard.lock.spec import IndexUse

    # NOTE: the resolver got the URLs as given; the lock files (committed) get them without credentials.
    indexes = plan.indexes + tuple(IndexUse(redact_urls(u), "--extra-index-url") for u in options.extra_index_urls)
    if options.index_url:
        indexes = (IndexUse(redact_urls(options.index_url), "--index-url"), *indexes)
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
    from envguard import _json

    try:
        doc = _json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{p} is not JSON: verify reads the envguard.lock.json that `envguard lock` "
                         "writes (--format json)") from None
    except _json.DocumentError as exc:
        raise InputError(f"{p} {exc}: not an envguard lock") from None
    return _Spec.from_dict(doc, str(p)), str(p)


def verify(lock_path: str, python: str, *, records: bool = True, ignore: tuple[str, ...] = (),
           env: Mapping[str, str] | None = None, timeout_s: float = 300.0) -> VerifyResult:
    """Compare the target interpreter's environment (and this machine's driver) with a lock.

    ``timeout_s`` bounds the interpreter's listing (and hashing) of its files; nvidia-smi gets at most 10 s.
    """
    from envguard.lock.verify import compare
    from envguard.probes.installed import installed_distributions
    from envguard.probes.nvidia import probe_nvidia

    environ = dict(os.environ if env is None else env)
    spec, name = read_lock(lock_path)
    exe = resolve_python(python, environ)
    ctx = ProbeContext(env=environ, target_python=exe, timeout_s=min(timeout_s, 10.0))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-driver") as pool:
        driver_future = pool.submit(probe_nvidia, ctx) if spec.target.cuda else None
        version, installed = installed_distributions(ctx, records=records, only=[p.key for p in spec.packages],
                                                     timeout_s=timeout_s)
        driver = driver_future.result()[0] if driver_future is not None else None
    return compare(spec, installed, python=version, interpreter=exe, driver=driver, lock_name=name, ignore=ignore)
