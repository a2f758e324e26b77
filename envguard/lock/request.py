"""From a request (or what is installed) to a resolver input: which framework build, from which index,
for which CUDA. Pure: the matrices and the host's facts in, a LockPlan out."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from envguard._redact import redact_urls
from envguard.archs import runs_on
from envguard.errors import LockError
from envguard.knowledge import Matrices
from envguard.knowledge.jax import JaxCuda, JaxRelease
from envguard.knowledge.tensorflow import TensorflowRelease
from envguard.knowledge.torch import TorchRelease, TorchVariant
from envguard.lock.spec import IndexUse, LockedPackage, LockTarget, check_url
from envguard.snapshot import InstalledDistribution

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: Distributions a --from-current lock leaves out (installer tooling, as pip freeze and uv do).
TOOLING = frozenset({"pip", "setuptools", "wheel", "distribute", "uv"})
TORCH_COMPANIONS = ("torchvision", "torchaudio")


@dataclass(frozen=True, slots=True)
class HostFacts:
    """What --cuda auto needs to know about the machine: driver and GPU compute capabilities."""

    driver: str | None
    ccs: tuple[str, ...] = ()
    system: str = "linux"


@dataclass(frozen=True, slots=True)
class LockPlan:
    """What goes to the resolver and what the result must look like."""

    requirements: tuple[str, ...]
    indexes: tuple[IndexUse, ...]
    target: LockTarget
    #: {"torch": "cu124"}: the local version label each framework pin must carry ("" = none: PyPI's build).
    expect_local: tuple[tuple[str, str], ...] = ()
    #: Why this build was chosen, one line each (shown by --dry-run and in the JSON).
    reasons: tuple[str, ...] = ()


#: Control characters never accepted in a requirement (every C0 control but tab, DEL, and the other
#: characters ``str.splitlines()`` treats as line breaks).
_CONTROL_CHARACTERS = frozenset(
    {chr(c) for c in range(0x20) if c != 0x09} | {"\x7f", "\x85", "\u2028", "\u2029"}
)


def parse_requirements(lines: Iterable[str], where: str) -> tuple[Requirement, ...]:
    """PEP 508 requirements, one per line; comments and blank lines skipped.

    :raises LockError: for a malformed line, an option line, or a direct URL.
    """
    out = []
    for number, raw in enumerate(lines, 1):
        bad = next((c for c in raw if c in _CONTROL_CHARACTERS), None)
        if bad is not None:
            # NOTE: str.splitlines() breaks lines at \x0b \x0c \x1c-\x1e \x85 \u2028 \u2029: written into the
            # "# Request" header of the lock files, they would start new, non-comment lines.
            raise LockError(f"{where}:{number}: control character {bad!r} in a requirement")
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            raise LockError(f"{where}:{number}: option lines ({line.split()[0]}) are not read; use envguard's "
                            "--index-url / --extra-index-url / --find-links / -r flags instead")
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            raise LockError(f"{where}:{number}: {line!r} is not a valid requirement: {exc}") from None
        if req.url:
            raise LockError(f"{where}:{number}: {req.name} @ {req.url}: direct URLs cannot be locked with hashes "
                            "from an index; publish it to an index or a --find-links folder")
        out.append(req)
    return tuple(out)


def requirements_from_pyproject(text: str, where: str) -> tuple[Requirement, ...]:
    """``[project].dependencies`` of a pyproject.toml.

    :raises LockError: when the file is not TOML or has no such table.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockError(f"{where} is not valid TOML: {exc}") from None
    project = data.get("project")
    deps = project.get("dependencies") if isinstance(project, dict) else None
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise LockError(f"{where} has no [project].dependencies list to lock")
    return parse_requirements(deps, where)


def python_minor(version: str) -> str:
    """"3.11.7" → "3.11".

    :raises LockError: when it is not a Python version.
    """
    m = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", version.strip())
    if not m:
        raise LockError(f"--python {version!r} is neither an interpreter nor a version like 3.11")
    return f"{m.group(1)}.{m.group(2)}"


def _series_admits(spec: SpecifierSet, series: str) -> bool:
    """Whether some patch release of a minor series ("2.5") satisfies the specifier."""
    if not str(spec):
        return True
    # NOTE: "==2.13.0+cpu" (a --from-current pin) admits only versions carrying that local label.
    locals_ = {""} | {"+" + s.version.split("+", 1)[1] for s in spec if "+" in s.version}
    return any(spec.contains(Version(f"{series}.{patch}{local}"), prereleases=True)
               for patch in range(30) for local in sorted(locals_))


def _native_ok(matrices: Matrices, cuda: str, driver: Version) -> bool:
    try:
        v = Version(cuda)
    except InvalidVersion:
        return False
    drivers = [r.linux_driver for r in matrices.cuda_driver.releases
               if r.minor_series == (v.major, v.minor) and r.linux_driver is not None]
    return bool(drivers) and driver >= min(d for d in drivers if d is not None)


def _variant_list(release: TorchRelease) -> str:
    return ", ".join(v.tag for v in release.variants) or "none"


def choose_torch(
    matrices: Matrices, req: Requirement, *, python: str, cuda: str, host: HostFacts | None,
) -> tuple[TorchRelease, TorchVariant, tuple[str, ...]]:
    """The torch release and build variant for ``req`` on Python ``python`` and ``--cuda``.

    :raises LockError: naming the torch.toml row when no build fits.
    """
    releases = [r for r in matrices.torch.releases if _series_admits(req.specifier, r.version)]
    if not releases:
        known = ", ".join(r.version for r in matrices.torch.releases[:6])
        raise LockError(f"no torch release in torch.toml matches {req} (newest known: {known} …)")
    fitting = [r for r in releases if python in r.python]
    if not fitting:
        rows = "; ".join(f'release {r.version} python = "{r.python}"' for r in releases[:4])
        raise LockError(f"Python {python} is outside the range of every torch release matching {req} "
                        f"(torch.toml {rows})")
    if cuda == "cpu":
        for release in fitting:
            variant = release.variant("cpu")
            if variant is not None:
                return release, variant, (f"torch {release.version} CPU build (--cuda cpu)",)
        raise LockError(f"torch.toml lists no CPU build for {req} on Python {python}")
    if cuda != "auto":
        try:
            want = Version(cuda)
        except InvalidVersion:
            raise LockError(f"--cuda {cuda!r} is not a CUDA version (e.g. 12.4), 'auto' or 'cpu'") from None
        for release in fitting:
            for variant in release.variants:
                if variant.cuda and Version(variant.cuda) == want:
                    return release, variant, (f"torch {release.version} {variant.tag} build (--cuda {cuda})",)
        rows = "; ".join(f"release {r.version}: {_variant_list(r)}" for r in fitting[:4])
        raise LockError(f"torch has no CUDA {cuda} build for {req} on Python {python} (torch.toml {rows})")
    # --cuda auto: the host's driver AND every GPU's architecture must run the build.
    if host is None or host.driver is None:
        raise LockError("--cuda auto needs an NVIDIA driver on this machine and none answers; "
                        "pass --cuda X.Y (the target's CUDA) or --cuda cpu")
    try:
        driver = Version(host.driver)
    except InvalidVersion:
        raise LockError(f"--cuda auto: the driver version {host.driver!r} is not a version") from None
    rejected: list[str] = []
    for release in fitting:
        ok: list[tuple[bool, Version, TorchVariant]] = []
        for variant in release.variants:
            if not variant.cuda or variant.tag.startswith("rocm"):
                continue
            floor = matrices.cuda_driver.floor(variant.cuda, host.system)
            if floor is None or driver < floor.min_driver:
                rejected.append(f"{release.version} {variant.tag}: needs driver >= "
                                f"{floor.min_driver if floor else 'unknown'}")
                continue
            if host.ccs and (variant.sass is None
                             or not all(runs_on(cc, variant.sass, variant.ptx or ()) for cc in host.ccs)):
                rejected.append(f"{release.version} {variant.tag}: no kernels for compute capability "
                                f"{', '.join(host.ccs)}" if variant.sass is not None else
                                f"{release.version} {variant.tag}: compiled architectures unknown")
                continue
            ok.append((_native_ok(matrices, variant.cuda, driver), Version(variant.cuda), variant))
        if ok:
            native, _, variant = max(ok, key=lambda t: (t[0], t[1]))
            how = "its own driver floor" if native else "minor-version compatibility"
            gpus = f" and compute capability {', '.join(host.ccs)}" if host.ccs else ""
            return release, variant, (f"torch {release.version} {variant.tag}: newest CUDA build that driver "
                                      f"{host.driver}{gpus} run ({how})",)
    raise LockError(f"--cuda auto: no torch build matching {req} runs on driver {host.driver}"
                    f"{' with compute capability ' + ', '.join(host.ccs) if host.ccs else ''} "
                    f"({'; '.join(rejected[:5])})")


def plan(
    matrices: Matrices, requirements: Sequence[Requirement], *, python: str, platform: str, cuda: str,
    host: HostFacts | None, extra_index_urls: Sequence[str] = (),
) -> LockPlan:
    """Pick the framework build and index, narrow the framework pins, and describe the target.

    :raises LockError: when the request is empty, the platform unknown, or no build fits.
    """
    if not requirements:
        raise LockError("nothing to lock: give requirements, -r FILE, a pyproject.toml or --from-current")
    if platform not in ("linux-x86_64", "linux-aarch64"):
        raise LockError(f"--platform {platform!r}: envguard locks for linux-x86_64 or linux-aarch64")
    for url in extra_index_urls:
        check_url(url, "--extra-index-url")
    by_name: dict[str, Requirement] = {canonicalize_name(r.name): r for r in requirements}
    torch_req = by_name.get("torch")
    if torch_req is None and any(c in by_name for c in TORCH_COMPANIONS):
        torch_req = Requirement("torch")
    if cuda not in ("auto", "cpu"):
        try:
            Version(cuda)
        except InvalidVersion:
            raise LockError(f"--cuda {cuda!r} is not a CUDA version (e.g. 12.4), 'auto' or 'cpu'") from None
    pins: list[str] = [str(r) for r in requirements]
    reasons: tuple[str, ...] = ()
    indexes: tuple[IndexUse, ...] = ()
    expect: list[tuple[str, str]] = []
    target: LockTarget | None = None
    majors: dict[str, int | None] = {}
    if torch_req is not None:
        release, variant, why = choose_torch(matrices, torch_req, python=python, cuda=cuda, host=host)
        reasons += why
        pins = []
        for req in requirements:
            key = canonicalize_name(req.name)
            if key == "torch":
                pins.append(_narrow(req, f"=={release.version}.*"))
            elif key == "torchvision" and release.torchvision:
                pins.append(_narrow(req, f"=={release.torchvision}.*"))
            elif key == "torchaudio" and release.torchaudio and release.torchaudio == release.version:
                pins.append(_narrow(req, f"=={release.torchaudio}.*"))
            else:
                pins.append(str(req))
        if "torch" not in by_name:
            pins.append(f"torch=={release.version}.*")
        local = variant.tag
        if platform == "linux-x86_64" and variant.tag == release.pypi_default:
            local = ""
            reasons += (f"{variant.tag} is PyPI's default torch {release.version} build on Linux x86_64: "
                        "the default index serves it",)
        elif variant.index_url is None:
            raise LockError(f"torch.toml release {release.version} variant {variant.tag} has no index_url")
        else:
            indexes = (IndexUse(check_url(variant.index_url), f"torch {release.version} {variant.tag} builds"),)
        target = _target(matrices, python, platform, variant.cuda, variant.tag, variant.cudnn, variant.nccl)
        expect = [("torch", local)] + [(c, local) for c in TORCH_COMPANIONS if c in by_name]
        majors["torch"] = Version(variant.cuda).major if variant.cuda else None
    # NOTE: with torch in the request its build decides the CUDA; TensorFlow and JAX then follow its major.
    follow = cuda if target is None else (target.cuda or "cpu")
    tf_key = next((k for k in ("tensorflow", "tensorflow-cpu") if k in by_name), None)
    if tf_key == "tensorflow":
        tf, tf_cuda, why = choose_tensorflow(matrices, by_name["tensorflow"], python=python, cuda=follow, host=host)
        reasons += why
        extra = "and-cuda" if tf_cuda and tf.and_cuda else None
        pins = [_narrow(r, f"=={tf.version}.*", extra) if canonicalize_name(r.name) == "tensorflow" else p
                for r, p in zip(requirements, pins, strict=False)] + pins[len(requirements):]
        majors["tensorflow"] = Version(tf_cuda).major if tf_cuda else None
        if target is None:
            target = _target(matrices, python, platform, tf_cuda, "and-cuda" if extra else ("cpu" if not tf_cuda
                             else "system-cuda"), tf.cudnn if tf_cuda else None, None)
    if "jax" in by_name:
        _row, plugin, why = choose_jax(matrices, by_name["jax"], python=python, cuda=follow, host=host)
        reasons += why
        pins = [_narrow(r, "", plugin.extra) if canonicalize_name(r.name) == "jax" and plugin and plugin.extra else p
                for r, p in zip(requirements, pins, strict=False)] + pins[len(requirements):]
        majors["jax"] = plugin.major if plugin else None
        if target is None:
            built = f"{plugin.built_with.major}.{plugin.built_with.minor}" if plugin and plugin.built_with else (
                str(plugin.major) if plugin else None)
            target = _target(matrices, python, platform, built, plugin.extra if plugin else "cpu", None, None)
    gpu_majors = {k: v for k, v in majors.items() if v is not None}
    if len(set(gpu_majors.values())) > 1:
        raise LockError("the frameworks would bring CUDA libraries of different majors ("
                        + ", ".join(f"{k}: CUDA {v}" for k, v in sorted(gpu_majors.items()))
                        + "); pick releases built for one CUDA major")
    if target is None:
        target = LockTarget(python, platform, None if cuda in ("auto", "cpu") else cuda)
    return LockPlan(tuple(pins), indexes, target, tuple(expect), reasons)


def _target(matrices: Matrices, python: str, platform: str, cuda: str | None, variant: str | None,
            cudnn: str | None, nccl: str | None) -> LockTarget:
    floor = matrices.cuda_driver.floor(cuda, "linux") if cuda else None
    return LockTarget(python=python, platform=platform, cuda=cuda, variant=variant, cudnn=cudnn, nccl=nccl,
                      driver_floor=str(floor.min_driver) if floor else None)


def _host_driver(host: HostFacts | None) -> Version:
    if host is None or host.driver is None:
        raise LockError("--cuda auto needs an NVIDIA driver on this machine and none answers; "
                        "pass --cuda X.Y (the target's CUDA) or --cuda cpu")
    try:
        return Version(host.driver)
    except InvalidVersion:
        raise LockError(f"--cuda auto: the driver version {host.driver!r} is not a version") from None


def choose_tensorflow(
    matrices: Matrices, req: Requirement, *, python: str, cuda: str, host: HostFacts | None,
) -> tuple[TensorflowRelease, str | None, tuple[str, ...]]:
    """The TensorFlow release, and the CUDA its GPU build brings (None: CPU), for ``--cuda``.

    TensorFlow publishes one Linux wheel per release; ``[and-cuda]`` adds NVIDIA's wheels for the CUDA it was
    tested with, so ``--cuda X.Y`` selects releases of that CUDA major.

    :raises LockError: naming the tensorflow.toml rows when none fits.
    """
    releases = [r for r in matrices.tensorflow.releases if _series_admits(req.specifier, r.version)]
    if not releases:
        raise LockError(f"no TensorFlow release in tensorflow.toml matches {req}")
    fitting = [r for r in releases if python in r.python]
    if not fitting:
        rows = "; ".join(f'release {r.version} python = "{r.python}"' for r in releases[:4])
        raise LockError(f"Python {python} is outside the range of every TensorFlow release matching {req} "
                        f"(tensorflow.toml {rows})")
    if cuda == "cpu":
        if "and-cuda" in req.extras:
            raise LockError(f"{req} asks for NVIDIA's CUDA wheels, but --cuda cpu asks for the CPU build")
        return fitting[0], None, (f"TensorFlow {fitting[0].version} without [and-cuda] (--cuda cpu)",)
    gpu = [r for r in fitting if r.cuda]
    if cuda != "auto":
        want = Version(cuda).major
        chosen = [r for r in gpu if Version(r.cuda or "0").major == want]
        if not chosen:
            rows = "; ".join(f"release {r.version}: CUDA {r.cuda}" for r in gpu[:4]) or "no GPU rows"
            raise LockError(f"no TensorFlow release matching {req} on Python {python} is built for CUDA {want}.x "
                            f"(tensorflow.toml {rows})")
        r = chosen[0]
        return r, r.cuda, (f"TensorFlow {r.version} is built for CUDA {r.cuda} (the {want}.x family of --cuda {cuda})"
                           + ("; [and-cuda] brings its CUDA libraries" if r.and_cuda else
                              "; it loads the system's CUDA and cuDNN (no [and-cuda] extra)"),)
    driver = _host_driver(host)
    for r in gpu:
        floor = matrices.cuda_driver.floor(r.cuda or "", host.system if host else "linux")
        if floor is not None and driver >= floor.min_driver:
            return r, r.cuda, (f"TensorFlow {r.version}: newest release whose CUDA {r.cuda} driver "
                               f"{driver} runs (compiled architectures are not in tensorflow.toml: not checked)",)
    raise LockError(f"--cuda auto: no TensorFlow release matching {req} runs on driver {driver}")


def _jax_rows(matrices: Matrices, req: Requirement) -> list[JaxRelease]:
    """jax.toml rows that cover some version the requirement admits (each row holds until the next newer)."""
    rows = list(matrices.jax.releases)
    pinned = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    if pinned:
        row = matrices.jax.release(pinned[0])
        return [row] if row is not None else []
    return [r for r in rows if not str(req.specifier) or req.specifier.contains(r.version, prereleases=True)]


def choose_jax(
    matrices: Matrices, req: Requirement, *, python: str, cuda: str, host: HostFacts | None,
) -> tuple[JaxRelease, JaxCuda | None, tuple[str, ...]]:
    """The jax.toml row and CUDA plugin (``jax[cudaN]``) for ``--cuda``; None for the CPU build.

    :raises LockError: naming the jax.toml row when no plugin fits.
    """
    rows = _jax_rows(matrices, req)
    if not rows:
        raise LockError(f"no jax release in jax.toml matches {req}")
    fitting = [r for r in rows if python in r.python]
    if not fitting:
        raise LockError(f"Python {python} is outside the range of jax matching {req} "
                        f"(jax.toml row {rows[0].version} python = \"{rows[0].python}\")")
    row = fitting[0]
    asked = sorted(int(e[4:]) for e in req.extras if re.fullmatch(r"cuda\d+", e))
    if asked and cuda == "cpu":
        raise LockError(f"{req} asks for a CUDA plugin, but --cuda cpu asks for the CPU build")
    if asked and cuda != "auto" and Version(cuda).major not in asked:
        raise LockError(f"{req} asks for the CUDA {asked[0]} plugin, but --cuda {cuda} is CUDA {Version(cuda).major}")
    if cuda == "cpu":
        return row, None, (f"jax {row.version}+ CPU build (no CUDA plugin)",)
    if cuda == "auto" and asked:
        cuda = str(asked[-1])
    if cuda != "auto":
        want = Version(cuda).major
        plugin = row.plugin(want)
        if plugin is None or not plugin.extra:
            have = ", ".join(f"cuda{c.major}" for c in row.cuda) or "none"
            raise LockError(f"jax matching {req} has no CUDA {want} plugin (jax.toml row {row.version}: {have})")
        return row, plugin, (f"jax[{plugin.extra}]: the CUDA {want} plugin (built with CUDA {plugin.built_with})",)
    driver = _host_driver(host)
    ccs = host.ccs if host else ()
    for plugin in sorted(row.cuda, key=lambda c: -c.major):
        if not plugin.extra or (plugin.min_driver is not None and driver < plugin.min_driver):
            continue
        if plugin.min_cc and any(Version(cc) < Version(plugin.min_cc) for cc in ccs):
            continue
        return row, plugin, (f"jax[{plugin.extra}]: newest CUDA plugin that driver {driver} runs",)
    raise LockError(f"--cuda auto: no jax CUDA plugin of jax.toml row {row.version} runs on driver {driver}")


def _narrow(req: Requirement, extra: str, add_extra: str | None = None) -> str:
    names = sorted(set(req.extras) | ({add_extra} if add_extra else set()))
    extras = f"[{','.join(names)}]" if names else ""
    spec = ",".join(s for s in (str(req.specifier), extra) if s)
    marker = f"; {req.marker}" if req.marker else ""
    return f"{req.name}{extras}{spec}{marker}"


def check_resolution(plan_: LockPlan, packages: Sequence[LockedPackage]) -> None:
    """The resolver must have picked the planned build (e.g. +cu124 from the PyTorch index).

    :raises LockError: when it did not (an unreachable index, a mirror without the variant ...).
    """
    by_key = {p.key: p for p in packages}
    for name, local in plan_.expect_local:
        pin = by_key.get(name)
        if pin is None:
            raise LockError(f"the resolver left {name} out of the lock (an environment marker excludes it for "
                            f"Python {plan_.target.python} on {plan_.target.platform}?), so the lock would not "
                            f"carry the {plan_.target.variant} build it was planned for")
        got = pin.local or ""
        if got != local:
            want = f"the +{local} build" if local else "PyPI's default build (no local version)"
            where = ", ".join(i.url for i in plan_.indexes) or "the default index"
            raise LockError(f"the resolver chose {name}=={pin.version}, not {want} from {where}; "
                            "is that index reachable from here (or mirrored)?")


def current_requirements(
    installed: Sequence[InstalledDistribution], *, exclude: Iterable[str] = (),
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``name==version`` for each installed distribution, and the ones left out with the reason."""
    skip = TOOLING | {canonicalize_name(e) for e in exclude}
    pins: list[str] = []
    skipped: list[tuple[str, str]] = []
    for dist in installed:
        key = canonicalize_name(dist.name)
        if key in skip:
            continue
        if dist.editable or dist.direct_url:
            how = "editable install" if dist.editable else "installed from a direct URL"
            # NOTE: a direct URL may carry credentials (https://user:token@host/...); the lock is committed.
            skipped.append((dist.name, f"{how} ({redact_urls(str(dist.direct_url))}): no index file to hash"))
            continue
        try:
            Version(dist.version)
        except (InvalidVersion, ValueError):  # NOTE: ValueError: a version of more than 4,300 digits
            skipped.append((dist.name, f"version {dist.version[:40]!r} is not PEP 440"))
            continue
        pins.append(f"{dist.name}=={dist.version}")
    return tuple(pins), tuple(skipped)


def current_cuda(matrices: Matrices, installed: Sequence[InstalledDistribution]) -> str:
    """--cuda for a --from-current lock: the installed torch's build (+cu124 → 12.4, +cpu → cpu, no local
    version → PyPI's default build of that release per torch.toml), else "auto"."""
    for dist in installed:
        if canonicalize_name(dist.name) == "torch":
            try:
                local = Version(dist.version).local
            except InvalidVersion:
                return "auto"
            if local == "cpu":
                return "cpu"
            m = re.fullmatch(r"cu(\d+)(\d)", local or "")
            if m:
                return f"{int(m.group(1))}.{m.group(2)}"
            release = matrices.torch.release(dist.version)
            variant = release.variant(release.pypi_default) if release and release.pypi_default else None
            if local is None and variant is not None:
                return variant.cuda or "cpu"
    return "auto"
