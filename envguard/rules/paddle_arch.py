"""Paddle's device banner: a GPU whose architecture is newer than the CUDA runtime Paddle runs on.

PaddlePaddle prints, at its first GPU call, "Please NOTE: device: 0, GPU Compute Capability: 12.0, Driver API
Version: 12.8, Runtime API Version: 11.8" (paddle/phi/backends/gpu/gpu_resources.cc). The runtime is the CUDA the
installed Paddle was built with. A toolkit older than the first toolkit of the architecture's major (gpu-arch.toml
first_cuda: CUDA 12.8 for compute capability 12.x) cannot compile SASS any GPU of that major runs, and Paddle's
release builds embed no PTX (cmake/cuda.cmake adds PTX only to a Manual arch build), so that Paddle has no kernel
the GPU can run:
PaddlePaddle/Paddle#72252's RTX 5080 Laptop GPU on a CUDA 11.8 Paddle computed zeros. An error, whether or not
Paddle's own "not supported by Paddle" warning is there (it is also printed for GPUs a minor apart that do run).
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.arch_evidence import PADDLE_SOURCE
from envguard.rules.base import ev, version
from envguard.snapshot import Snapshot

BANNER = "paddle-device-banner"


class PaddleBannerArchRule:
    """Paddle's banner: the GPU's compute capability against the first toolkit of its architecture."""

    id = "paddle-banner-arch"
    summary = "the CUDA runtime Paddle's banner names compiles for the GPU's compute capability it names"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one arch-unsupported error."""
        if not snapshot.from_report:
            return
        for match in matrices.errors.match(snapshot.observed_errors):
            if match.signature.id != BANNER:
                continue
            cc, runtime = match.groups.get("cc", ""), match.groups.get("cuda", "")
            row = matrices.gpu_arch.arch(cc) if cc else None
            have = version(runtime)
            # NOTE: SASS of an older minor of the same major runs (sm_86 on an 8.9 GPU): only a runtime older than the
            # whole major's first toolkit leaves the GPU without kernels
            first = matrices.gpu_arch.first_cuda_of_major(cc) if row is not None else None
            if row is None or have is None or first is None or (have.major, have.minor) >= (first.major, first.minor):
                continue
            paddle = snapshot.framework("paddle")
            if paddle is not None and paddle.cuda and version(paddle.cuda) == have:
                continue  # the build itself is known to be this CUDA's: the build's architecture rule judges it
            yield Finding(
                "arch-unsupported", Severity.ERROR,
                f"Paddle runs on CUDA {runtime} (its banner's Runtime API Version) on a GPU of compute capability "
                f"{cc}, whose architecture family needs CUDA {first} or newer: a CUDA {runtime} build has no "
                "kernels for it, and Paddle's release builds carry no PTX to JIT-compile, so GPU operators fail or "
                "return garbage.",
                (ev("Paddle's device banner", match.line.strip()[:160], snapshot.origin),
                 ev("first toolkit for the GPU's major", f"CUDA {first}", "gpu-arch.toml first_cuda")),
                f"install a paddlepaddle-gpu build made with CUDA {first} or newer (its install page's CUDA "
                f"{first.major}.x wheels), then check with paddle.utils.run_check()",
                f"{row.prov.source} ; {PADDLE_SOURCE}", "paddle",
            )
            return
