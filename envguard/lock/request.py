"""From a request (or what is installed) to a resolver input: which framework build, from which index,
for which CUDA. Pure: the matrices and the host's facts in, a LockPlan out."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from envguard._redact import redact_urls
from envguard.archs import runs_on
from envguard.errors import LockError, LockUsageError
from envguard.installed_facts import InstalledDistribution
from envguard.knowledge import Matrices
from envguard.knowledge.jax import JaxCuda, JaxRelease
from envguard.knowledge.tensorflow import TensorflowRelease
from envguard.knowledge.torch import TorchRelease, TorchVariant
from envguard.lock.spec import IndexUse, LockedPackage, LockTarget, check_url

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
    #: Where the facts come from ("this host", "--for nodes/", "--driver 580.65.06 --cc 7.0").
    source: str = "this host"


@dataclass(frozen=True, slots=True)
class PlannedBuild:
    """One framework's decision: which releases, which build, from where, and the requirement that says so."""

    framework: str
    #: The release series ("2.14"), or the set of acceptable ones ("2.18, 2.19, 2.20").
    release: str
    variant: str | None
    #: The index that serves the build; None: the default index.
    index: str | None
    #: The requirement handed to the resolver ("torch==2.14.*").
    constraint: str
    reason: str

    def to_dict(self) -> dict[str, str | None]:
        """JSON form (the `plan` object of `lock --json`)."""
        return {"framework": self.framework, "release": self.release, "variant": self.variant,
                "index": self.index, "constraint": self.constraint, "reason": self.reason}


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
    builds: tuple[PlannedBuild, ...] = ()
    #: A torch release newer than torch.toml was asked for: its CUDA build is read from the locked wheels.
    unknown_release: bool = False

    def to_dict(self) -> dict[str, object]:
        """The `plan` object of `lock --json` (also when resolving then fails)."""
        t = self.target
        return {"builds": [b.to_dict() for b in self.builds], "requirements": list(self.requirements),
                "indexes": [i.url for i in self.indexes], "python": t.python, "platform": t.platform,
                "cuda": t.cuda, "variant": t.variant, "driver_floor": t.driver_floor, "reasons": list(self.reasons)}


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
        out.append(_requirement(line, f"{where}:{number}"))
    return tuple(out)


def _requirement(line: str, at: str) -> Requirement:
    try:
        req = Requirement(line)
    except InvalidRequirement as exc:
        raise LockError(f"{at}: {line!r} is not a valid requirement: {exc}") from None
    if req.url:
        raise LockError(f"{at}: {req.name} @ {req.url}: direct URLs cannot be locked with hashes "
                        "from an index; publish it to an index or a --find-links folder")
    return req


@dataclass(frozen=True, slots=True)
class RequirementsFile:
    """A pip requirements file as envguard reads it: the requirements, and the options it carries."""

    requirements: tuple[Requirement, ...] = ()
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    constraints: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


_UNSUPPORTED = ("--pre", "--prefer-binary", "--only-binary", "--no-binary", "--trusted-host", "--use-feature",
                "--use-pep517", "--no-build-isolation", "--global-option", "--config-settings", "--require-hashes",
                "-Z", "--always-unzip")
_LOCAL = re.compile(r"^(\.{1,2}/|/|~|file:)|\.(whl|zip|tar\.gz|tar\.bz2|tgz)$")


def read_requirements_file(
    text: str, where: str, load: Callable[[str], tuple[str, str]], *, _depth: int = 0,
) -> RequirementsFile:
    """A requirements file with pip's option lines: ``-r``/``-c`` (nested, relative to the file, through
    ``load(path) -> (text, name)``), ``--index-url``/``-i``, ``--extra-index-url``, ``--find-links``/``-f``,
    ``--no-index``; a ``--hash`` on a requirement is dropped with a note (the resolver's hashes are locked).
    Editable installs and local paths are refused: they have no index file to hash.

    :raises LockError: naming the file and line of anything envguard cannot lock.
    """
    if _depth > 10:
        raise LockError(f"{where}: -r/-c files nested more than 10 deep (a cycle?)")
    out = RequirementsFile()
    reqs: list[Requirement] = []
    joined = re.sub(r"\\\s*\n", " ", text)
    for number, raw in enumerate(joined.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            opt, _, value = line.partition("=") if line.startswith("--") and "=" in line.split()[0] else (
                line.split(maxsplit=1)[0], "", line.split(maxsplit=1)[1] if " " in line else "")
            value = value.strip()
            at = f"{where}:{number}"
            if opt in ("-r", "--requirement", "-c", "--constraint"):
                if not value:
                    raise LockError(f"{at}: {opt} needs a file")
                nested_text, nested_name = load(value)
                inner = read_requirements_file(nested_text, nested_name, load, _depth=_depth + 1)
                if opt in ("-c", "--constraint"):
                    out = replace(out, constraints=out.constraints + tuple(str(r) for r in inner.requirements)
                                  + inner.constraints, notes=out.notes + inner.notes)
                else:
                    reqs += inner.requirements
                    out = _merge(out, inner, at)
            elif opt in ("-i", "--index-url"):
                url = _redact_check(value, f"{at}: {opt}")
                if out.index_url and out.index_url != url:
                    raise LockError(f"{at}: a second --index-url ({url}); a lock has one base index")
                out = replace(out, index_url=url)
            elif opt == "--extra-index-url":
                out = replace(out, extra_index_urls=(*out.extra_index_urls, _redact_check(value, f"{at}: {opt}")))
            elif opt in ("-f", "--find-links"):
                out = replace(out, find_links=(*out.find_links, value))
            elif opt == "--no-index":
                out = replace(out, no_index=True)
            elif opt in ("-e", "--editable"):
                raise LockError(f"{at}: -e {value}: an editable install has no index file to hash; build a wheel "
                                "(pip wheel --no-deps -w DIR PATH) and lock it from --find-links DIR")
            elif opt in _UNSUPPORTED or opt.startswith("--hash"):
                raise LockError(f"{at}: option lines ({opt}) are not supported by envguard lock; remove it (or "
                                "give envguard's own flag)")
            else:
                raise LockError(f"{at}: option lines ({opt}) are not read; use envguard's --index-url / "
                                "--extra-index-url / --find-links / -r / -c flags instead")
            continue
        if " --hash" in line or "\t--hash" in line:
            line = re.split(r"\s+--hash", line, maxsplit=1)[0].strip()
            out = replace(out, notes=(*out.notes, f"{where}:{number}: its --hash options are dropped: the lock "
                                      "takes every hash from the resolver"))
        if _LOCAL.search(line.split(";")[0].strip()):
            raise LockError(f"{where}:{number}: {line!r} is a local path: it has no index file to hash; build a "
                            "wheel into a folder and lock it from --find-links DIR")
        reqs.append(_requirement(line, f"{where}:{number}"))
    return replace(out, requirements=tuple(reqs))


def _merge(a: RequirementsFile, b: RequirementsFile, at: str) -> RequirementsFile:
    if a.index_url and b.index_url and a.index_url != b.index_url:
        raise LockError(f"{at}: the nested file sets another --index-url ({b.index_url})")
    return replace(a, index_url=a.index_url or b.index_url, extra_index_urls=a.extra_index_urls + b.extra_index_urls,
                   find_links=a.find_links + b.find_links, no_index=a.no_index or b.no_index,
                   constraints=a.constraints + b.constraints, notes=a.notes + b.notes)


def _redact_check(url: str, what: str) -> str:
    if not url:
        raise LockError(f"{what} needs a URL")
    return check_url(url, what)


def marker_environment(python: str, platform: str) -> dict[str, str]:
    """PEP 508 marker values of a lock target ("3.11", "linux-x86_64"); the patch release is unknown, so
    python_full_version is X.Y.0 (as resolvers given a Python version assume)."""
    return {"python_version": python, "python_full_version": f"{python}.0", "sys_platform": "linux",
            "platform_system": "Linux", "os_name": "posix", "platform_machine": platform.split("-", 1)[1],
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "implementation_version": f"{python}.0"}


def apply_markers(reqs: Sequence[Requirement], python: str, platform: str,
                  ) -> tuple[tuple[Requirement, ...], tuple[str, ...]]:
    """Requirements whose marker holds for the lock's target (they keep it); the others dropped with a note."""
    env = marker_environment(python, platform)
    kept: list[Requirement] = []
    notes: list[str] = []
    for req in reqs:
        if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
            notes.append(f"{req} is dropped: its marker does not hold for Python {python} on {platform}")
            continue
        kept.append(req)
    return tuple(kept), tuple(notes)


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
        raise LockUsageError(f"--python {version!r} is neither an interpreter nor a version like 3.11")
    return f"{m.group(1)}.{m.group(2)}"


def newest_python(mats: Matrices) -> tuple[int, int]:
    """The newest CPython minor series any torch, TensorFlow, jax or PaddlePaddle row admits."""
    specs = [r.python for r in mats.torch.releases] + [r.python for r in mats.tensorflow.releases]
    specs += [r.python for r in mats.jax.releases] + [r.python for r in mats.paddle.releases]
    # NOTE: only ranges with a ceiling say which Pythons exist (">=3.11" admits 3.39 too).
    capped = [s for s in specs if any(c.operator in ("<", "<=", "==", "~=", "===") for c in s)]
    admitted = [minor for minor in range(40) if any(_series_admits(s, f"3.{minor}") for s in capped)]
    return (3, max(admitted, default=14))


def check_python_version(mats: Matrices, version: str) -> None:
    """Refuse a Python version no CPython release has: 2.0-2.7, and 3.0 up to one minor past the newest the
    matrices name (a new minor ships every October and the matrices lag; two past is no release).

    :raises LockUsageError: for 3.99, 4.0, 2.9 ...
    """
    minor = python_minor(version)
    major, number = (int(x) for x in minor.split("."))
    newest = newest_python(mats)
    if major not in (2, 3) or (major == 2 and number > 7) or (major == 3 and number > newest[1] + 1):
        raise LockUsageError(f"--python {version}: no CPython release has that version (2.0-2.7 and 3.x; the "
                             f"newest any matrix names is {newest[0]}.{newest[1]})")


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


def _matching(req: Requirement) -> str:
    """" matching torch==2.5.*" — nothing for a bare "torch" (not "torch has no ... build for torch")."""
    return f" matching {req}" if str(req.specifier) or req.extras else ""


def _variant_list(release: TorchRelease) -> str:
    return ", ".join(v.tag for v in release.variants) or "none"


def choose_torch(
    matrices: Matrices, req: Requirement, *, python: str, cuda: str, host: HostFacts | None,
    platform: str = "linux-x86_64",
) -> tuple[TorchRelease, TorchVariant, tuple[str, ...]]:
    """The torch release and build variant for ``req`` on Python ``python`` and ``--cuda``.

    ``--cuda auto`` judges the GPUs by the arch list of the lock's ``platform`` wheels ("linux-aarch64" has its own).

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
        raise LockError(f"torch.toml lists no CPU build{_matching(req)} on Python {python}")
    if cuda != "auto":
        try:
            want = Version(cuda)
        except InvalidVersion:
            raise LockUsageError(f"--cuda {cuda!r} is not a CUDA version (e.g. 12.4), 'auto' or 'cpu'") from None
        for release in fitting:
            for variant in release.variants:
                if variant.cuda and Version(variant.cuda) == want:
                    return release, variant, (f"torch {release.version} {variant.tag} build (--cuda {cuda})",)
        rows = "; ".join(f"release {r.version}: {_variant_list(r)}" for r in fitting[:4])
        raise LockError(f"torch has no CUDA {cuda} build{_matching(req)} on Python {python} (torch.toml {rows})")
    # --cuda auto: the host's driver AND every GPU's architecture must run the build.
    if host is None or host.driver is None:
        raise LockError("--cuda auto needs an NVIDIA driver on this machine and none answers; "
                        "pass --cuda X.Y (the target's CUDA), --cuda cpu, or the target's facts (--for SNAPSHOT, "
                        "--driver VERSION)")
    try:
        driver = Version(host.driver)
    except InvalidVersion:
        raise LockError(f"--cuda auto: the driver version {host.driver!r} is not a version") from None
    rejected: list[str] = []
    wheels = platform.replace("-", "_")
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
            arch = variant.arch(wheels)
            if host.ccs and (arch.sass is None
                             or not all(runs_on(cc, arch.sass, arch.ptx or ()) for cc in host.ccs)):
                rejected.append(f"{release.version} {variant.tag}: no kernels for compute capability "
                                f"{', '.join(host.ccs)}" if arch.sass is not None else
                                f"{release.version} {variant.tag}: compiled architectures ({wheels}) unknown")
                continue
            ok.append((_native_ok(matrices, variant.cuda, driver), Version(variant.cuda), variant))
        if ok:
            native, _, variant = max(ok, key=lambda t: (t[0], t[1]))
            how = "its own driver floor" if native else "minor-version compatibility"
            gpus = f" and compute capability {', '.join(host.ccs)}" if host.ccs else ""
            return release, variant, (f"torch {release.version} {variant.tag}: newest CUDA build that driver "
                                      f"{host.driver}{gpus} run ({how}; targets: {host.source})",)
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
        raise LockUsageError(f"--platform {platform!r}: envguard locks for linux-x86_64 or linux-aarch64")
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
            raise LockUsageError(f"--cuda {cuda!r} is not a CUDA version (e.g. 12.4), 'auto' or 'cpu'") from None
    pins: list[str] = [str(r) for r in requirements]
    reasons: tuple[str, ...] = ()
    indexes: tuple[IndexUse, ...] = ()
    expect: list[tuple[str, str]] = []
    target: LockTarget | None = None
    majors: dict[str, int | None] = {}
    builds: list[PlannedBuild] = []
    unknown = torch_req is not None and newer_than_known(matrices, torch_req)
    if torch_req is not None and unknown:
        if cuda == "cpu":
            raise LockError(f"{torch_req}: no release it admits is in torch.toml, so envguard does not know which "
                            "index serves its CPU build; give --index-url/--extra-index-url for it, or lock a "
                            "release torch.toml knows")
        newest = matrices.torch.releases[0].version if matrices.torch.releases else "none"
        why: tuple[str, ...] = (
               f"{torch_req} is newer than every release torch.toml knows (newest {newest}): the default index's "
               "build is locked and its CUDA read from the wheels it pins; its compiled GPU architectures, "
               "cuDNN/NCCL pairing and companion table are unknown to envguard",)
        reasons += why
        if "torch" not in by_name:
            pins.append(str(torch_req))
        target = LockTarget(python, platform, None if cuda == "auto" else cuda, None)
        builds.append(PlannedBuild("torch", "newer than torch.toml", None, None, str(torch_req), why[0]))
    elif torch_req is not None:
        release, variant, why = choose_torch(matrices, torch_req, python=python, cuda=cuda, host=host,
                                           platform=platform)
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
        index_url = variant.index_url
        if platform == "linux-x86_64" and variant.tag == release.pypi_default:
            local = ""
            index_url = None
            reasons += (f"{variant.tag} is PyPI's default torch {release.version} build on Linux x86_64: "
                        "the default index serves it",)
        elif variant.index_url is None:
            raise LockError(f"torch.toml release {release.version} variant {variant.tag} has no index_url")
        else:
            indexes = (IndexUse(check_url(variant.index_url), f"torch {release.version} {variant.tag} builds"),)
        target = _target(matrices, python, platform, variant.cuda, variant.tag, variant.cudnn, variant.nccl)
        expect = [("torch", local)] + [(c, local) for c in TORCH_COMPANIONS if c in by_name]
        majors["torch"] = Version(variant.cuda).major if variant.cuda else None
        builds.append(PlannedBuild("torch", release.version, variant.tag, index_url,
                                   _narrow(torch_req, f"=={release.version}.*"), why[0]))
    # NOTE: with torch in the request its build decides the CUDA; TensorFlow and JAX then follow its major.
    follow = cuda if target is None else (target.cuda or "cpu")
    tf_key = next((k for k in ("tensorflow", "tensorflow-cpu") if k in by_name), None)
    if tf_key == "tensorflow":
        tf, tf_cuda, why, tf_set = choose_tensorflow(matrices, by_name["tensorflow"], python=python, cuda=follow,
                                                     host=host)
        reasons += why
        extra = "and-cuda" if tf_cuda and tf.and_cuda else None
        spec = series_set([r.version for r in tf_set], [r.version for r in matrices.tensorflow.releases])
        pins = [_narrow(r, spec, extra) if canonicalize_name(r.name) == "tensorflow" else p
                for r, p in zip(requirements, pins, strict=False)] + pins[len(requirements):]
        builds.append(PlannedBuild("tensorflow", ", ".join(r.version for r in reversed(tf_set)),
                                   extra or ("system-cuda" if tf_cuda else "cpu"), None,
                                   _narrow(by_name["tensorflow"], spec, extra), why[0]))
        majors["tensorflow"] = Version(tf_cuda).major if tf_cuda else None
        if target is None:
            target = _target(matrices, python, platform, tf_cuda, "and-cuda" if extra else ("cpu" if not tf_cuda
                             else "system-cuda"), tf.cudnn if tf_cuda else None, None)
    if "jax" in by_name:
        _row, plugin, why = choose_jax(matrices, by_name["jax"], python=python, cuda=follow, host=host)
        reasons += why
        builds.append(PlannedBuild("jax", f"{_row.version}+", plugin.extra if plugin else "cpu", None,
                                   _narrow(by_name["jax"], "", plugin.extra if plugin else None), why[0]))
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
    return LockPlan(tuple(pins), indexes, target, tuple(expect), reasons, tuple(builds), unknown)


def newer_than_known(matrices: Matrices, req: Requirement) -> bool:
    """True when no torch.toml release admits ``req`` but a release newer than all of them would."""
    known = [Version(r.version) for r in matrices.torch.releases]
    if not known or any(_series_admits(req.specifier, r.version) for r in matrices.torch.releases):
        return False
    top = max(known)
    later = [f"{top.major}.{top.minor + n}" for n in range(1, 6)] + [f"{top.major + 1}.{m}" for m in range(3)]
    return any(_series_admits(req.specifier, v) for v in later)


def driver_text(version: Version) -> str:
    """NVIDIA's spelling of a driver version: fields after the first keep two digits (535.104.05)."""
    head, *rest = version.release
    return ".".join([str(head), *(f"{n:02d}" for n in rest)])


def driver_floor(matrices: Matrices, cuda: str | None) -> str | None:
    """The lowest Linux driver that runs ``cuda`` (minor-version compatibility), in NVIDIA's spelling."""
    floor = matrices.cuda_driver.floor(cuda, "linux") if cuda else None
    return driver_text(floor.min_driver) if floor else None


def _target(matrices: Matrices, python: str, platform: str, cuda: str | None, variant: str | None,
            cudnn: str | None, nccl: str | None) -> LockTarget:
    return LockTarget(python=python, platform=platform, cuda=cuda, variant=variant, cudnn=cudnn, nccl=nccl,
                      driver_floor=driver_floor(matrices, cuda))


def _host_driver(host: HostFacts | None) -> Version:
    if host is None or host.driver is None:
        raise LockError("--cuda auto needs an NVIDIA driver on this machine and none answers; "
                        "pass --cuda X.Y (the target's CUDA), --cuda cpu, or the target's facts (--for SNAPSHOT, "
                        "--driver VERSION)")
    try:
        return Version(host.driver)
    except InvalidVersion:
        raise LockError(f"--cuda auto: the driver version {host.driver!r} is not a version") from None


def series_set(chosen: Sequence[str], known: Sequence[str]) -> str:
    """A specifier admitting exactly the minor series ``chosen`` among ``known`` (``>=2.18,<2.21,!=2.19.*``):
    the resolver gets every acceptable release, not one, and nothing newer than the matrices know."""
    keys = sorted({Version(c) for c in chosen})
    if not keys:
        return ""
    allk = sorted({Version(k) for k in known} | set(keys))
    lo, hi = keys[0], keys[-1]
    if lo == hi:
        return f"=={lo}.*"
    above = [k for k in allk if k > hi]
    upper = f"<{above[0]}" if above else f"<{hi.major}.{hi.minor + 1}"
    holes = [f"!={k}.*" for k in allk if lo < k < hi and k not in keys]
    return ",".join([f">={lo}", upper, *holes])


def choose_tensorflow(
    matrices: Matrices, req: Requirement, *, python: str, cuda: str, host: HostFacts | None,
) -> tuple[TensorflowRelease, str | None, tuple[str, ...], tuple[TensorflowRelease, ...]]:
    """The newest acceptable TensorFlow release, the CUDA its GPU build brings (None: CPU), why, and every
    acceptable release (the resolver picks among them: with torch in the request, the newest may conflict).

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
        return fitting[0], None, (f"TensorFlow {fitting[0].version} without [and-cuda] (--cuda cpu)",), tuple(fitting)
    gpu = [r for r in fitting if r.cuda]
    if cuda != "auto":
        want = Version(cuda).major
        chosen = [r for r in gpu if Version(r.cuda or "0").major == want]
        if not chosen:
            rows = "; ".join(f"release {r.version}: CUDA {r.cuda}" for r in gpu[:4]) or "no GPU rows"
            raise LockError(f"no TensorFlow release matching {req} on Python {python} is built for CUDA {want}.x "
                            f"(tensorflow.toml {rows})")
        r = chosen[0]
        if r.and_cuda:
            chosen = [c for c in chosen if c.and_cuda]
        span = ", ".join(c.version for c in reversed(chosen))
        return r, r.cuda, (f"TensorFlow {span}: the releases built for CUDA {want}.x (--cuda {cuda}); the resolver "
                           "picks among them" + ("; [and-cuda] brings their CUDA libraries" if r.and_cuda else
                                                  "; they load the system's CUDA and cuDNN (no [and-cuda] extra)"),
                           ), tuple(chosen)
    driver = _host_driver(host)
    ok = []
    for r in gpu:
        floor = matrices.cuda_driver.floor(r.cuda or "", host.system if host else "linux")
        if floor is not None and driver >= floor.min_driver:
            ok.append(r)
    if ok:
        r = ok[0]
        if r.and_cuda:
            ok = [c for c in ok if c.and_cuda]
        span = ", ".join(c.version for c in reversed(ok))
        return r, r.cuda, (f"TensorFlow {span}: releases whose CUDA driver {driver} ({host.source if host else ''}) "
                           "runs (compiled architectures are not in tensorflow.toml: not checked)",), tuple(ok)
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
            variant = release.pypi_variant if release else None
            if local is None and variant is not None:
                return variant.cuda or "cpu"
    return "auto"
