"""Which build (CPU or CUDA) a report's frameworks are, from what only a report says.

``resolve`` derives builds the way a probe does (versions, local tags, listings); this step adds what a pasted
report states about the build itself, strongest evidence first:

1. the framework asked about itself (``tf.test.is_built_with_cuda()`` → ``False``): a CPU build, whatever the
   package name or build string claims;
2. a conda build string (``cuda120py311…`` / ``cpu_py311…``) of a build whose variant is otherwise unknown;
3. TensorFlow 2.1-2.10 on native Windows: the ``tensorflow`` package is the GPU build there;
4. ``jax[cudaNN…]`` asked for on native Windows: JAX publishes no CUDA jaxlib for Windows, so it is the CPU build;
5. a sentence stating the installed build is the CPU one, when nothing stronger says which it is.

A CPU build then records what shows it was meant for a GPU (``FrameworkBuild.gpu_intent``): a CUDA build asked
for, a CUDA build string, or a GPU working elsewhere on the same machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from packaging.version import InvalidVersion, Version

from envguard.knowledge import Matrices
from envguard.knowledge.torch import conda_forge_build_cuda
from envguard.reports import extract_named
from envguard.reports.extract_builds import (
    BUILT_WITHOUT_CUDA,
    CONDA_TORCH_REQUEST,
    CONDA_VARIANT,
    CPU_CLAIM,
    CUDA_PREFIX,
    CUDA_REQUEST,
    GPU_PRESENT,
    GPU_WANTED,
)
from envguard.reports.extract_conda_forge import TORCH_CHANNEL, TORCH_CONDA_BUILD
from envguard.reports.mentions import MESSAGE, PROSE, Mention
from envguard.snapshot import UNKNOWN_VERSION, FrameworkBuild, normalize_name, stated_parts

#: JAX's supported-platforms table: NVIDIA GPU on "Windows, x86_64" is "no" (older pages: "n/a"); CUDA jaxlib and
#: plugin wheels exist for Linux only, native Windows runs JAX on the CPU.
JAX_PLATFORMS_SOURCE = "https://docs.jax.dev/en/latest/installation.html"
#: TF 2.1.0 release notes: "The tensorflow pip package now includes GPU support by default (same as
#: tensorflow-gpu) for both Linux and Windows."
TF_21_SOURCE = "https://github.com/tensorflow/tensorflow/releases/tag/v2.1.0"
#: Kinds whose differing values are several facts, not a contradiction (two CUDA requests, two sentences).
UNNOTED_KINDS = (BUILT_WITHOUT_CUDA, CONDA_TORCH_REQUEST, CONDA_VARIANT, CPU_CLAIM, CUDA_PREFIX, CUDA_REQUEST,
                 GPU_WANTED, GPU_PRESENT, TORCH_CHANNEL, TORCH_CONDA_BUILD)
_DISTRIBUTION = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jaxlib", "paddle": "paddlepaddle"}


def _join(source: str) -> str:
    return f"{source}; " if source else ""


def _best(mentions: Iterable[Mention], kind: str, key: str | None = None) -> Mention | None:
    found = [m for m in mentions if m.kind == kind and (key is None or m.key == key)]
    return min(found, key=lambda m: (-m.tier, m.line)) if found else None


def _at_least(text: str, floor: str) -> bool:
    try:
        return Version(text.split("+", maxsplit=1)[0]) >= Version(floor)
    except InvalidVersion:
        return False


def adjust(mentions: list[Mention], builds: tuple[FrameworkBuild, ...], system: str | None, gpu_seen: bool,
           matrices: Matrices | None) -> tuple[FrameworkBuild, ...]:
    """``builds`` with the CPU/CUDA facts only a report gives applied, and the builds a report names only as
    "the CPU version of torch" or through a CUDA request on a platform without CUDA builds added."""
    out = list(builds)
    names = {b.name for b in out}
    # NOTE: "the CPU version of torch" and "tf.test.is_built_with_cuda() # False" name a CPU build of a version the
    # report may not give: the build is a fact, its version UNKNOWN_VERSION.
    for claim in (m for m in mentions if m.kind in (CPU_CLAIM, BUILT_WITHOUT_CUDA) and m.key in _DISTRIBUTION):
        if claim.key not in names:
            names.add(claim.key)
            out.append(FrameworkBuild(claim.key, _DISTRIBUTION[claim.key], UNKNOWN_VERSION, None, None, None,
                                      source=""))
    channel = _best(mentions, TORCH_CHANNEL)
    if channel is not None and channel.value == "conda-forge|cuda" and "torch" not in names:
        # "the latest cuda-enabled pytorch conda-forge package": a conda-forge CUDA build of a version not given.
        names.add("torch")
        out.append(FrameworkBuild("torch", "pytorch", UNKNOWN_VERSION, "cuda", None, None, source=f"{channel.source} "
                                  f"(report line {channel.line})", channel="conda-forge"))
    jax_request = _best(mentions, CUDA_REQUEST, "jax")
    if system == "win32" and jax_request is not None and "jax" not in names:
        stated = _best(mentions, "package", "jax")
        out.append(FrameworkBuild("jax", "jaxlib", stated.value if stated else UNKNOWN_VERSION, None, None, None,
                                  source=stated.source if stated else ""))
    out = extract_named.named_builds(mentions, out)
    return tuple(_conda_forge(_one(b, mentions, system, gpu_seen, matrices), mentions) for b in out)


def _conda_forge(build: FrameworkBuild, mentions: list[Mention]) -> FrameworkBuild:
    """A torch build a conda listing or sentence says came from conda-forge, with its conda build string."""
    channel = _best(mentions, TORCH_CHANNEL)
    if build.name != "torch" or channel is None or "+" in build.version:
        return build
    conda_build = _best(mentions, TORCH_CONDA_BUILD)
    build = replace(build, channel="conda-forge", conda_build=conda_build.value if conda_build else None)
    cuda = conda_forge_build_cuda(build.conda_build or "")
    if build.accelerator is None and cuda is not None:
        build = replace(build, accelerator="cuda", cuda=build.cuda or cuda,
                        source=f"{build.source}; conda-forge build string {build.conda_build}")
    elif build.accelerator is None and channel.value.endswith("|cuda"):
        build = replace(build, accelerator="cuda")
    return build


def _one(build: FrameworkBuild, mentions: list[Mention], system: str | None, gpu_seen: bool,
         matrices: Matrices | None) -> FrameworkBuild:
    name = build.name
    conda = _best(mentions, CONDA_VARIANT, name)
    if conda is not None and build.accelerator is None:
        if conda.value == "cpu":
            build = replace(build, accelerator="cpu", cuda=None, source=f"{_join(build.source)}{conda.source}")
        else:
            build = replace(build, accelerator="cuda", cuda=build.cuda or conda.value,
                            source=f"{_join(build.source)}{conda.source}")
    if (name == "tensorflow" and system == "win32" and build.accelerator is None and gpu_seen
            and normalize_name(build.distribution) == "tensorflow" and _at_least(build.version, "2.1")
            and matrices is not None):
        release = matrices.tensorflow.release(build.version)
        if release is not None and release.windows_native_gpu:
            build = replace(build, accelerator="cuda",
                            source=f"{_join(build.source)}the tensorflow package {release.version} includes GPU "
                                   f"support on native Windows ({TF_21_SOURCE})")
    request = _best(mentions, CUDA_REQUEST, name) or _best(mentions, CUDA_REQUEST, "")
    itself = _best(mentions, BUILT_WITHOUT_CUDA, name)
    claim = _best(mentions, CPU_CLAIM, name)
    if itself is not None:
        build = replace(build, accelerator="cpu", cuda=None, cudnn=None,
                        source=f"{_join(build.source)}{itself.source} {itself.value!r}: not built with CUDA")
    elif name == "jax" and system == "win32" and request is not None and request.value.startswith("jax["):
        build = replace(build, accelerator="cpu", cuda=None,
                        source=f"{_join(build.source)}{request.value} asked for on native Windows, where JAX has "
                               f"no CUDA builds ({JAX_PLATFORMS_SOURCE})")
    elif (unbuilt := _no_conda_build(build, mentions, matrices)) is not None:
        build = replace(build, accelerator="cpu", cuda=None, source=f"{_join(build.source)}{unbuilt}")
    elif claim is not None and _claim_applies(build, mentions):
        asked = "+" in build.version  # the tagged version is only what an install command asked for
        build = replace(build, accelerator="cpu", cuda=None, version=UNKNOWN_VERSION if asked else build.version,
                        source=f"{_join(build.source)}{claim.source} {claim.value!r}"
                               + (f" (torch {build.version} is only what a command asked for)" if asked else ""))
    if build.accelerator != "cpu":
        return build
    intent = request or (conda if conda is not None and conda.value != "cpu" else None) \
        or _best(mentions, GPU_PRESENT)
    if intent is not None:
        what = f"a CUDA {intent.value} build" if intent.kind == CONDA_VARIANT else intent.value
        build = replace(build, gpu_intent=f"{what} ({intent.source})")
    elif (libs := _cuda_wheels(mentions)) is not None:
        build = replace(build, gpu_intent=f"NVIDIA's CUDA library wheels installed beside it, {libs.key} "
                                          f"{libs.value} ({libs.source})")
    elif (nvcc := next((m for m in mentions if m.how == "nvcc --version"), None)) is not None:
        # NOTE: a CUDA toolkit someone installed (nvcc's own output, not a sentence) is for GPU work
        # (pytorch/pytorch#49325: nvcc 10.2 beside torch 1.7.1+cpu on Windows)
        build = replace(build, gpu_intent=f"the CUDA toolkit installed, nvcc {nvcc.value} ({nvcc.source})")
    elif (toolkit := _conda_cuda_package(mentions)) is not None:
        # NOTE: a CUDA runtime package in the same conda environment (cudatoolkit, pytorch-cuda, cuda-runtime) was
        # installed for GPU work (conda-forge's CPU pytorch beside cudatoolkit 11.8.0: stschubert/VPR_Tutorial#11)
        build = replace(build, gpu_intent=f"{toolkit.key} {toolkit.value} installed beside it ({toolkit.source})")
    elif (wanted := _best(mentions, GPU_WANTED, name)) is not None:
        # NOTE: the weakest: a sentence saying the GPU build was wanted ("installs cpu versions of pytorch and
        # torchvision instead of gpu ones", chemprop/chemprop#183)
        build = replace(build, gpu_intent=f"{wanted.value} ({wanted.source})")
    return build


#: conda's CUDA runtime packages: what a conda environment holds for a CUDA build of a framework.
_CONDA_CUDA_PACKAGES = ("cudatoolkit", "pytorch-cuda", "cuda-runtime", "cuda-toolkit", "cuda-cudart")


def _conda_cuda_package(mentions: list[Mention]) -> Mention | None:
    """A CUDA runtime package a conda listing or transaction shows installed."""
    return next((m for m in mentions if m.kind == "package" and m.key in _CONDA_CUDA_PACKAGES and m.tier >= MESSAGE
                 and m.how.startswith(("conda", "package list", "pixi"))), None)


#: NVIDIA's CUDA user-space wheels (what tensorflow[and-cuda], jax[cuda12] and the CUDA torch wheels pull in):
#: installed beside a CPU build, they say the environment was meant for a GPU (tensorflow#121157: tf-nightly on
#: aarch64 with nvidia-cudnn-cu12 and nvidia-cublas-cu12 installed, is_built_with_cuda() False).
_CUDA_WHEEL = re.compile(r"nvidia-(?:cudnn|cublas|cuda-runtime)-cu\d{2}")


def _cuda_wheels(mentions: Iterable[Mention]) -> Mention | None:
    return _best((m for m in mentions if _CUDA_WHEEL.fullmatch(m.key or "")), "package")


def _no_conda_build(build: FrameworkBuild, mentions: list[Mention], matrices: Matrices | None) -> str | None:
    """Why a conda request of pytorch=V with cudatoolkit=C installs the CPU build: the pytorch channel has no V
    build for C, and its CPU build does not depend on cudatoolkit, so the solver takes that one."""
    request = _best(mentions, CONDA_TORCH_REQUEST, "torch")
    if build.name != "torch" or request is None or matrices is None or not _claim_applies(build, mentions):
        return None
    wanted, toolkit = stated_parts(request.value)
    builds = matrices.torch.conda_builds(wanted)
    if builds is None or toolkit in builds.cuda or series_of(wanted) != series_of(build.version):
        return None
    return (f"{request.source}: the pytorch channel has no {wanted} build for CUDA {toolkit} (its builds: CUDA "
            f"{', '.join(builds.cuda)}; {builds.prov.source}), so conda installs the CPU build")


def series_of(text: str) -> str:
    try:
        v = Version(text.split("+", maxsplit=1)[0])
    except InvalidVersion:
        return text
    return f"{v.major}.{v.minor}"


def _claim_applies(build: FrameworkBuild, mentions: list[Mention]) -> bool:
    """A sentence saying "the CPU version" decides only where nothing stronger says which build it is."""
    if build.accelerator is None:
        return True
    if build.name != "torch" or build.accelerator != "cuda":
        return False
    # A torch CUDA build read only from a CUDA named in prose ("with CUDA 10.1"), not from the build itself.
    stated = any(m.kind in ("torch_cuda", "conda_torch_cuda") for m in mentions)
    if stated or "pypi_default" in build.source:
        return False
    return "+" not in build.version or _asked_for_only(build.version, mentions)


_VERSION_KINDS = ("torch", "torch_prose", "torch_message")


def _asked_for_only(version: str, mentions: list[Mention]) -> bool:
    """True when every mention of this tagged torch version is on an install command line that asks for a CUDA build
    (``uvx --with torch==2.5.1+cu124 --index-url …/cu124``, ``pip install torch==1.8.1+cu102 …``): what was asked
    for, not what a tool shows installed, so a sentence saying the CPU build was installed is not contradicted."""
    giving = [m for m in mentions if (m.kind in _VERSION_KINDS or (m.kind == "package" and m.key in ("torch",
              "pytorch"))) and m.value.split()[0].lower() == version.lower()]
    asking = {m.line for m in mentions if (m.kind == CUDA_REQUEST and m.key in ("torch", ""))
              or (m.kind == "requested" and m.key == "torch" and "+cu" in m.value)}
    return bool(giving) and all(m.tier <= PROSE and m.line in asking for m in giving)
