"""arch-unsupported from what a release published: no GPU build of that release can have kernels for the GPU.

For a build whose CUDA and arch list a report does not give, the release still bounds it: when every CUDA build
the release published (paddle.toml) uses a toolkit older than the first one that compiles for the GPU's
compute-capability major (gpu-arch.toml first_cuda), whichever of them is installed has no kernels for the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import build_evidence, ev, gpu_cc, gpu_evidence, version
from envguard.snapshot import FrameworkBuild, Snapshot


class ReleaseArchRule:
    """A GPU newer than every toolkit a release's published CUDA builds used has no kernels in that release."""

    id = "release-arch"
    summary = "each GPU is newer than no toolkit the installed release was published for"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield arch-unsupported for a paddle build of unknown CUDA whose every published build predates the GPU."""
        gpus = snapshot.gpu_list()
        if not gpus:
            return
        for build in snapshot.frameworks:
            # NOTE: a build with a known CUDA or arch list is ArchRule's; an explicit CPU build is not about kernels.
            if build.name != "paddle" or build.accelerator == "cpu" or build.cuda or build.arch_list:
                continue
            release = matrices.paddle.release(build.version)
            cudas = [(v.tag, version(v.cuda)) for v in release.variants] if release is not None else []
            known = [(tag, v) for tag, v in cudas if v is not None]
            if release is None or not known or len(known) != len(cudas):
                continue
            newest_tag, newest = max(known, key=lambda pair: (pair[1].major, pair[1].minor))
            for gpu in gpus:
                cc, cc_source = gpu_cc(gpu, matrices)
                first = matrices.gpu_arch.first_cuda_of_major(cc) if cc else None
                if cc is None or first is None or (newest.major, newest.minor) >= (first.major, first.minor):
                    continue
                builds = ", ".join(f"CUDA {v.major}.{v.minor}" for _, v in known)
                yield Finding(
                    "arch-unsupported", Severity.ERROR,
                    f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) has no kernels in any GPU build of "
                    f"{build.name} {build.version}: its published builds use {builds}, older than CUDA "
                    f"{first.major}.{first.minor}, the first toolkit that compiles for compute capability "
                    f"{cc.split('.')[0]}.x.",
                    (gpu_evidence(gpu, cc, cc_source),
                     build_evidence(build, snapshot),
                     ev("published CUDA builds", builds, f"paddle.toml {release.version} (newest {newest_tag})"),
                     ev("first toolkit for the GPU", f"CUDA {first.major}.{first.minor}",
                        f"gpu-arch.toml {cc.split('.')[0]}.x first_cuda")),
                    _fix(build, cc),
                    release.prov.source, build.name,
                )


def _fix(build: FrameworkBuild, cc: str) -> str:
    return (f"install a {build.name} release with a CUDA build that compiles for compute capability {cc} "
            f"(see its install guide), or build {build.name} {build.version} from source with a newer CUDA")
