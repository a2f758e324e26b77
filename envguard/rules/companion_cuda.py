"""An extension built for a CUDA torch beside a CPU torch: "libtorch_cuda.so: cannot open shared object file".

libtorch_cuda.so ships only in torch's CUDA builds (its CPU builds have libtorch_cpu.so alone). A compiled extension
linked against a CUDA torch (openmm-torch's cuda112 conda build, a repository's _C module) asks the loader for it at
import; beside a CPU torch the file does not exist, so the import fails: openmm/openmm-torch#94 (openmm-torch 1.0rc1
cuda112py311 with pytorch 1.13.1 cpu_py311 from conda-forge). With the report's torch a CPU build, the extension was
built for another variant of torch: a companion-mismatch. Without a CPU torch named the line says nothing more than
the loader's own failure (a damaged CUDA torch install loses the file too), so nothing is added.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, ev
from envguard.snapshot import Snapshot

_MISSING = re.compile(r"\blibtorch_cuda\.so:\s{0,2}cannot open shared object file")
SOURCE = "https://github.com/openmm/openmm-torch/issues/94"


class CudaExtensionCpuTorchRule:
    """An import asking for libtorch_cuda.so in a report whose torch is a CPU build."""

    id = "cuda-extension-cpu-torch"
    summary = "compiled torch extensions are built for the torch variant (CPU or CUDA) installed"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one companion-mismatch error."""
        torch = snapshot.framework("torch")
        if not snapshot.from_report or torch is None or torch.accelerator != "cpu":
            return
        line = next((ln for ln in snapshot.observed_errors if _MISSING.search(ln)), None)
        if line is None:
            return
        yield Finding(
            "companion-mismatch", Severity.ERROR,
            f"A compiled extension asks for libtorch_cuda.so, which only CUDA builds of torch ship, but torch "
            f"{torch.version} here is a CPU build: the extension was built for a CUDA torch.",
            (ev("reported message", line.strip()[:160], snapshot.origin), build_evidence(torch, snapshot)),
            "install the extension's CPU build (conda: its cpu_* build string) to match this torch, or a CUDA torch "
            "it was built for (conda: pytorch=*=cuda*, or CONDA_OVERRIDE_CUDA on a machine without a GPU)",
            SOURCE, "torch",
        )
