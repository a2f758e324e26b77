"""ONNX Runtime's GPU package against the CUDA and cuDNN a report names (onnxruntime.toml).

onnxruntime-gpu on the default package index is built for one CUDA major and one cuDNN major per release (1.19+:
CUDA 12 and cuDNN 9; 1.15-1.18: CUDA 11.8 and cuDNN 8, with CUDA 12 builds published under the same numbers for
1.17 and 1.18): "ONNX Runtime built with cuDNN 8.x is not compatible with cuDNN 9.x, and vice versa", and CUDA
minor-version compatibility spans one CUDA 11+ major (before CUDA 11 the runtime's soname carries the minor, so
the toolkit is not judged for those rows). When the report shows ONNX Runtime's own "Require cuDNN X.* and CUDA
Y.*", those majors are the build's; a cuDNN the report names by its major alone ("cudnn9") is enough to judge a
build made per cuDNN major. A report whose cuDNN or CUDA matches none of the release's builds shows why
the CUDA provider does not load: an error when the report shows the provider failing (its load failure or its
"Failed to create CUDAExecutionProvider"), else a warning (ONNX Runtime 1.19+ can load torch's CUDA and cuDNN
instead, onnxruntime.preload_dlls()). A plain ``onnxruntime`` (the CPU package's name) counts only when the report
shows its CUDA provider failing: the report is then about a GPU build. Report mode only: a probed environment's
ORT may use the pip CUDA wheels the probe does not pair.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import ev, interpreter_source, newest_toolkit, version
from envguard.snapshot import CUDNN_MAJOR_KEY, ComponentVersion, Distribution, Snapshot, Unavailable, stated_parts

if TYPE_CHECKING:
    # NOTE: the catalogue loads only for reports with error lines (check's probe mode never imports it)
    from envguard.knowledge.errors import SignatureMatch

#: The catalogue rows of the CUDA provider failing to load or to be created.
_PROVIDER_FAILED = ("ort-cuda-provider-not-loaded", "ort-cuda-provider-requirements",
                    "ort-cuda-provider-create-failed")
#: The CUDA provider's shared object on Linux, named in the loader's failure to load it.
_PROVIDER_SO = "libonnxruntime_providers_cuda.so"
#: ONNX Runtime's own statement of its build's majors.
_REQUIRE = re.compile(r"Require cuDNN (\d{1,2})\.\* and CUDA (\d{1,2})\.\*")


class OrtGpuRule:
    """onnxruntime-gpu's CUDA and cuDNN majors match the report's."""

    id = "onnxruntime-gpu"
    summary = "ONNX Runtime's GPU build matches the CUDA and cuDNN majors the report names"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one cudnn-mismatch and one cuda-libs-missing finding."""
        if not snapshot.from_report or isinstance(snapshot.packages, Unavailable) \
                or not any(d.name in ("onnxruntime-gpu", "onnxruntime") for d in snapshot.packages):
            return
        # NOTE: on Linux the provider's load failure is the loader's own line ("Failed to load library
        # libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file"), which the
        # catalogue reads as a missing library: it shows the provider failing too.
        matches = [m for m in matrices.errors.match(snapshot.observed_errors)
                   if m.signature.id in _PROVIDER_FAILED
                   or (m.signature.code == "cuda-libs-missing" and _PROVIDER_SO in m.line)] \
            if snapshot.observed_errors else []
        failed: SignatureMatch | None = matches[0] if matches else None
        ort = _ort(snapshot.packages, gpu_shown=failed is not None)
        if ort is None:
            return
        stated = next((found for m in matches if (found := _REQUIRE.search(m.line))), None)
        row = matrices.onnxruntime.gpu_build(ort.version)
        builds: tuple[tuple[int, int], ...]
        if stated is not None:
            builds = ((int(stated.group(2)), int(stated.group(1))),)
            where, source = "ONNX Runtime's own message", row.prov.source if row else ""
        elif row is not None:
            builds, where, source = row.builds(), "onnxruntime.toml (CUDA Execution Provider requirements)", \
                row.prov.source
        else:
            return
        severity = Severity.ERROR if failed is not None else Severity.WARNING
        shown = (ev("CUDA provider", failed.line[:160], snapshot.origin),) if failed is not None else ()
        named = ", ".join(f"CUDA {c}.x / cuDNN {d}.x" for c, d in builds)
        ort_ev = (ev(ort.name, ort.version, interpreter_source(snapshot, "distributions")),
                  ev(f"{ort.name} {ort.version} builds", named, where))
        cudnn = snapshot.cudnn[0] if not isinstance(snapshot.cudnn, Unavailable) and snapshot.cudnn else None
        have_cudnn = version(cudnn.version) if cudnn is not None else None
        if cudnn is None and CUDNN_MAJOR_KEY in snapshot.environment:
            # NOTE: "cuda12.4 cudnn9": a major is all a build per cuDNN major needs
            major, said_at = stated_parts(snapshot.environment[CUDNN_MAJOR_KEY])
            cudnn, have_cudnn = ComponentVersion(f"{major}.x", said_at), version(major)
        newest = newest_toolkit(snapshot)
        have_cuda = newest[0] if newest is not None else None
        # NOTE: a build matches when the report's known facts fit it; before CUDA 11 the toolkit's minor matters too
        def fits(build: tuple[int, int]) -> bool:
            cuda_ok = have_cuda is None or build[0] < 11 or have_cuda.major == build[0]
            return cuda_ok and (have_cudnn is None or have_cudnn.major == build[1])
        if any(fits(b) for b in builds):
            return
        # NOTE: the builds the report's CUDA fits decide which cuDNN it needs (1.18.1: CUDA 11 + cuDNN 8 or CUDA 12 +
        # cuDNN 9, so CUDA 12 with cuDNN 8 lacks cuDNN 9); only when the CUDA fits none is the CUDA the fault.
        cuda_fits = [b for b in builds if have_cuda is None or b[0] < 11 or have_cuda.major == b[0]]
        judged = cuda_fits or builds
        cuda_major, cudnn_major = judged[0]
        if cudnn is not None and have_cudnn is not None and all(have_cudnn.major != b[1] for b in judged):
            yield Finding(
                "cudnn-mismatch", severity,
                f"{ort.name} {ort.version} is built with {named}, and the report's cuDNN is {cudnn.version}: ONNX "
                "Runtime built with one cuDNN major does not work with another, so its CUDA provider cannot load"
                + (" (the report shows it failing)." if failed is not None else "."),
                (*ort_ev, ev("cuDNN", cudnn.version, cudnn.source), *shown),
                f"install cuDNN {cudnn_major}.x for CUDA {cuda_major} on the loader path (PATH on Windows), or "
                f"pin an onnxruntime-gpu release built with cuDNN {have_cudnn.major}",
                source, ort.name,
            )
        if newest is not None and have_cuda is not None and not cuda_fits and all(b[0] >= 11 for b in builds):
            toolkit = newest[1]
            yield Finding(
                "cuda-libs-missing", severity,
                f"{ort.name} {ort.version} is built with {named}, and the report's CUDA is {toolkit.version}: the "
                f"CUDA {cuda_major} runtime libraries (cudart, cuBLAS) it loads are not those of another major"
                + (" (the report shows its CUDA provider failing)." if failed is not None else "."),
                (*ort_ev, ev("CUDA", toolkit.version, toolkit.source), *shown),
                f"install the CUDA {cuda_major}.x runtime (and cuDNN {cudnn_major}.x) on the loader path, or pin an "
                f"onnxruntime-gpu release built for CUDA {have_cuda.major}",
                source, ort.name,
            )


def _ort(packages: tuple[Distribution, ...], *, gpu_shown: bool) -> Distribution | None:
    found = {d.name: d for d in packages}
    return found.get("onnxruntime-gpu") or (found.get("onnxruntime") if gpu_shown else None)
