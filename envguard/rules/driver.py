"""Driver rules: driver-missing, driver-library-mismatch, driver-too-old (minor-version compat applied)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from packaging.version import Version

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import (
    build_evidence,
    cuda_builds,
    driver_evidence,
    ev,
    newest_toolkit,
    pip_install_torch,
    system_of,
    version,
)
from envguard.snapshot import (
    CUDA_MAJOR_KEY,
    TORCH_CUDA_AVAILABLE_KEY,
    DriverInfo,
    FrameworkBuild,
    Snapshot,
    Unavailable,
    stated_parts,
)

RELOAD_FIX = (
    "reboot, or unload and reload the NVIDIA kernel modules so they match the installed user-space "
    "driver: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
)


def _shown_working(finding: Finding, build: FrameworkBuild, snapshot: Snapshot) -> Finding:
    """A driver-too-old error for the torch of a report whose collect_env says "Is CUDA available: Yes" is a warning:
    torch.cuda.is_available() is False when the driver cannot run torch's CUDA ("The NVIDIA driver on your system is
    too old"), so in that environment it does run it (pytorch/pytorch#19164: CUDA 9.0.176 on driver 384.59, below
    the 384.81 of NVIDIA's table, with CUDA available); the table's floor is kept as a warning."""
    shown = snapshot.environment.get(TORCH_CUDA_AVAILABLE_KEY)
    if shown is None or build.name != "torch" or finding.code != "driver-too-old" \
            or finding.severity is not Severity.ERROR:
        return finding
    where = stated_parts(shown)[1]
    return replace(finding, severity=Severity.WARNING,
                   message=f"{finding.message} The report shows torch's CUDA available, so this driver does run it "
                           "here; upgrade it before relying on the build.",
                   evidence=(*finding.evidence, ev("torch.cuda.is_available()", "True (Is CUDA available: Yes)",
                                                   where or "report")))


class DriverRule:
    """Is there a driver, does it match its own libraries, and is it new enough for each CUDA build?"""

    id = "driver"
    summary = "NVIDIA driver present, consistent, and new enough for each framework's CUDA build"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield driver findings."""
        driver = snapshot.driver
        builds = list(cuda_builds(snapshot))
        if isinstance(driver, Unavailable):
            yield from self._unavailable(driver, builds, snapshot)
            return
        for build in builds:
            for finding in self._too_old(driver, build, snapshot, matrices):
                yield _shown_working(finding, build, snapshot)
        image = image_build(snapshot)
        if image is not None:
            yield from self._too_old(driver, image, snapshot, matrices)
        toolkit = (toolkit_build(snapshot) or major_build(snapshot, matrices)) if not builds and image is None \
            else None
        if toolkit is not None and self._toolkit_judged(driver, toolkit, snapshot, matrices):
            yield from self._too_old(driver, toolkit, snapshot, matrices)

    @staticmethod
    def _toolkit_judged(driver: DriverInfo, toolkit: FrameworkBuild, snapshot: Snapshot, matrices: Matrices) -> bool:
        """A report's toolkit is judged by the driver's version against a known floor; a newer CUDA major than the
        driver's own CUDA is ReportedCudaMajorRule's finding (driver_compat.py), and no floor says nothing."""
        have, need, cuda = version(driver.version), version(toolkit.cuda), version(driver.cuda_driver_version)
        if have is None or need is None or matrices.cuda_driver.floor(toolkit.cuda or "", system_of(snapshot)) is None:
            return False
        if cuda is not None and cuda.release[:2] == need.release[:2]:
            # NOTE: the driver itself claims this CUDA (nvidia-smi's "CUDA Version" read as a toolkit too): a driver
            # older than its own CUDA's floor is a user-mode/kernel mismatch (error 804), the rules of that judge it
            return False
        return toolkit.distribution != "cuda-toolkit" or not (cuda is not None and cuda.major >= 11
                                                               and need.major > cuda.major)

    def _unavailable(self, driver: Unavailable, builds: list[FrameworkBuild], snapshot: Snapshot) -> Iterator[Finding]:
        evidence = (ev("driver", f"unavailable: {driver.reason}", ", ".join(driver.tried) or "probe"),)
        if driver.code == "driver-library-mismatch":
            yield Finding(
                "driver-library-mismatch", Severity.ERROR,
                "The NVIDIA kernel module and the user-space driver libraries have different versions "
                "(NVML: Driver/library version mismatch), so no CUDA program can start.",
                evidence, RELOAD_FIX, "https://docs.nvidia.com/deploy/nvml-api/ (NVML_ERROR_LIB_RM_VERSION_MISMATCH)",
                "driver",
            )
            return
        if not builds or driver.code == "not-reported":
            return  # a report that does not mention the driver says nothing about it
        names = ", ".join(f"{b.name} {b.version}" for b in builds)
        # An installed-but-not-loaded driver means a GPU is expected here; no driver at all may be a CPU box.
        loaded_problem = driver.code in ("driver-not-loaded", "timeout", "nvml-error")
        severity = Severity.ERROR if loaded_problem or snapshot.gpu_list() else Severity.WARNING
        tail = ("the driver is installed but not loaded" if driver.code == "driver-not-loaded"
                else "no NVIDIA driver answers")
        yield Finding(
            "driver-missing", severity,
            f"{names} {'is a CUDA build' if len(builds) == 1 else 'are CUDA builds'}, but {tail}, "
            "so they can only run on the CPU.",
            evidence + tuple(build_evidence(b, snapshot) for b in builds),
            "install the NVIDIA driver (e.g. `sudo ubuntu-drivers install` or your distribution's "
            "nvidia-driver package) and reboot; or, on a machine without an NVIDIA GPU, install CPU builds "
            "(pip install torch --index-url https://download.pytorch.org/whl/cpu)",
            None, "driver",
        )

    def _too_old(
        self, driver: DriverInfo, build: FrameworkBuild, snapshot: Snapshot, matrices: Matrices
    ) -> Iterator[Finding]:
        if not build.cuda:
            wheel_cuda = tf_wheel_cuda(build, snapshot, matrices)
            if wheel_cuda is None:
                return
            build = replace(build, cuda=wheel_cuda, source=f"{build.source}; CUDA {wheel_cuda}: the tensorflow wheel "
                            f"{build.version}'s tested build configuration (tensorflow.toml)")
        system = system_of(snapshot)
        if build.cuda is None:
            return
        floor = matrices.cuda_driver.floor(build.cuda, system)
        have = version(driver.version)
        if have is None and driver.cuda_driver_version:
            yield from self._by_max_cuda(driver, build, matrices, snapshot)
            return
        if floor is None or have is None:
            yield Finding(
                "unknown-version", Severity.INFO,
                f"envguard's cuda-driver matrix has no driver floor for CUDA {build.cuda} on {system}, "
                f"so whether driver {driver.version} runs {build.name} {build.version} is unknown.",
                (*driver_evidence(driver), build_evidence(build, snapshot)),
                "update envguard (newer matrices), or compare with NVIDIA's CUDA release notes, Table 3",
                matrices.cuda_driver.meta.source, build.name,
            )
            return
        if meets(driver.version or "", floor.min_driver):
            return
        fix = f"upgrade the NVIDIA driver to {floor.min_driver} or newer"
        alternative = self._older_build(driver, build, matrices, system)
        if alternative:
            fix += f"; or keep the driver and install a build it can run: {alternative}"
        compat = forward_compat_hint(build.cuda, snapshot, matrices)
        if compat:
            fix += f"; {compat}"
        subject = (f"Programs built with CUDA toolkit {build.version} (its CUDA {build.cuda} runtime) need"
                   if build.distribution == "cuda-toolkit" else
                   f"CUDA {build.version} (the report names CUDA by its major; even its oldest release, "
                   f"{build.cuda}) needs" if build.distribution == "cuda-major" else
                   f"{build.name} {build.version} was built with CUDA {build.cuda}, which needs")
        yield Finding(
            "driver-too-old", Severity.ERROR,
            f"{subject} driver >= {floor.min_driver} ({floor.rule}), but driver {driver.version} is installed"
            + (f" (it supports CUDA {driver.cuda_driver_version} at most)." if driver.cuda_driver_version else "."),
            (*driver_evidence(driver), build_evidence(build, snapshot),
             ev("required driver", f">= {floor.min_driver} ({floor.rule})", "cuda-driver.toml")),
            fix, floor.prov.source, build.name,
        )

    @staticmethod
    def _by_max_cuda(
        driver: DriverInfo, build: FrameworkBuild, matrices: Matrices, snapshot: Snapshot
    ) -> Iterator[Finding]:
        """Only the driver's newest CUDA is known: minor-version compatibility still decides.

        A driver that supports CUDA X.y runs every X.* build (11+); a newer major needs a newer driver.
        """
        have, need = version(driver.cuda_driver_version), version(build.cuda)
        if have is None or need is None:
            return
        too_old = need.major > have.major or (need.major < 11 and (need.major, need.minor) > (have.major, have.minor))
        if not too_old:
            return
        fix = (f"upgrade the NVIDIA driver to one that supports CUDA {need.major}.x, or install a {build.name} "
               f"build for CUDA {have.major}.x")
        release = matrices.torch.release(build.version) if build.name == "torch" else None
        fitting = [v for v in (release.variants if release else ()) if (vc := version(v.cuda)) is not None
                   and (vc.major < have.major or (vc.major == have.major and (have.major >= 11 or vc <= have)))]
        if fitting:
            best = max(fitting, key=lambda v: version(v.cuda) or version("0"))  # type: ignore[return-value,arg-type] # reason: filtered
            fix += f": {pip_install_torch(build.version, best)}"
        yield Finding(
            "driver-too-old", Severity.ERROR,
            f"{build.name} {build.version} was built with CUDA {build.cuda}, but the driver supports CUDA "
            f"{driver.cuda_driver_version} at most, and minor-version compatibility does not cross CUDA majors.",
            (*driver_evidence(driver), build_evidence(build, snapshot)),
            fix, "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html", build.name,
        )

    @staticmethod
    def _older_build(driver: DriverInfo, build: FrameworkBuild, matrices: Matrices, system: str) -> str | None:
        """The newest variant of the same torch release whose CUDA this driver runs."""
        if build.name != "torch":
            return None
        release = matrices.torch.release(build.version)
        have = version(driver.version)
        if release is None or have is None:
            return None
        cuda_variants = [(v, version(v.cuda)) for v in release.variants if v.cuda]
        for variant, _cuda in sorted(((v, c) for v, c in cuda_variants if c is not None),
                                     key=lambda pair: pair[1], reverse=True):
            floor = matrices.cuda_driver.floor(variant.cuda or "", system)
            if floor is not None and meets(driver.version or "", floor.min_driver):
                return pip_install_torch(build.version, variant)
        return None


def meets(driver: str, floor: Version) -> bool:
    """Whether driver ``driver`` is at least ``floor``; a bare branch ("525", as reports write it) is compared by
    branch only, so "525" meets 525.60.13 but not 530.30.02."""
    have = version(driver)
    if have is None:
        return False
    if "." not in driver.strip():
        return have.major >= floor.major
    return have >= floor


def image_build(snapshot: Snapshot) -> FrameworkBuild | None:
    """A pasted report's container image CUDA (its tag, CUDA_VERSION, or the container toolkit's ``cuda>=X``
    requirement) as a build the driver must run. ``check --image`` judges real images through rules.image."""
    cuda = snapshot.environment.get("CUDA_VERSION")
    if not cuda or not snapshot.from_report:
        return None
    v = version(cuda)
    if v is None:
        return None
    return FrameworkBuild("container image", "image", f"(CUDA {cuda})", "cuda", f"{v.major}.{v.minor}", None,
                          source="report: container image CUDA")


def major_build(snapshot: Snapshot, matrices: Matrices) -> FrameworkBuild | None:
    """A CUDA the report names by its major alone ("I want to use CUDA 10", NVIDIA/k8s-device-plugin#97), as the
    oldest release of that major the driver matrix knows: every minor of it needs at least that one's driver."""
    said = snapshot.environment.get(CUDA_MAJOR_KEY)
    if not said or not snapshot.from_report or any(m.signature.id.startswith("driver-too-old-said") for m in
                                                   matrices.errors.match(snapshot.observed_errors)):
        return None  # NOTE: "fails due insufficient driver version" beside it is driver_said's finding
    major, where = stated_parts(said)
    minors = sorted(v for r in matrices.cuda_driver.releases if (v := version(".".join(map(str, r.minor_series))))
                     is not None and v.major == int(major))
    family = any(f.major == int(major) for f in matrices.cuda_driver.families)
    oldest = f"{major}.0" if family or not minors else f"{minors[0].major}.{minors[0].minor}"
    return FrameworkBuild("CUDA", "cuda-major", f"{major}.x", "cuda", oldest, None,
                          source=f"{where}: CUDA {major} named by its major; its oldest release {oldest} needs the "
                                 "lowest driver of any")


def toolkit_build(snapshot: Snapshot) -> FrameworkBuild | None:
    """A pasted report that names a CUDA toolkit and no framework build (cuDF, CuPy, a CUDA sample, a source build):
    what runs there is built with that toolkit's runtime, so the driver must run its CUDA (cudf#355: CUDA 9.2 on
    Ubuntu 18.04's default driver 390.87). A framework build brings its own CUDA, judged instead."""
    newest = newest_toolkit(snapshot) if snapshot.from_report else None
    if newest is None:
        return None
    v, toolkit = newest
    return FrameworkBuild("CUDA toolkit", "cuda-toolkit", toolkit.version, "cuda", f"{v.major}.{v.minor}", None,
                          source=f"{toolkit.source}: the toolkit programs here are built with")


FORWARD_COMPAT_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html"


def forward_compat_hint(cuda: str | None, snapshot: Snapshot, matrices: Matrices) -> str | None:
    """On data-center GPUs (only), NVIDIA's cuda-compat package runs a newer CUDA on an older driver branch."""
    v = version(cuda)
    if v is None or system_of(snapshot) != "linux":
        return None
    for gpu in snapshot.gpu_list():
        row = matrices.gpu_arch.lookup_name(gpu.name)
        if row is not None and row.datacenter:
            return (f"or, on this data-center GPU ({gpu.name}), keep the driver and install NVIDIA's forward-"
                    f"compatibility package cuda-compat-{v.major}-{v.minor} (Linux only; see "
                    f"{FORWARD_COMPAT_SOURCE})")
    return None


def tf_wheel_cuda(build: FrameworkBuild, snapshot: Snapshot, matrices: Matrices) -> str | None:
    """In a report, the CUDA a TensorFlow GPU wheel named without its build info was built with: the release's tested
    Linux build configuration (tensorflow.org/install/source#gpu). Not for a conda build (its own CUDA variants)."""
    if build.name != "tensorflow" or not snapshot.from_report or build.channel or "conda" in build.source:
        return None
    release = matrices.tensorflow.release(build.version)
    return release.cuda if release is not None and release.cuda else None
