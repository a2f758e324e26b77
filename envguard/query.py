"""Matrix queries (`envguard matrix`): which builds run on a given driver, GPU and Python; newest CUDA per driver."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from envguard.archs import runs_on
from envguard.errors import InputError
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

    :raises InputError: when it is not a version.
    """
    try:
        return Version(text.strip())
    except InvalidVersion:
        raise InputError(f"{what} {text!r} is not a version (e.g. 535.104.05)") from None


def resolve_gpu(matrices: Matrices, gpu: str | None, cc: str | None) -> tuple[str | None, str]:
    """Compute capability from ``--cc`` or a product name; the second value says where it came from.

    :raises InputError: for a name the gpu-arch matrix does not know.
    """
    if cc:
        if matrices.gpu_arch.arch(cc) is None:
            raise InputError(f"compute capability {cc!r} is not in gpu-arch.toml (e.g. 8.6, 9.0, 12.0)")
        return cc, f"--cc {cc}"
    if gpu:
        row = matrices.gpu_arch.lookup_name(gpu)
        if row is None:
            raise InputError(f"GPU {gpu!r} is not in envguard's gpu-arch matrix; pass --cc MAJOR.MINOR instead "
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
    have_driver = parse_version_arg(driver, "driver") if driver else None
    py = parse_version_arg(python, "python") if python else None
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
    have = parse_version_arg(driver, "driver")
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
