"""A TensorFlow build made with a CUDA toolkit older than the first one that compiles for the GPU: no SASS, only PTX.

A toolkit cannot emit SASS for an architecture newer than the newest it knows (gpu-arch.toml first_cuda: CUDA 10.x
compiles up to sm_75, 11.0 adds sm_80, 11.1 sm_86, 11.8 sm_89/sm_90 ...), so a TensorFlow build made with CUDA 10.1
has no SASS for an RTX 30 GPU. It is not left without kernels, though: TensorFlow's nvcc wrappers compile every
capability as ``-gencode=arch=compute_XX,"code=sm_XX,compute_XX"`` (crosstool_wrapper_driver_is_not_gcc and the
Windows msvc_wrapper_for_nvcc), so its PTX JIT-compiles on a newer GPU at start-up (minutes, TensorFlow warns
"CUDA kernels will be jit-compiled from PTX"). The libraries of that toolkit (its cuDNN and cuBLAS) predate the
GPU as well. That is a warning, not an error: whether the build runs is decided on the machine, unless the report
shows that it was decided there: a kernel that could not be loaded or launched (CUDA_ERROR_INVALID_PTX /
INVALID_HANDLE / NO_BINARY_FOR_GPU, tensorflow#99592, #101746: the PTX path failed too) makes it an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.version import Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.arch import ArchRule
from envguard.rules.base import build_evidence, ev, gpu_cc, gpu_evidence, newest_toolkit, platform_of, version
from envguard.rules.driver import tf_wheel_cuda
from envguard.snapshot import CudaToolkit, GpuInfo, Snapshot

if TYPE_CHECKING:
    from envguard.knowledge.gpu_arch import ArchRow

#: A kernel that could not be loaded or launched (tensorflow#99592, #101746): the PTX path failed too.
JIT_FAILED = re.compile(r"CUDA_ERROR_INVALID_PTX|CUDA_ERROR_INVALID_HANDLE|CUDA_ERROR_NO_BINARY_FOR_GPU")
#: TensorFlow's nvcc wrapper: every capability as SASS plus its PTX.
TF_WRAPPER = ("https://github.com/tensorflow/tensorflow/blob/r1.15/third_party/gpus/crosstool/clang/bin/"
              "crosstool_wrapper_driver_is_not_gcc.tpl")


def _arch_of(gpu: GpuInfo, matrices: Matrices) -> tuple[str, str, ArchRow] | None:
    """The GPU's compute capability, its source and its gpu-arch row; None when either is unknown."""
    cc, cc_source = gpu_cc(gpu, matrices)
    row = matrices.gpu_arch.arch(cc) if cc else None
    return (cc, cc_source, row) if cc is not None and row is not None else None


def _newer_than_toolkit(gpu: GpuInfo, have: Version, matrices: Matrices) -> tuple[str, str, ArchRow, Version] | None:
    """The GPU's compute capability, its source, its gpu-arch row and the first toolkit that compiles for it, when
    that toolkit is newer than ``have``; None otherwise (or when any is unknown). NOTE: this exact architecture's
    first toolkit, not its major's (see GpuArchMatrix.first_cuda_of_major)."""
    arch = _arch_of(gpu, matrices)
    first = arch[2].first_cuda if arch is not None else None
    if arch is None or first is None or (have.major, have.minor) >= (first.major, first.minor):
        return None
    return (*arch, first)


class TfToolkitArchRule:
    """A TensorFlow build's CUDA must be able to compile SASS for each GPU (else it runs only JIT-compiled PTX)."""

    id = "tf-toolkit-arch"
    summary = "each GPU's architecture is known to the CUDA toolkit the TensorFlow build was made with"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield an arch-unsupported warning per GPU newer than the build's toolkit."""
        gpus = snapshot.gpu_list()
        failed = next((x for x in snapshot.observed_errors if JIT_FAILED.search(x)), None)
        for build in snapshot.frameworks:
            # NOTE: a report's TensorFlow named without its build info: the wheel's tested CUDA (tensorflow.toml)
            built_with = build.cuda or tf_wheel_cuda(build, snapshot, matrices)
            have = version(built_with)
            if build.name != "tensorflow" or build.accelerator != "cuda" or have is None or not gpus:
                continue
            if ArchRule._arch_list(build, matrices, platform_of(snapshot)) is not None:
                continue  # a known arch list is ArchRule's to judge
            for gpu in gpus:
                beyond = _newer_than_toolkit(gpu, have, matrices)
                if beyond is None:
                    continue
                cc, cc_source, row, first = beyond
                label = f"tensorflow {build.version}" if build.version_known else "the tensorflow build"
                yield Finding(
                    "arch-unsupported", Severity.WARNING if failed is None else Severity.ERROR,
                    f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is newer than the CUDA {built_with} "
                    f"{label} was built with (the first toolkit that compiles for {cc} is CUDA "
                    f"{first}): the build has no SASS for it and runs only PTX JIT-compiled at start-up, with "
                    f"CUDA {built_with}'s cuDNN and cuBLAS, which predate this GPU"
                    + (", and the report shows a kernel that could not be loaded (the PTX path failed too)."
                       if failed is not None else "."),
                    (gpu_evidence(gpu, cc, cc_source),
                     build_evidence(build, snapshot),
                     ev("first toolkit for the GPU", f"CUDA {first}", f"gpu-arch.toml {cc} first_cuda"),
                     ev("TensorFlow's device code", "SASS and PTX of each compiled capability", TF_WRAPPER))
                    + ((ev("kernel load failed", failed[:160], snapshot.origin),) if failed is not None else ()),
                    f"install a TensorFlow build made with CUDA {first} or newer for compute capability {cc}",
                    row.prov.source, build.name,
                )


#: NVRTC's refusal of the GPU's architecture (errors.toml nvrtc-invalid-gpu-architecture).
_NVRTC_ARCH = "invalid value for --gpu-architecture"


def _confirmed(finding: Finding, refused: str, snapshot: Snapshot) -> Finding:
    """The toolkit-arch warning made an error by NVRTC's own refusal of the architecture."""
    return replace(finding, severity=Severity.ERROR,
                   evidence=(*finding.evidence, Evidence("NVRTC refused the architecture", refused[:160],
                                                         snapshot.origin)))


class ReportedToolkitArchRule:
    """A report that names only a CUDA toolkit (no framework build's CUDA) older than its GPU's first toolkit.

    "My CUDA version is 10.2, it does not support the RTX 3060" (yatengLG/ISAT_with_segment_anything#12): code built
    with that toolkit has no SASS for the GPU (CUDA 10.2 compiles up to sm_75, 11.1 adds sm_86) and its libraries
    predate it; whether PTX of an older capability JIT-compiles is decided on the machine, so a warning.
    """

    id = "reported-toolkit-arch"
    summary = "a CUDA toolkit a report names knows each GPU's architecture"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One arch-unsupported warning per GPU newer than the report's newest toolkit."""
        if not snapshot.from_report or any(b.accelerator == "cuda" for b in snapshot.frameworks):
            return
        newest = newest_toolkit(snapshot)
        if newest is None:
            return
        have, toolkit = newest
        # NOTE: NVRTC (the toolkit's runtime compiler, which OpenMM, ACEMD and CuPy JIT with) refusing the GPU's
        # architecture settles what the warning leaves open: no PTX path either (openmm/openmm#3756)
        refused = next((x for x in snapshot.observed_errors if _NVRTC_ARCH in x), None)
        for gpu in snapshot.gpu_list():
            beyond = _newer_than_toolkit(gpu, have, matrices)
            if beyond is None:
                for finding in self._older_than_toolkit(gpu, have, toolkit, matrices):
                    yield _confirmed(finding, refused, snapshot) if refused else finding
                continue
            cc, cc_source, row, first = beyond
            finding = Finding(
                "arch-unsupported", Severity.WARNING,
                f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is newer than CUDA {toolkit.version}, the "
                f"toolkit the report names (the first that compiles for {cc} is CUDA {first}): code built with it "
                "has no kernels for this GPU beyond PTX of older capabilities the driver may JIT-compile, and its "
                "cuDNN/cuBLAS predate the GPU.",
                (gpu_evidence(gpu, cc, cc_source), ev("CUDA toolkit", toolkit.version, toolkit.source),
                 ev("first toolkit for the GPU", f"CUDA {first}", f"gpu-arch.toml {cc} first_cuda")),
                f"use CUDA {first} or newer (and framework builds made with it) for compute capability {cc}",
                row.prov.source, "CUDA toolkit",
            )
            yield _confirmed(finding, refused, snapshot) if refused else finding

    @staticmethod
    def _older_than_toolkit(gpu: GpuInfo, have: Version, toolkit: CudaToolkit, matrices: Matrices) -> Iterator[Finding]:
        """A GPU whose architecture the toolkit no longer compiles for (CUDA 13.0 dropped Maxwell, Pascal, Volta:
        gpu-arch.toml last_cuda): code built with it has no kernels for the GPU, and no PTX it can JIT (its oldest
        PTX is of a newer capability). A warning: the report names the toolkit, not that its code is what runs."""
        arch = _arch_of(gpu, matrices)
        last = arch[2].last_cuda if arch is not None else None
        if arch is None or last is None or (have.major, have.minor) <= (last.major, last.minor):
            return
        cc, cc_source, row = arch
        yield Finding(
            "arch-unsupported", Severity.WARNING,
            f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is older than CUDA {toolkit.version} supports, "
            f"the toolkit the report names (the last toolkit that compiles for {cc} is CUDA {last}): code built "
            "with it has no kernels for this GPU and no PTX it can JIT-compile.",
            (gpu_evidence(gpu, cc, cc_source), ev("CUDA toolkit", toolkit.version, toolkit.source),
             ev("last toolkit for the GPU", f"CUDA {last}", f"gpu-arch.toml {cc} last_cuda")),
            f"use CUDA {last} or older (and framework builds made with it) for compute capability {cc}",
            row.prov.source, "CUDA toolkit",
        )
