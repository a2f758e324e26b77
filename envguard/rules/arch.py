"""arch-unsupported: a GPU whose compute capability has no SASS in the build and no usable PTX."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from envguard.archs import parse_arch_list, runs_on
from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.knowledge.torch import LINUX_X86_64
from envguard.rules.base import (
    build_evidence,
    ev,
    gpu_cc,
    gpu_evidence,
    pip_install_torch,
    platform_of,
    series,
    torch_variant,
    version,
)
from envguard.snapshot import FrameworkBuild, GpuInfo, RuntimeReport, Snapshot


class ArchRule:
    """Every GPU must have kernels (SASS or usable PTX) in each CUDA build."""

    id = "arch"
    summary = "each GPU's compute capability is compiled into each framework build"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield arch-unsupported / unknown-version findings."""
        gpus = snapshot.gpu_list()
        if not gpus:
            return
        platform = platform_of(snapshot)
        for build in snapshot.frameworks:
            if build.accelerator != "cuda" or build.name not in ("torch", "tensorflow", "paddle"):
                continue
            arch = self._arch_list(build, matrices, platform)
            if arch is None and build.channel == "conda-forge":
                # conda-forge's own arch lists are CondaForgeArchRule's; the pip wheels' never describe its builds.
                yield from self._toolkit_limit(build, gpus, matrices, snapshot)
                continue
            if arch is None:
                limited = list(self._toolkit_limit(build, gpus, matrices, snapshot))
                if limited:
                    yield from limited
                    continue
                names = ", ".join(sorted({g.name for g in gpus}))
                wheels = f" ({platform} wheels)" if platform != LINUX_X86_64 and build.name == "torch" else ""
                yield Finding(
                    "unknown-version", Severity.INFO,
                    f"The architectures compiled into {build.name} {build.version}{wheels} are not known to "
                    f"envguard, so support for {names} is unverified.",
                    (build_evidence(build, snapshot),),
                    "run `envguard check --deep` to read the arch list from the framework itself",
                    matrices.torch.meta.source if build.name == "torch" else None, build.name,
                )
                continue
            sass, ptx, where, reference = arch
            for gpu in gpus:
                cc, cc_source = gpu_cc(gpu, matrices)
                if cc is None or runs_on(cc, sass, ptx, integrated=_integrated(cc, matrices)):
                    continue
                listed = " ".join([f"sm_{c.replace('.', '')}" for c in sass]
                                  + [f"compute_{c.replace('.', '')}" for c in ptx])
                yield Finding(
                    "arch-unsupported", Severity.ERROR,
                    f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) has no kernels in "
                    f"{build.name} {build.version}, which was compiled for {listed or 'no CUDA architecture'}.",
                    (gpu_evidence(gpu, cc, cc_source),
                     build_evidence(build, snapshot), ev("compiled architectures", listed, where)),
                    self._fix(build, cc, matrices, platform),
                    reference, build.name,
                )

    def _toolkit_limit(
        self, build: FrameworkBuild, gpus: Sequence[GpuInfo], matrices: Matrices, snapshot: Snapshot
    ) -> Iterator[Finding]:
        """Without the build's arch list, its CUDA still bounds it: a torch built with a CUDA older than the first
        toolkit that compiles for a GPU's compute-capability major has no kernels of that major (torch's own
        _check_cubins then calls the GPU incompatible); one built with a CUDA newer than the last toolkit that
        compiles for the GPU's architecture has none for it either."""
        need = version(build.cuda)
        # NOTE: not TensorFlow: its builds carry PTX of their newest architecture, which JIT-compiles on newer GPUs.
        if build.name not in ("torch", "paddle") or need is None:
            return
        for gpu in gpus:
            cc, cc_source = gpu_cc(gpu, matrices)
            row = matrices.gpu_arch.arch(cc) if cc else None
            if cc is None or row is None:
                continue
            major = cc.split(".")[0]
            first = matrices.gpu_arch.first_cuda_of_major(cc)
            last = row.last_cuda
            if first is not None and (need.major, need.minor) < (first.major, first.minor):
                why = (f"CUDA {build.cuda} predates compute capability {major}.x (the first toolkit that compiles "
                       f"for it is CUDA {first})")
            elif last is not None and (need.major, need.minor) > (last.major, last.minor):
                why = f"CUDA {build.cuda} no longer compiles for compute capability {cc} (the last toolkit was {last})"
            else:
                continue
            yield Finding(
                "arch-unsupported", Severity.ERROR,
                f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) has no kernels in {build.name} "
                f"{build.version}: {why}.",
                (gpu_evidence(gpu, cc, cc_source), build_evidence(build, snapshot),
                 ev("toolkit support", f"first CUDA {row.first_cuda or '?'}, last {row.last_cuda or 'current'}",
                    f"gpu-arch.toml {cc}")),
                self._fix(build, cc, matrices), row.prov.source, build.name,
            )

    @staticmethod
    def _arch_list(
        build: FrameworkBuild, matrices: Matrices, platform: str = LINUX_X86_64
    ) -> tuple[tuple[str, ...], tuple[str, ...], str, str] | None:
        """(SASS ccs, PTX ccs, where the list came from, the reference to cite)."""
        runtime = build.runtime
        if isinstance(runtime, RuntimeReport) and runtime.arch_list:
            sass, ptx = parse_arch_list(runtime.arch_list)
            return sass, ptx, f"{build.name} runtime (get_arch_list)", f"{build.name} runtime (get_arch_list)"
        if build.arch_list:
            sass, ptx = parse_arch_list(build.arch_list)
            return sass, ptx, f"{build.distribution}: {build.source}", f"{build.distribution}: {build.source}"
        if build.name == "torch" and build.channel != "conda-forge":
            release, variant = torch_variant(build, matrices)
            arch = variant.arch(platform) if variant is not None else None
            if variant is not None and arch is not None and arch.sass is not None:
                label = f"torch.toml {release.version if release else ''} {variant.tag}"
                if platform != LINUX_X86_64:
                    label += f" {platform}"
                return arch.sass, arch.ptx or (), label, f"{label}: {arch.prov.source}"
        return None

    @staticmethod
    def _fix(build: FrameworkBuild, cc: str, matrices: Matrices, platform: str = LINUX_X86_64) -> str:
        if build.name != "torch":
            return f"install a {build.name} build compiled for compute capability {cc} (see its release notes)"
        current = version(series(build.version))
        releases = [(version(r.version), r) for r in matrices.torch.releases]
        known = sorted(((v, r) for v, r in releases if v is not None), key=lambda pair: pair[0])
        # Prefer the same release, then the nearest newer one, then the nearest older one.
        newer = [pair for pair in known if current is None or pair[0] >= current]
        older = [pair for pair in reversed(known) if current is not None and pair[0] < current]
        for rv, release in newer + older:
            candidates = [v for v in release.variants if v.cuda and (a := v.arch(platform)).sass is not None
                          and runs_on(cc, a.sass, a.ptx or ())]
            if not candidates:
                continue
            variant = next((v for v in candidates if v.tag == release.pypi_default), candidates[0])
            target = build.version if rv == current else f"{release.version}.*"
            return (f"install a torch build with kernels for compute capability {cc}: "
                    f"{pip_install_torch(target, variant)}")
        return f"no torch build in envguard's matrices has kernels for compute capability {cc}"


def _integrated(cc: str, matrices: Matrices) -> bool:
    """An integrated (Jetson) GPU, whose SASS must match its compute capability exactly (gpu-arch.toml)."""
    row = matrices.gpu_arch.arch(cc)
    return bool(row is not None and row.integrated)
