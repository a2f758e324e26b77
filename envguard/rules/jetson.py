"""cpu-only-build on a Jetson: a torch or TensorFlow that is not one of NVIDIA's Jetson builds.

A Jetson's integrated GPU (gpu-arch.toml ``integrated``: Nano/TX1 5.3, TX2 6.2, Xavier 7.2, Orin 8.7) runs only
NVIDIA's Jetson builds (torch.toml [[jetson]]; TensorFlow ``+nvYY.MM`` from NVIDIA's Jetson index) or a source
build. On the default package index the linux_aarch64 torch wheels of releases before 2.11 are CPU builds, on
download.pytorch.org those before 2.5 (torch.toml [[aarch64_index]]); the default index's linux_aarch64
TensorFlow wheels are CPU builds too. Judged here, from the reader's facts (``FrameworkBuild.index``,
``runtime.gpu_available``):

- error: the build came from the default / a PyTorch index (or is a torch or TensorFlow release newer than any NVIDIA
  built for the board's JetPack, torch.toml / tensorflow.toml [[jetson]], whose aarch64 wheel on the default index is
  the CPU build) and the framework reports CUDA unavailable;
- warning: that provenance without the framework's answer, or the answer without the provenance;
- nothing when anything shows the build may be NVIDIA's (``index == "nvidia-jetson"``), or on JetPack 7+ (Jetson
  Thor runs the SBSA wheels).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.knowledge._base import JetsonBuilds
from envguard.rules.base import build_evidence, ev, gpu_cc
from envguard.snapshot import L4T_IMAGE_KEY, L4T_NO_RUNTIME_KEY, FrameworkBuild, RuntimeReport, Snapshot, stated_parts

#: TensorFlow's linux_aarch64 wheels on the default index are CPU builds; GPU TensorFlow for Jetson is NVIDIA's
#: build from its Jetson index ("ARM builds can't be installed with `pip install tensorflow`. Nvidia has built a wheel
#: file to work specifically for Jetson", tensorflow#54446; JetPack 6 Orin NX, pip TF sees no GPU and the maintainers
#: point to NVIDIA's Jetson wheels, tensorflow#78983).
TF_AARCH64_SOURCE = ("https://github.com/tensorflow/tensorflow/issues/54446 ; https://github.com/tensorflow/tensorflow"
                     "/issues/78983 ; https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/"
                     "index.html")
_FIX = {
    "torch": "uninstall it and install NVIDIA's PyTorch build for this JetPack (the 'PyTorch for Jetson' wheels, "
             "https://forums.developer.nvidia.com/t/pytorch-for-jetson/72048, or the jetson-ai-lab index for "
             "JetPack 6), or use an l4t-pytorch / jetson-containers image",
    "tensorflow": "uninstall it and install NVIDIA's TensorFlow for Jetson (pip install --extra-index-url "
                  "https://developer.download.nvidia.com/compute/redist/jp/v<JetPack> tensorflow==<X>+nv<YY.MM>, "
                  "https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/), or an l4t image",
}


@dataclass(frozen=True, slots=True)
class _Board:
    evidence: Evidence
    cc: str | None
    jetpack: str | None


class JetsonBuildRule:
    """On a Jetson, torch / TensorFlow builds are NVIDIA's Jetson builds."""

    id = "jetson-build"
    summary = "torch/TensorFlow on a Jetson are NVIDIA's Jetson builds, not the package index's aarch64 CPU wheels"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cpu-only-build findings for builds on a Jetson that cannot use its GPU."""
        board = _board(snapshot, matrices)
        if board is None or (board.jetpack is not None and _major(board.jetpack) >= 7):
            return
        for build in snapshot.frameworks:
            # NOTE: the CPU build must be explicit: a "+cpu" tag, or CUDA unavailable for a build nothing shows to be
            # NVIDIA's (a plain aarch64 version in an NVIDIA image may be its Jetson build)
            said_cpu = "+cpu" in build.version or (build.index != "nvidia-jetson" and isinstance(
                build.runtime, RuntimeReport) and build.runtime.gpu_available is False)
            if build.name in ("torch", "tensorflow") and build.accelerator == "cpu" and not snapshot.gpu_list() \
                    and build.version_known and said_cpu:
                # NOTE: the cpu-only rule judges a CPU build against the GPUs a report names; a Jetson known only
                # by its release or image names none, and its integrated GPU is there all the same.
                yield Finding("cpu-only-build", Severity.ERROR,
                              f"{build.name} {build.version} is a CPU-only build on this Jetson "
                              f"({board.evidence.value}), so it cannot use the Jetson's integrated GPU.",
                              (build_evidence(build, snapshot), board.evidence), _FIX[build.name], None, build.name)
                continue
            if build.name not in ("torch", "tensorflow") or build.index == "nvidia-jetson" \
                    or build.accelerator in ("cpu", "rocm"):
                continue  # a CPU build: the cpu-only rule says it
            said = build.runtime.gpu_available is False if isinstance(build.runtime, RuntimeReport) else False
            why = _not_nvidia(build, board, matrices)
            label = f"{build.name} {build.version}" if build.version_known else \
                f"{build.name} ({build.version_label(snapshot.from_report)})"
            evidence = [build_evidence(build, snapshot), board.evidence]
            if said and isinstance(build.runtime, RuntimeReport):
                evidence.append(ev("CUDA available", "False", ", ".join(build.runtime.warnings) or "report"))
            if why is not None:
                text, source = why
                severity = Severity.ERROR if said else Severity.WARNING
                message = (f"{label} on this Jetson ({board.evidence.value}) is not one of NVIDIA's Jetson builds: "
                           f"{text}, so it cannot use the Jetson's integrated GPU"
                           + (" (the framework reports CUDA unavailable)." if said else
                              "; the report does not show whether CUDA is available."))
                yield Finding("cpu-only-build", severity, message, tuple(evidence), _FIX[build.name], source,
                              build.name)
            elif said and build.index is None and (build.accelerator is None or (
                    build.name == "tensorflow" and not build.cuda)):
                # NOTE: a TensorFlow version alone reads as a CUDA build (the Linux x86_64 wheel); on a Jetson that
                # is not known (its default-index aarch64 wheel is a CPU build).
                yield Finding(
                    "cpu-only-build", Severity.WARNING,
                    f"{label} reports CUDA unavailable on this Jetson ({board.evidence.value}): the report does not "
                    f"say where it came from; a build from the package index (or any build not NVIDIA's Jetson "
                    f"build) is a CPU build on a Jetson.", tuple(evidence), _FIX[build.name], None, build.name)


def _major(version: str) -> int:
    head = version.lstrip("vVrR").split(".")[0]
    return int(head) if head.isdigit() else 0


def _board(snapshot: Snapshot, matrices: Matrices) -> _Board | None:
    """The Jetson the report shows: an integrated GPU (gpu-arch.toml), or the JetPack / L4T release it names."""
    jetpack: str | None = None
    distro = snapshot.host.distro or ""
    if distro.startswith("NVIDIA JetPack "):
        jetpack = distro.removeprefix("NVIDIA JetPack ").strip()
    elif distro.startswith("NVIDIA L4T r"):
        row = matrices.cuda_images.l4t(distro.removeprefix("NVIDIA L4T r").strip())
        jetpack = str(row.jetpack) if row is not None else None
    for gpu in snapshot.gpu_list():
        cc, source = gpu_cc(gpu, matrices)
        arch = matrices.gpu_arch.arch(cc) if cc else None
        if arch is not None and arch.integrated:
            return _Board(ev("Jetson", f"{gpu.name}, compute capability {cc} (integrated)", source), cc, jetpack)
    if distro.startswith("NVIDIA "):
        return _Board(ev("Jetson", distro, snapshot.host.source), None, jetpack)
    image = snapshot.environment.get(L4T_IMAGE_KEY)
    if image and snapshot.from_report:
        release, source = stated_parts(image)
        row = matrices.cuda_images.l4t(release)
        return _Board(ev("Jetson", f"an L4T r{release} container image", source or "report"), None,
                      str(row.jetpack) if row is not None else None)
    return None


def _not_nvidia(build: FrameworkBuild, board: _Board, matrices: Matrices) -> tuple[str, str] | None:
    """Why the build is not NVIDIA's Jetson build and has no CUDA there, with the source; None when it may be."""
    if build.name == "tensorflow":
        if build.index == "default":
            return ("it came from the default package index, whose linux_aarch64 TensorFlow wheels are CPU builds "
                    "(GPU TensorFlow for Jetson is NVIDIA's +nvYY.MM build)", TF_AARCH64_SOURCE)
        return _newer_than_nvidia(build, board, matrices.tensorflow.jetson_builds(board.jetpack, board.cc),
                                  "the package index's linux_aarch64 TensorFlow wheels are CPU builds",
                                  TF_AARCH64_SOURCE)
    if build.index in ("default", "download.pytorch.org"):
        row = matrices.torch.aarch64_index(build.index)
        if row is None:
            return None
        where = "the default package index" if build.index == "default" else "a download.pytorch.org index"
        if not build.version_known:
            return (f"it came from {where}, whose linux_aarch64 torch wheels are CPU builds for torch{row.cpu_only} "
                    f"(and the CUDA aarch64 wheels of later releases carry no Jetson architecture)", row.prov.source)
        if row.is_cpu(build.version):
            return (f"it came from {where}, where torch {build.version}'s linux_aarch64 wheel is the CPU build "
                    f"(torch{row.cpu_only})", row.prov.source)
        return None
    default = matrices.torch.aarch64_index("default")
    if default is None or not default.is_cpu(build.version):
        return None
    return _newer_than_nvidia(build, board, matrices.torch.jetson_builds(board.jetpack, board.cc),
                              f"the package index's linux_aarch64 torch {build.version} wheel is the CPU build "
                              f"(torch{default.cpu_only})", default.prov.source)


def _newer_than_nvidia(build: FrameworkBuild, board: _Board, nvidia: JetsonBuilds | None, index_text: str,
                       index_source: str) -> tuple[str, str] | None:
    """Why a release newer than any NVIDIA built for the board's JetPack (and not tagged as another build) has no
    CUDA there; None when it may be NVIDIA's build or the table does not say."""
    try:
        version = Version(build.version.split("+", maxsplit=1)[0])
    except InvalidVersion:
        return None
    if nvidia is None or "+" in build.version or Version(f"{version.major}.{version.minor}") <= nvidia.newest:
        return None
    board_text = f"JetPack {board.jetpack}" if board.jetpack else f"a compute capability {board.cc} board"
    return (f"NVIDIA built {build.name} for JetPack {nvidia.jetpack} up to {nvidia.newest} ({board_text}), so "
            f"{version} is another build, and {index_text}", f"{nvidia.prov.source} ; {index_source}")


#: On JetPack 4 (L4T r32) the l4t images carry no CUDA, cuDNN or TensorRT of their own: the NVIDIA container runtime
#: mounts them from the host (dusty-nv/jetson-containers#3, the maintainer: an r32.4.2 l4t-pytorch container run
#: without --runtime nvidia has no libcudnn; "NVIDIA's runtime mounts many files (few GB) from the host OS into the
#: container", idavis/jetson-containers; later images carry CUDA inside, forums.developer.nvidia.com/t/268191).
L4T_MOUNTS_SOURCE = ("https://github.com/dusty-nv/jetson-containers/issues/3 ; https://github.com/idavis/jetson-"
                     "containers ; https://forums.developer.nvidia.com/t/what-does-the-cdi-config-via-nvidia-ctk-and-"
                     "why-does-it-mount-so-libs-in-the-container/268191")


class L4tWithoutRuntimeRule:
    """A JetPack 4 (L4T r32) container started without the NVIDIA runtime has no CUDA libraries."""

    id = "l4t-runtime"
    summary = "JetPack 4 l4t containers run with the NVIDIA runtime, which mounts CUDA/cuDNN/TensorRT from the host"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One cuda-libs-missing finding for an r32 image the report starts without --runtime nvidia."""
        said = snapshot.environment.get(L4T_NO_RUNTIME_KEY)
        if not said or not snapshot.from_report:
            return
        release, source = stated_parts(said)
        release, _, missing = release.partition("+")
        if _major(release) != 32:
            return
        # NOTE: an error only when the report also says the libraries are not there; alone, the daemon's
        # default runtime (daemon.json) may be nvidia
        yield Finding(
            "cuda-libs-missing", Severity.ERROR if missing else Severity.WARNING,
            f"The L4T r{release} container (JetPack 4) is started without the NVIDIA container runtime: JetPack 4's "
            "l4t images carry no CUDA, cuDNN or TensorRT of their own, the NVIDIA runtime mounts them from the "
            "Jetson host, so without it (unless the Docker daemon's default runtime is nvidia) they are missing in "
            "the container" + (", as the report shows." if missing else "."),
            (ev("container", f"L4T r{release} image, no --runtime nvidia", source or "report"),),
            "docker run --runtime nvidia ... (for docker build and docker compose set \"default-runtime\": "
            "\"nvidia\" in /etc/docker/daemon.json and restart docker)",
            L4T_MOUNTS_SOURCE, "container",
        )
