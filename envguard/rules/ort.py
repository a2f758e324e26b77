"""ONNX Runtime's GPU package against the CUDA and cuDNN a report names (onnxruntime.toml).

onnxruntime-gpu on the default package index is built for one CUDA major and one cuDNN major per release (1.19+:
CUDA 12 and cuDNN 9; 1.15-1.18: CUDA 11.8 and cuDNN 8): "ONNX Runtime built with cuDNN 8.x is not compatible with
cuDNN 9.x, and vice versa", and CUDA minor-version compatibility spans one major only. A report that names the
release and a cuDNN or CUDA of another major shows why the CUDA provider does not load: an error when the report
shows the provider failing (its load failure or its "Failed to create CUDAExecutionProvider"), else a warning
(ONNX Runtime 1.19+ can load torch's CUDA and cuDNN instead, onnxruntime.preload_dlls()). A plain ``onnxruntime``
(the CPU package's name) counts only when the report shows its CUDA provider failing: the report is then about a
GPU build. Report mode only: a probed environment's ORT may use the pip CUDA wheels the probe does not pair.
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import ev, version
from envguard.snapshot import Distribution, Snapshot, Unavailable

#: The catalogue rows of the CUDA provider failing to load or to be created.
_PROVIDER_FAILED = ("ort-cuda-provider-not-loaded", "ort-cuda-provider-requirements")


class OrtGpuRule:
    """onnxruntime-gpu's CUDA and cuDNN majors match the report's."""

    id = "onnxruntime-gpu"
    summary = "ONNX Runtime's GPU build matches the CUDA and cuDNN majors the report names"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one cudnn-mismatch and one cuda-libs-missing finding."""
        if not snapshot.from_report or isinstance(snapshot.packages, Unavailable) \
                or not any(d.name in ("onnxruntime-gpu", "onnxruntime") for d in snapshot.packages):
            return
        failed = next((m for m in matrices.errors.match(snapshot.observed_errors)
                       if m.signature.id in _PROVIDER_FAILED), None) if snapshot.observed_errors else None
        ort = _ort(snapshot.packages, gpu_shown=failed is not None)
        if ort is None:
            return
        build = matrices.onnxruntime.gpu_build(ort.version)
        if build is None:
            return
        severity = Severity.ERROR if failed is not None else Severity.WARNING
        shown = (ev("CUDA provider", failed.line[:160], snapshot.origin),) if failed is not None else ()
        ort_ev = ev(ort.name, f"{ort.version} (CUDA {build.cuda}, cuDNN {build.cudnn_major}.x)",
                    "onnxruntime.toml (CUDA Execution Provider requirements)")
        cudnn = snapshot.cudnn[0] if not isinstance(snapshot.cudnn, Unavailable) and snapshot.cudnn else None
        have = version(cudnn.version) if cudnn is not None else None
        if cudnn is not None and have is not None and have.major != build.cudnn_major:
            yield Finding(
                "cudnn-mismatch", severity,
                f"{ort.name} {ort.version} is built with cuDNN {build.cudnn_major}.x, and the report's cuDNN is "
                f"{cudnn.version}: ONNX Runtime built with one cuDNN major does not work with another, so its CUDA "
                "provider cannot load" + (" (the report shows it failing)." if failed is not None else "."),
                (ort_ev, ev("cuDNN", cudnn.version, cudnn.source), *shown),
                f"install cuDNN {build.cudnn_major}.x for CUDA {build.cuda_major} on the loader path (PATH on "
                f"Windows), or pin an onnxruntime-gpu release built with cuDNN {have.major}",
                build.prov.source, ort.name,
            )
        toolkits = [(v, t) for t in snapshot.toolkit_list() if (v := version(t.version)) is not None]
        if toolkits:
            newest, toolkit = max(toolkits, key=lambda pair: pair[0])
            if newest.major != build.cuda_major:
                yield Finding(
                    "cuda-libs-missing", severity,
                    f"{ort.name} {ort.version} is built with CUDA {build.cuda}, and the report's CUDA is "
                    f"{toolkit.version}: CUDA {build.cuda_major}'s runtime libraries (cudart, cuBLAS) it loads are "
                    "not those of another major" + (" (the report shows its CUDA provider failing)."
                                                    if failed is not None else "."),
                    (ort_ev, ev("CUDA", toolkit.version, toolkit.source), *shown),
                    f"install the CUDA {build.cuda_major}.x runtime (and cuDNN {build.cudnn_major}.x) on the loader "
                    f"path, or pin an onnxruntime-gpu release built for CUDA {newest.major}",
                    build.prov.source, ort.name,
                )


def _ort(packages: tuple[Distribution, ...], *, gpu_shown: bool) -> Distribution | None:
    found = {d.name: d for d in packages}
    return found.get("onnxruntime-gpu") or (found.get("onnxruntime") if gpu_shown else None)
