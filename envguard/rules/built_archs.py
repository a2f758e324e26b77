"""arch-unsupported for a library built on site: the targets its NVCC_GENCODE named do not cover a GPU.

NCCL (and nccl-tests) are compiled for the architectures in the NVCC_GENCODE make variable (NCCL's README:
"consider redefining NVCC_GENCODE (defined in makefiles/common.mk) to only include the architecture of the target
platform"). A build for sm_80 alone has no kernels for an H100 (9.0) or a B200 (10.0), and NCCL fails at its first
kernel launch ("Cuda failure 'named symbol not found'"). The report reader records the report's NVCC_GENCODE in
``Snapshot.environment`` (``reports.libraries.GENCODE_KEY``).
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.archs import parse_arch_list, runs_on
from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import ev, gpu_cc, gpu_evidence
from envguard.snapshot import Snapshot, stated_parts

__all__ = ["GENCODE_KEY", "NCCL_README", "SiteBuildArchRule"]

GENCODE_KEY = "NVCC_GENCODE"
NCCL_README = "https://github.com/NVIDIA/nccl#build"
#: detectron2's install notes: the CUDA ops are compiled for TORCH_CUDA_ARCH_LIST (by default the GPUs present at build
#: time), so a build made on one GPU has no kernels for another ("no kernel image is available").
D2_INSTALL = "https://github.com/facebookresearch/detectron2/blob/main/INSTALL.md"


class SiteBuildArchRule:
    """Every GPU must have kernels in a library built with an explicit NVCC_GENCODE."""

    id = "site-build-arch"
    summary = "the architectures a site-built NCCL was compiled for (NVCC_GENCODE) cover each GPU"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield arch-unsupported findings."""
        raw = snapshot.environment.get(GENCODE_KEY)
        gpus = snapshot.gpu_list()
        if not raw or not gpus:
            return
        targets, library, where = stated_parts(raw, 3)
        name = {"nccl-tests": "nccl-tests", "detectron2": "detectron2"}.get(library, "NCCL")
        items = tuple(targets.split())
        sass, ptx = parse_arch_list(items)
        if not sass and not ptx:
            return
        for gpu in gpus:
            cc, cc_source = gpu_cc(gpu, matrices)
            if cc is None or runs_on(cc, sass, ptx):
                continue
            sm = cc.replace(".", "")
            if name == "detectron2":
                how, fix, source = ("compiled for (its collect_env's arch flags)",
                                    f"rebuild detectron2 for this GPU: TORCH_CUDA_ARCH_LIST=\"{cc}\" (with the "
                                    "other GPUs' capabilities) pip install --no-build-isolation -e . after removing "
                                    "build/ and **/*.so", D2_INSTALL)
            else:
                how, fix, source = ("built with NVCC_GENCODE for",
                                    f"rebuild {name} with this GPU's target added: make NVCC_GENCODE=\"... "
                                    f"-gencode=arch=compute_{sm},code=sm_{sm}\"", NCCL_README)
            yield Finding(
                "arch-unsupported", Severity.ERROR,
                f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) has no kernels in the {name} {how} "
                f"{' '.join(items)}: SASS runs only on its own major with an equal or higher minor "
                "and PTX only forward, so its kernels are not found at launch"
                + (" (\"named symbol not found\")." if name != "detectron2" else "."),
                (gpu_evidence(gpu, cc, cc_source),
                 ev(f"{name} compiled architectures", " ".join(items), where or "report")),
                fix, source, library or "nccl",
            )
