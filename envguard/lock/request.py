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

from envguard.archs import runs_on
from envguard.errors import LockError
from envguard.lock.spec import IndexUse, LockedPackage, LockTarget, check_url
from envguard.matrix import Matrices, TorchRelease, TorchVariant
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


def parse_requirements(lines: Iterable[str], where: str) -> tuple[Requirement, ...]:
    """PEP 508 requirements, one per line; comments and blank lines skipped.

    :raises LockError: for a malformed line, an option line, or a direct URL.
    """
    out = []
    for number, raw in enumerate(lines, 1):
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
    if torch_req is None:
        cuda_text = None if cuda in ("auto", "cpu") else cuda
        return LockPlan(tuple(str(r) for r in requirements), (), LockTarget(python, platform, cuda_text))
    release, variant, reasons = choose_torch(matrices, torch_req, python=python, cuda=cuda, host=host)
    pins: list[str] = []
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
    default_build = platform == "linux-x86_64" and variant.tag == release.pypi_default
    indexes: tuple[IndexUse, ...] = ()
    local = variant.tag
    if default_build:
        local = ""
        reasons += (f"{variant.tag} is PyPI's default torch {release.version} build on Linux x86_64: "
                    "the default index serves it",)
    elif variant.index_url is None:
        raise LockError(f"torch.toml release {release.version} variant {variant.tag} has no index_url")
    else:
        indexes = (IndexUse(check_url(variant.index_url), f"torch {release.version} {variant.tag} builds"),)
    floor = matrices.cuda_driver.floor(variant.cuda, "linux") if variant.cuda else None
    target = LockTarget(python=python, platform=platform, cuda=variant.cuda, variant=variant.tag,
                        cudnn=variant.cudnn, nccl=variant.nccl,
                        driver_floor=str(floor.min_driver) if floor else None)
    expect = [("torch", local)] + [(c, local) for c in TORCH_COMPANIONS if c in by_name]
    return LockPlan(tuple(pins), indexes, target, tuple(expect), reasons)


def _narrow(req: Requirement, extra: str) -> str:
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
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
            skipped.append((dist.name, f"{how} ({dist.direct_url}): no index file to hash"))
            continue
        try:
            Version(dist.version)
        except InvalidVersion:
            skipped.append((dist.name, f"version {dist.version!r} is not PEP 440"))
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
