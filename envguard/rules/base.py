"""The Rule protocol and the small shared helpers rules use to read a snapshot."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from envguard.archs import version
from envguard.findings import Evidence, Finding
from envguard.knowledge import Matrices
from envguard.knowledge.torch import TorchRelease, TorchVariant, wheel_platform
from envguard.snapshot import (
    CudaToolkit,
    DriverInfo,
    FrameworkBuild,
    GpuInfo,
    PythonInfo,
    Snapshot,
    Unavailable,
    normalize_name,
)

__all__ = [
    "CORE_FRAMEWORKS", "Pin", "Rule", "applicable_requirements", "build_evidence", "cuda_builds", "driver_evidence",
    "ev", "gpu_cc", "gpu_evidence", "marker_environment", "newest_toolkit", "pip_install_torch", "platform_of",
    "series", "system_of", "torch_variant", "version",
]

#: Frameworks whose builds target an accelerator (companions such as torchvision are judged separately).
CORE_FRAMEWORKS = ("torch", "tensorflow", "jax", "paddle")


#: A cuDNN call that failed for a reason other than memory (CUDNN_STATUS_ALLOC_FAILED is out of memory): with a
#: cuDNN version warning in the same report, evidence that the mismatched library did not run.
CUDNN_CALL_FAILED = re.compile(r"CUDNN_STATUS_(?:BAD_PARAM|EXECUTION_FAILED|NOT_SUPPORTED|INTERNAL_ERROR|"
                               r"NOT_INITIALIZED|ARCH_MISMATCH|MAPPING_ERROR|INVALID_VALUE)")


class Rule(Protocol):
    """Judges one concern; pure: never probes, never prints."""

    id: str
    summary: str

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterable[Finding]:
        """Yield findings for this snapshot."""
        ...


def series(text: str) -> str:
    """``"2.5.1+cu124"`` → ``"2.5"``."""
    v = version(text)
    return f"{v.major}.{v.minor}" if v is not None else text


def system_of(snapshot: Snapshot) -> str:
    """"linux", "windows" or "darwin" for the target interpreter (falling back to the host)."""
    if isinstance(snapshot.python, PythonInfo):
        plat = snapshot.python.platform
        return "windows" if plat.startswith("win") else "darwin" if plat == "darwin" else "linux"
    host = snapshot.host.system.lower()
    return "windows" if host.startswith("win") else host or "linux"


def platform_of(snapshot: Snapshot) -> str:
    """The wheel platform of the target ("linux_x86_64", "linux_aarch64", "win_amd64"), for per-platform arch lists."""
    machine = snapshot.python.machine if isinstance(snapshot.python, PythonInfo) else snapshot.host.arch
    return wheel_platform(system_of(snapshot), machine or "x86_64")


def cuda_builds(snapshot: Snapshot) -> Iterator[FrameworkBuild]:
    """Core framework builds that target CUDA."""
    return (f for f in snapshot.frameworks if f.name in CORE_FRAMEWORKS and f.accelerator == "cuda")


def interpreter_source(snapshot: Snapshot, what: str) -> str:
    """Where a fact of the target interpreter came from: "target interpreter distributions" for a probed one,
    the report for a pasted report (which has no interpreter envguard could look at)."""
    return snapshot.origin if snapshot.from_report else f"target interpreter {what}"


def newest_toolkit(snapshot: Snapshot) -> tuple[Version, CudaToolkit] | None:
    """The newest CUDA toolkit the snapshot names whose version parses, with its parsed version."""
    toolkits = [(v, t) for t in snapshot.toolkit_list() if (v := version(t.version)) is not None]
    return max(toolkits, key=lambda pair: pair[0]) if toolkits else None


def ev(fact: str, value: object, source: str) -> Evidence:
    """Shorthand for an Evidence row."""
    return Evidence(fact, str(value), source)


def driver_evidence(driver: DriverInfo) -> tuple[Evidence, ...]:
    """The driver version and the CUDA it reports, with their source."""
    rows = [ev("driver", driver.version or "version unknown", driver.source)]
    if driver.cuda_driver_version:
        rows.append(ev("driver max CUDA", driver.cuda_driver_version, driver.source))
    return tuple(rows)


def build_evidence(build: FrameworkBuild, snapshot: Snapshot) -> Evidence:
    """``torch 2.5.1+cu124 (CUDA 12.4)`` with its source; a version the snapshot lacks is named as its mode says it
    ("version not reported" for a report, "version unknown" for a probe)."""
    detail = f" (CUDA {build.cuda})" if build.cuda and build.accelerator == "cuda" else ""
    version = build.version_label(snapshot.from_report)
    return ev(build.name, f"{version}{detail}", f"{build.distribution}: {build.source}")


def gpu_evidence(gpu: GpuInfo, cc: str, source: str) -> Evidence:
    """``GPU 0: NVIDIA GeForce RTX 3090, compute capability 8.6`` with where the capability came from."""
    return ev(f"GPU {gpu.index}", f"{gpu.name}, compute capability {cc}", source)


def gpu_cc(gpu: GpuInfo, matrices: Matrices) -> tuple[str | None, str]:
    """A GPU's compute capability and where it came from (the GPU itself, or the name table)."""
    if gpu.compute_capability:
        return gpu.compute_capability, gpu.source
    row = matrices.gpu_arch.lookup_name(gpu.name)
    if row is not None:
        return row.cc, f"gpu-arch.toml: {row.name}"
    return None, "unknown"


def torch_variant(build: FrameworkBuild, matrices: Matrices) -> tuple[TorchRelease | None, TorchVariant | None]:
    """The torch matrix release and variant a build belongs to."""
    release = matrices.torch.release(build.version)
    if release is None:
        return None, None
    if build.accelerator == "cuda" and build.cuda:
        return release, release.variant("cu" + build.cuda.replace(".", "")[:4])
    if build.accelerator == "cpu":
        return release, release.variant("cpu")
    return release, None


def pip_install_torch(full_version: str, variant: TorchVariant | None) -> str:
    """The exact command that installs this torch release and variant (from its own index)."""
    base = Version(full_version).public if version(full_version) else full_version
    cmd = f"pip install 'torch=={base}'"
    if variant is None:
        return cmd
    if variant.index_url:
        cmd += f" --index-url {variant.index_url}"
    return cmd


def marker_environment(python: PythonInfo | Unavailable) -> dict[str, str] | None:
    """PEP 508 marker environment of the target interpreter (None when unknown)."""
    if isinstance(python, Unavailable):
        return None
    plat = python.platform
    system = "Windows" if plat.startswith("win") else "Darwin" if plat == "darwin" else "Linux"
    short = ".".join(python.version.split(".")[:2])
    return {
        "python_version": short,
        "python_full_version": python.version,
        "platform_system": system,
        "platform_machine": python.machine,
        "sys_platform": plat,
        "os_name": "nt" if system == "Windows" else "posix",
        "implementation_name": python.implementation.lower(),
        "platform_python_implementation": python.implementation,
        "extra": "",
    }


@dataclass(frozen=True, slots=True)
class Pin:
    """One Requires-Dist requirement of an installed distribution that applies here."""

    owner: str
    requirement: Requirement


def applicable_requirements(snapshot: Snapshot, owner: str, prefix: str = "", extra: str = "") -> list[Pin]:
    """Requires-Dist of ``owner`` whose markers hold for the target (with ``extra`` active, if given)."""
    dist = snapshot.package_map().get(normalize_name(owner))
    env = marker_environment(snapshot.python)
    if dist is None or env is None:
        return []
    env["extra"] = extra
    out = []
    for line in dist.requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if prefix and not normalize_name(req.name).startswith(prefix):
            continue
        if req.marker is not None:
            try:
                if not Marker(str(req.marker)).evaluate(env):
                    continue
            except (InvalidMarker, ValueError):
                continue
        out.append(Pin(dist.name, req))
    return out
