"""Matrix queries (`envguard matrix`): which builds run on a given driver, GPU and Python; newest CUDA per driver."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from envguard.archs import runs_on
from envguard.errors import UsageError
from envguard.knowledge import Matrices
from envguard.knowledge.cuda_driver import CudaRelease
from envguard.knowledge.torch import TorchRelease, TorchVariant, wheel_platform


@dataclass(frozen=True, slots=True)
class TorchCandidate:
    """A torch release and variant, and whether each constraint holds (None = the matrix does not know)."""

    release: TorchRelease
    variant: TorchVariant
    driver_ok: bool | None
    gpu_ok: bool | None
    python_ok: bool | None
    install: str
    notes: tuple[str, ...]

    @property
    def runs(self) -> bool | None:
        """True when every constraint holds, False when one fails, None when one is unknown."""
        checks = (self.driver_ok, self.gpu_ok, self.python_ok)
        if False in checks:
            return False
        return None if None in checks else True


@dataclass(frozen=True, slots=True)
class CudaAnswer:
    """What a driver runs: the newest toolkit at full feature level, and the majors it runs by compatibility."""

    driver: str
    system: str
    #: Newest CUDA release whose own (Table 3) driver is not newer than this one.
    newest_native: CudaRelease | None
    #: Majors whose minor-version-compatibility floor this driver meets, newest first, with that floor.
    compatible_majors: tuple[tuple[int, str], ...]
    #: Releases newer than ``newest_native`` whose own driver on ``system`` is not recorded, newest first:
    #: whether this driver runs them at their full feature level is unknown (never assumed).
    unknown_floor: tuple[CudaRelease, ...] = ()
    #: Majors of ``unknown_floor`` releases whose minor-version-compatibility floor on ``system`` is not
    #: recorded either: whether this driver runs them at all is unknown.
    unknown_majors: tuple[int, ...] = ()

    @property
    def newest(self) -> CudaRelease | None:
        """The newest CUDA release the matrix knows that this driver runs or may run (native floor unknown)."""
        candidates = [r for r in (self.newest_native, *self.unknown_floor) if r is not None]
        return max(candidates, key=lambda r: r.cuda, default=None)

    def native(self, release: CudaRelease) -> bool | None:
        """Whether the driver runs ``release`` at its full feature level (None: its floor is not recorded)."""
        if release in self.unknown_floor:
            return None
        return self.newest_native is not None and release.cuda <= self.newest_native.cuda


def parse_version_arg(text: str, what: str) -> Version:
    """A version given on the command line.

    :raises UsageError: when it is not a version.
    """
    try:
        return Version(text.strip())
    except InvalidVersion:
        raise UsageError(f"{what} {text!r} is not a version (e.g. 535.104.05)") from None


def resolve_gpu(matrices: Matrices, gpu: str | None, cc: str | None) -> tuple[str | None, str]:
    """Compute capability from ``--cc`` or a product name; the second value says where it came from.

    :raises UsageError: for a name the gpu-arch matrix does not know.
    """
    if cc:
        if matrices.gpu_arch.arch(cc) is None:
            raise UsageError(f"compute capability {cc!r} is not in gpu-arch.toml (e.g. 8.6, 9.0, 12.0)")
        return cc, f"--cc {cc}"
    if gpu:
        row = matrices.gpu_arch.lookup_name(gpu)
        if row is None:
            raise UsageError(f"GPU {gpu!r} is not in envguard's gpu-arch matrix; pass --cc MAJOR.MINOR instead "
                             "(nvidia-smi --query-gpu=name,compute_cap --format=csv shows it)")
        return row.cc, f"{row.name} (gpu-arch.toml)"
    return None, "not given"


def torch_candidates(
    matrices: Matrices, *, driver: str | None, cc: str | None, python: str | None, system: str = "linux",
    machine: str = "x86_64",
) -> tuple[TorchCandidate, ...]:
    """Every torch release and CUDA/CPU variant, newest first, judged against the given constraints.

    The GPU verdict reads the arch list of ``system``/``machine``'s wheels (Windows and Linux aarch64 have their
    own); where that platform's list is not recorded the verdict is unknown.
    """
    platform = wheel_platform(system, machine)
    have_driver = parse_version_arg(driver, "--driver") if driver else None
    py = parse_version_arg(python, "--python") if python else None
    out: list[TorchCandidate] = []
    for release in matrices.torch.releases:
        for variant in release.variants:
            if variant.tag.startswith("rocm"):
                continue
            notes: list[str] = []
            driver_ok: bool | None = True
            if variant.cuda and have_driver is not None:
                floor = matrices.cuda_driver.floor(variant.cuda, system)
                driver_ok = None if floor is None else have_driver >= floor.min_driver
                if floor is not None and not driver_ok:
                    notes.append(f"needs driver >= {floor.min_driver}")
            gpu_ok: bool | None = True
            if cc is not None:
                if variant.cuda is None:
                    notes.append("CPU build: runs, but not on the GPU")
                elif (arch := variant.arch(platform)).sass is None:
                    gpu_ok = None
                    notes.append("compiled architectures unknown" if arch.platform == "linux_x86_64" else
                                 f"compiled architectures of the {arch.platform} wheels unknown")
                else:
                    gpu_ok = runs_on(cc, arch.sass, arch.ptx or ())
                    if not gpu_ok:
                        notes.append(f"no kernels for compute capability {cc}")
            python_ok: bool | None = True
            if py is not None:
                python_ok = f"{py.major}.{py.minor}" in release.python
                if not python_ok:
                    notes.append(f"Python {release.python}")
            install = f"pip install 'torch=={release.version}.*'"
            if variant.index_url:
                install += f" --index-url {variant.index_url}"
            out.append(TorchCandidate(release, variant, driver_ok, gpu_ok, python_ok, install, tuple(notes)))
    return tuple(out)


def cuda_for_driver(matrices: Matrices, driver: str, system: str = "linux") -> CudaAnswer:
    """The newest CUDA a driver runs natively, and which majors it runs by minor-version compatibility."""
    have = parse_version_arg(driver, "--driver")
    matrix = matrices.cuda_driver
    native = [r for r in matrix.releases
              if (r.linux_driver if system != "windows" else r.windows_driver) is not None
              and have >= (r.linux_driver if system != "windows" else r.windows_driver)]  # type: ignore[operator] # reason: None filtered above
    newest = max(native, key=lambda r: r.cuda, default=None)
    majors = []
    unknown_majors: set[int] = set()
    floors = {f.major: (f.linux_min_driver if system != "windows" else f.windows_min_driver) for f in matrix.families}
    for family in sorted(matrix.families, key=lambda f: f.major, reverse=True):
        floor = floors[family.major]
        if floor is not None and have >= floor:
            majors.append((family.major, str(floor)))
    compatible = {m for m, _ in majors}
    unknown = []
    for r in sorted(matrix.releases, key=lambda r: r.cuda, reverse=True):
        own = r.linux_driver if system != "windows" else r.windows_driver
        if own is not None or (newest is not None and r.cuda <= newest.cuda):
            continue
        if r.cuda.major in compatible:
            unknown.append(r)
        elif floors.get(r.cuda.major) is None:
            unknown.append(r)  # neither its own driver nor its major's compatibility floor is recorded
            unknown_majors.add(r.cuda.major)
    return CudaAnswer(driver, system, newest, tuple(majors), tuple(unknown),
                      tuple(sorted(unknown_majors, reverse=True)))


# ---- the same question for TensorFlow, jax and PaddlePaddle ------------------------------------------------

#: Frameworks `envguard matrix FRAMEWORK` answers for (torch has its own, richer, candidate type above).
FRAMEWORKS = ("tensorflow", "jax", "paddle")


@dataclass(frozen=True, slots=True)
class BuildCandidate:
    """One release and build (a CUDA build or the CPU one) of a framework, judged against the constraints."""

    framework: str
    version: str
    #: "cuda12.5", "cuda12" (a jax plugin major), "cu126" (a Paddle variant) or "cpu".
    build: str
    cuda: str | None
    python: str
    driver_ok: bool | None
    gpu_ok: bool | None
    python_ok: bool | None
    os_ok: bool | None
    #: The pip command that installs this build; None when the matrix does not record one.
    install: str | None
    notes: tuple[str, ...]
    source: str

    @property
    def runs(self) -> bool | None:
        """True when every constraint holds, False when one fails, None when one is unknown."""
        checks = (self.driver_ok, self.gpu_ok, self.python_ok, self.os_ok)
        if False in checks:
            return False
        return None if None in checks else True


@dataclass(frozen=True, slots=True)
class _Asked:
    driver: Version | None
    cc: str | None
    python: Version | None
    system: str


def _python_ok(spec: object, asked: _Asked, notes: list[str]) -> bool | None:
    if asked.python is None:
        return True
    text = str(spec)
    if not text:
        notes.append("supported Python unknown")
        return None
    ok = Version(f"{asked.python.major}.{asked.python.minor}") in spec  # type: ignore[operator] # reason: a SpecifierSet
    if not ok:
        notes.append(f"Python {text}")
    return ok


def _driver_floor_ok(floor: Version | None, asked: _Asked, notes: list[str]) -> bool | None:
    if asked.driver is None:
        return True
    if floor is None:
        notes.append("minimum driver unknown")
        return None
    if asked.driver < floor:
        notes.append(f"needs driver >= {floor}")
        return False
    return True


def _cc_ok(min_cc: str | None, asked: _Asked, notes: list[str], *, gpu: bool) -> bool | None:
    if asked.cc is None:
        return True
    if not gpu:
        notes.append("CPU build: runs, but not on the GPU")
        return True
    if min_cc is None:
        notes.append("compiled architectures unknown")
        return None
    have, need = Version(asked.cc), Version(min_cc)
    if have < need:
        notes.append(f"needs compute capability >= {min_cc}")
        return False
    return True


def _cuda_floor(matrices: Matrices, cuda: str | None, system: str) -> Version | None:
    floor = matrices.cuda_driver.floor(cuda, system) if cuda else None
    return None if floor is None else Version(str(floor.min_driver))


def framework_candidates(
    matrices: Matrices, framework: str, *, driver: str | None, cc: str | None, python: str | None,
    system: str = "linux",
) -> tuple[BuildCandidate, ...]:
    """Every release and build of ``framework`` (tensorflow, jax, paddle), newest first, judged.

    :raises UsageError: for a framework envguard has no table of, or a constraint that is not a version.
    """
    asked = _Asked(parse_version_arg(driver, "--driver") if driver else None, cc,
                   parse_version_arg(python, "--python") if python else None, system)
    if framework == "tensorflow":
        return _tensorflow(matrices, asked)
    if framework == "jax":
        return _jax(matrices, asked)
    if framework == "paddle":
        return _paddle(matrices, asked)
    raise UsageError(f"no matrix for {framework!r}: choose from torch, {', '.join(FRAMEWORKS)}")


def _tensorflow(matrices: Matrices, asked: _Asked) -> tuple[BuildCandidate, ...]:
    out: list[BuildCandidate] = []
    for rel in matrices.tensorflow.releases:
        src = rel.prov.source
        if rel.cuda:
            notes: list[str] = []
            driver_ok = _driver_floor_ok(_cuda_floor(matrices, rel.cuda, asked.system), asked, notes)
            gpu_ok = _cc_ok(None, asked, notes, gpu=True)
            python_ok = _python_ok(rel.python, asked, notes)
            os_ok: bool | None = True
            if asked.system == "windows":
                os_ok = rel.windows_native_gpu
                if os_ok is False:
                    notes.append("no native-Windows GPU build (use WSL2)")
                elif os_ok is None:
                    notes.append("native-Windows GPU support unknown")
            if rel.and_cuda:
                install: str | None = f"pip install 'tensorflow[and-cuda]=={rel.version}.*'"
            elif Version(rel.version) >= Version("2.1"):
                install = f"pip install 'tensorflow=={rel.version}.*'"
                notes.append(f"needs CUDA {rel.cuda} and cuDNN {rel.cudnn or '?'} installed on the system")
            else:
                install = None
                notes.append("the GPU wheel of this series is not recorded in tensorflow.toml")
            out.append(BuildCandidate("tensorflow", rel.version, f"cuda{rel.cuda}", rel.cuda, str(rel.python),
                                      driver_ok, gpu_ok, python_ok, os_ok, install, tuple(notes), src))
        notes = []
        gpu_ok = _cc_ok(None, asked, notes, gpu=False)
        python_ok = _python_ok(rel.python, asked, notes)
        out.append(BuildCandidate("tensorflow", rel.version, "cpu", None, str(rel.python), True, gpu_ok, python_ok,
                                  True, f"pip install 'tensorflow=={rel.version}.*'", tuple(notes), src))
    return tuple(out)


def _jax(matrices: Matrices, asked: _Asked) -> tuple[BuildCandidate, ...]:
    out: list[BuildCandidate] = []
    for rel in matrices.jax.releases:
        version = str(rel.version)
        for plugin in sorted(rel.cuda, key=lambda p: p.major, reverse=True):
            notes: list[str] = []
            driver_ok = _driver_floor_ok(plugin.min_driver, asked, notes)
            gpu_ok = _cc_ok(plugin.min_cc, asked, notes, gpu=True)
            python_ok = _python_ok(rel.python, asked, notes)
            os_ok = asked.system != "windows"
            if not os_ok:
                notes.append("no native-Windows GPU wheels (jax.toml: Linux only)")
            if plugin.extra:
                install: str | None = f"pip install 'jax[{plugin.extra}]=={version}'"
            elif plugin.plugin:
                install = f"pip install 'jax=={version}' '{plugin.plugin}=={version}'"
            else:
                install = None
            cuda = str(plugin.built_with) if plugin.built_with else str(plugin.major)
            out.append(BuildCandidate("jax", version, f"cuda{plugin.major}", cuda, str(rel.python), driver_ok,
                                      gpu_ok, python_ok, os_ok, install, tuple(notes), plugin.prov.source))
        notes = []
        gpu_ok = _cc_ok(None, asked, notes, gpu=False)
        python_ok = _python_ok(rel.python, asked, notes)
        out.append(BuildCandidate("jax", version, "cpu", None, str(rel.python), True, gpu_ok, python_ok, True,
                                  f"pip install 'jax=={version}'", tuple(notes), rel.prov.source))
    return tuple(out)


def _paddle(matrices: Matrices, asked: _Asked) -> tuple[BuildCandidate, ...]:
    out: list[BuildCandidate] = []
    for rel in matrices.paddle.releases:
        for variant in rel.variants:
            notes: list[str] = []
            floor = variant.min_driver or _cuda_floor(matrices, variant.cuda, asked.system)
            driver_ok = _driver_floor_ok(floor, asked, notes)
            gpu_ok = _cc_ok(variant.min_cc, asked, notes, gpu=True)
            python_ok = _python_ok(rel.python, asked, notes)
            os_ok: bool | None = True
            if asked.system == "windows":
                os_ok = None
                notes.append("paddle.toml lists the Linux x86_64 wheels")
            if variant.index_url:
                install: str | None = (f"python -m pip install 'paddlepaddle-gpu=={rel.version}.*' "
                                       f"-i {variant.index_url}")
            elif rel.default_variant == variant.tag:
                install = f"python -m pip install 'paddlepaddle-gpu=={rel.version}.*'"
            else:
                install = None
                notes.append(f"a .{variant.post or 'postNNN'} wheel from Paddle's find-links pages (see paddle.toml)")
            out.append(BuildCandidate("paddle", rel.version, variant.tag, variant.cuda, str(rel.python), driver_ok,
                                      gpu_ok, python_ok, os_ok, install, tuple(notes), variant.prov.source))
    return tuple(out)
