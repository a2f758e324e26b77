"""arch-unsupported for conda-forge's pytorch CUDA builds, judged by conda-forge's own arch lists.

conda-forge compiles pytorch with its recipe's TORCH_CUDA_ARCH_LIST (torch.toml ``[[conda_forge]]``, read from
conda-forge/pytorch-cpu-feedstock recipe/build.sh), not the pip wheels' lists. A report rarely gives every fact
that picks one build (version, CUDA, platform, build number, arm variant), so the rule takes every conda-forge
build the report's facts leave possible:

- no possible build has kernels for the GPU → ERROR (whichever it is, the GPU gets "no kernel image");
- some have and some lack them → WARNING naming which (the report does not say which build it is);
- all have them, or none is recorded → nothing.

On an integrated (Jetson) GPU only SASS of its exact compute capability runs (gpu-arch.toml ``integrated``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.archs import runs_on
from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.knowledge.torch import CondaForgeBuild, conda_forge_build_cuda
from envguard.rules.base import build_evidence, ev, gpu_cc, platform_of
from envguard.snapshot import FrameworkBuild, RuntimeReport, Snapshot

FEEDSTOCK = "https://github.com/conda-forge/pytorch-cpu-feedstock"
_BUILD_NUMBER = re.compile(r"_(\d{1,4})$")


def build_facts(build: FrameworkBuild) -> tuple[str | None, str | None, int | None]:
    """(version, CUDA, recipe build number) a conda-forge build's version and build string give (None: unknown)."""
    version = build.version if build.version and build.version[0].isdigit() else None
    cuda, number = build.cuda, None
    text = (build.conda_build or "").lower()
    if cuda is None:
        cuda = conda_forge_build_cuda(text)
    last = _BUILD_NUMBER.search(text)
    if last:
        number = int(last.group(1)) % 100
    return version, cuda, number


def _platforms(snapshot: Snapshot) -> tuple[str, ...]:
    """The conda platforms the target may be: linux-aarch64 / linux-64, both when the report does not say."""
    if snapshot.host.arch in ("", "not reported") and not snapshot.host.system.lower().startswith(("win", "dar")):
        return ("linux-64", "linux-aarch64")
    wheel = platform_of(snapshot)
    return {"linux_aarch64": ("linux-aarch64",), "linux_x86_64": ("linux-64",)}.get(wheel, ())


def _label(row: CondaForgeBuild) -> str:
    variant = f" {row.arm_variant}" if row.arm_variant else ""
    return f"CUDA {row.cuda}{variant} ({row.versions})"


class CondaForgeArchRule:
    """Every GPU must have kernels in the conda-forge pytorch CUDA build the report's facts leave possible."""

    id = "conda-forge-arch"
    summary = "each GPU's compute capability is compiled into the conda-forge pytorch CUDA build"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield arch-unsupported (ERROR when every possible build lacks the GPU, WARNING when some do)."""
        gpus = snapshot.gpu_list()
        if not gpus:
            return
        for build in snapshot.frameworks:
            if (build.name != "torch" or build.channel != "conda-forge" or build.accelerator != "cuda"
                    or build.arch_list or (isinstance(build.runtime, RuntimeReport) and build.runtime.arch_list)):
                continue
            version, cuda, number = build_facts(build)
            rows = [r for p in _platforms(snapshot)
                    for r in matrices.torch.conda_forge_builds(version, cuda, p, number)]
            if not rows:
                continue
            for gpu in gpus:
                cc, cc_source = gpu_cc(gpu, matrices)
                arch = matrices.gpu_arch.arch(cc) if cc else None
                if cc is None:
                    continue
                integrated = bool(arch is not None and arch.integrated)
                lacking = [r for r in rows if not runs_on(cc, r.sass, r.ptx or (), integrated=integrated)]
                # NOTE: a row whose PTX is not recorded may still JIT for the GPU: it is not counted as lacking.
                lacking = [r for r in lacking if r.ptx is not None]
                if not lacking:
                    continue
                kind = f"integrated GPU, SASS must match {cc} exactly" if integrated else f"compute capability {cc}"
                lists = "; ".join(f"{_label(r)}: {' '.join('sm_' + c.replace('.', '') for c in r.sass)}"
                                  f"{' +PTX ' + ','.join(r.ptx) if r.ptx else ''}" for r in lacking)
                evidence = (ev(f"GPU {gpu.index}", f"{gpu.name}, {kind}", cc_source), build_evidence(build, snapshot),
                            ev("conda-forge arch lists", lists, "; ".join(sorted({r.prov.source for r in lacking}))))
                fix = (f"install a build compiled for compute capability {cc}: NVIDIA's Jetson (JetPack) PyTorch "
                       f"wheels or a source build with TORCH_CUDA_ARCH_LIST={cc}" if integrated else
                       f"install a torch build compiled for compute capability {cc} (see torch.toml)")
                if len(lacking) == len(rows):
                    yield Finding(
                        "arch-unsupported", Severity.ERROR,
                        f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) has no kernels in conda-forge's "
                        f"pytorch {build.version if version else '(version not given)'} CUDA build: "
                        f"{'every conda-forge build it can be lacks' if len(rows) > 1 else 'its arch list lacks'} "
                        f"{cc}{' (no binary compatibility on Tegra)' if integrated else ''}.",
                        evidence, fix, lacking[0].prov.source, build.name,
                    )
                else:
                    fine = ", ".join(_label(r) for r in rows if r not in lacking)
                    yield Finding(
                        "arch-unsupported", Severity.WARNING,
                        f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) may have no kernels in conda-forge's "
                        f"pytorch CUDA build: the report does not say which build it is, and {len(lacking)} of the "
                        f"{len(rows)} it can be lack {cc} (those with it: {fine}).",
                        evidence, f"check `conda list pytorch` (build string) and {fix}", FEEDSTOCK, build.name,
                    )
