"""CUDA error 804 read with the facts beside it: a driver too old for the CUDA that tried forward compatibility.

``forward compatibility was attempted on non supported HW`` (cudaErrorCompatNotSupportedOnDevice, 804) means a
CUDA user-space driver newer than the kernel module was loaded on a GPU that has no forward compatibility (every
GeForce/RTX/workstation board). Alone it is a driver/library mismatch (a driver update without a reboot; the
signature says so). When the report also gives the driver and a CUDA (an image's, a framework build's, the
toolkit's) whose own driver is newer than the installed one, the cause is plainer: the CUDA 12.1 image brought its
cuda-compat libcuda because the host driver (525) is older than CUDA 12.1's (530): the driver is too old for that
CUDA (oobabooga/textgen#4407, mistralai/mistral-inference#144, Haidra-Org/horde-worker-reGen#349: fixed by a driver
update).
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import cuda_builds, driver_evidence, ev, system_of, version
from envguard.rules.corroborate import SUBJECT
from envguard.rules.driver import FORWARD_COMPAT_SOURCE, image_build, meets
from envguard.snapshot import DriverInfo, Snapshot

SIGNATURE = "cuda-forward-compat-unsupported-hw"
SOURCE = (f"{FORWARD_COMPAT_SOURCE} ; https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (Table 3) ; "
          "https://github.com/oobabooga/textgen/issues/4407")


class ForwardCompatRule:
    """Error 804 with a driver older than the native driver of the report's CUDA: driver-too-old."""

    id = "forward-compat"
    summary = "CUDA error 804 next to a driver older than the CUDA the image, build or toolkit needs"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One finding for the first 804 message, when the facts explain it."""
        driver = snapshot.driver
        if not snapshot.observed_errors or not isinstance(driver, DriverInfo) or not driver.version:
            return
        match = next((m for m in matrices.errors.match(snapshot.observed_errors) if m.signature.id == SIGNATURE),
                     None)
        if match is None:
            return
        # NOTE: imported here: the catalogue rules load only for reports with error lines.
        from envguard.rules.signatures import _excerpt

        system = system_of(snapshot)
        for cuda, what in self._cudas(snapshot):
            native = matrices.cuda_driver.native_driver(cuda, system)
            if native is None or meets(driver.version, native):
                continue
            have = version(driver.cuda_driver_version)
            need = version(cuda)
            if have is not None and need is not None and (have.major, have.minor) >= (need.major, need.minor):
                # nvidia-smi's libcuda already claims this CUDA: the user-space driver is newer than the module,
                # which is the mismatch the signature describes, not an old driver.
                continue
            message = Evidence(SUBJECT, _excerpt(match), f"{snapshot.origin}, errors.toml {SIGNATURE}")
            yield Finding(
                "driver-too-old", Severity.ERROR,
                f"CUDA error 804 (forward compatibility attempted on unsupported hardware) with driver "
                f"{driver.version} and CUDA {cuda} ({what.fact}): CUDA {cuda} needs driver >= {native}; on an older "
                "driver only its forward-compatibility libraries (cuda-compat) can run it, and those work on "
                "data-center GPUs only, so the driver is too old for this CUDA.",
                (message, *driver_evidence(driver), what,
                 ev("driver of CUDA " + cuda, f">= {native}", "cuda-driver.toml (CUDA release notes, Table 3)")),
                f"upgrade the NVIDIA driver to {native} or newer (a branch that supports CUDA {cuda}); or use an "
                "image/build for a CUDA the installed driver supports (nvidia-smi shows it)",
                SOURCE, what.fact,
            )
            return

    @staticmethod
    def _cudas(snapshot: Snapshot) -> Iterator[tuple[str, Evidence]]:
        image = image_build(snapshot)
        if image is not None and image.cuda:
            yield image.cuda, ev("container image", f"CUDA {image.cuda}", image.source)
        for build in cuda_builds(snapshot):
            if build.cuda:
                yield build.cuda, ev(build.name, f"{build.version} (CUDA {build.cuda})", build.source)
        if snapshot.from_report:
            for toolkit in snapshot.toolkit_list():
                yield toolkit.version, ev("CUDA toolkit", toolkit.version, toolkit.source)


MINOR_COMPAT_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


class ReportedCudaMajorRule:
    """A report that names a CUDA (a toolkit, a "built for cu130" build) of a newer major than its driver runs.

    Minor-version compatibility spans the minors of one CUDA major (11+), never a new major: a CUDA 13 runtime
    needs an r580+ driver whatever the GPU. Judged only when the report names no framework build (the driver rule
    judges those) and states the driver's own CUDA (nvidia-smi's header, the driver's CUDA integer).
    """

    id = "reported-cuda-major"
    summary = "a CUDA named in a report needs a newer driver major than the driver supports"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One driver-too-old finding for the first such CUDA."""
        driver = snapshot.driver
        if not snapshot.from_report or not isinstance(driver, DriverInfo) or any(cuda_builds(snapshot)):
            return
        have = version(driver.cuda_driver_version)
        if have is None or have.major < 11:
            return
        image = image_build(snapshot)
        # NOTE: the driver rule judges an image's CUDA; a toolkit of a newer major than the image's (nvcc 12.1 in
        # an image tagged cuda-11.6) is another fact, judged here.
        image_cuda = version(image.cuda) if image is not None else None
        for toolkit in snapshot.toolkit_list():
            need = version(toolkit.version)
            if need is None or need.major <= have.major or (image_cuda is not None and need.major <= image_cuda.major):
                continue
            family = next((f for f in matrices.cuda_driver.families if f.major == need.major), None)
            floor = f" (driver >= {family.linux_min_driver} on Linux)" if family is not None else ""
            yield Finding(
                "driver-too-old", Severity.ERROR,
                f"The report's CUDA {toolkit.version} is a newer major than the driver runs: the driver supports CUDA "
                f"{driver.cuda_driver_version} at most, and minor-version compatibility does not cross CUDA majors, "
                f"so CUDA {need.major}.x code needs a CUDA {need.major} driver{floor}.",
                (*driver_evidence(driver), ev("CUDA", toolkit.version, toolkit.source)),
                f"upgrade the NVIDIA driver to one that supports CUDA {need.major}.x{floor}; or use builds for CUDA "
                f"{have.major}.x (e.g. the cu{have.major}x variants of the framework)",
                MINOR_COMPAT_SOURCE, "driver",
            )
            return
