"""Two copies of one library: the cuDNN/NCCL a program reports it *loaded* against the one it was built with or
the one that is installed for it (cudnn-mismatch, nccl-mismatch).

The facts come from ``SharedLibrary`` rows whose ``source`` is "loaded" or "loaded:<framework>" (the program
itself said which version it uses: torch.cuda.nccl.version(), NCCL_DEBUG's "NCCL version", PaddlePaddle's
"cuDNN Version:" line) and "package:<name>+cudaA.B" (a system package built for one CUDA: dpkg rows, a sentence
naming NCCL's CUDA). A live probe produces neither today, so these rules only speak when such a line was read.
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import CUDNN_CALL_FAILED, build_evidence, cuda_builds, ev, interpreter_source, version
from envguard.snapshot import LOADED_SOURCE, CudaToolkit, SharedLibrary, Snapshot, normalize_name

__all__ = ["LoadedLibraryRule"]

#: NCCL's install guide: the libnccl2/libnccl-dev packages are built per CUDA version ("2.4.8-1+cuda10.0"),
#: and the one for the installed CUDA is to be used.
NCCL_INSTALL_GUIDE = "https://docs.nvidia.com/deeplearning/nccl/install-guide/index.html"
#: cuDNN's Linux packages come per CUDA major ("libcudnn8=${cudnn_version}-1+${cuda_version}", cuDNN 8.9 install
#: guide; cuDNN 9: libcudnn9-cuda-11 / libcudnn9-cuda-12).
CUDNN_INSTALL_GUIDE = "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html"
#: ncclGetVersion() reports the version of the libnccl that is loaded (what torch.cuda.nccl.version() returns).
NCCL_GET_VERSION = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetversion"
#: PaddlePaddle prints the cuDNN it loaded (cudnnGetVersion) and compares it with the one it was compiled with.
PADDLE_GPU_RESOURCES = "https://github.com/PaddlePaddle/Paddle/blob/develop/paddle/phi/backends/gpu/gpu_resources.cc"


def _loaded_by(lib: SharedLibrary, framework: str | None = None) -> bool:
    head, _, who = lib.source.partition(":")
    return head == LOADED_SOURCE and (framework is None or not who or who == framework)



def _package_off_major(snapshot: Snapshot, name: str) -> tuple[SharedLibrary, str, CudaToolkit, Version] | None:
    """The first system package of library ``name`` built for another CUDA major than a CUDA toolkit the snapshot
    names, with the CUDA it was built for, that toolkit and its parsed version; None when there is none."""
    for lib in snapshot.libraries:
        cuda = lib.package_cuda if lib.name == name else None
        built = version(cuda)
        if cuda is None or built is None:
            continue
        for tk in snapshot.toolkit_list():
            tv = version(tk.version)
            if tv is not None and tv.major != built.major:
                return lib, cuda, tk, tv
    return None


def _package_name(lib: SharedLibrary) -> str:
    """The system package a library row came from ("package:libnccl2+cuda11.0" → "libnccl2")."""
    return lib.source.removeprefix("package:").split("+", 1)[0]


def _base(text: str | None) -> str:
    return (text or "").split("+", 1)[0]


class LoadedLibraryRule:
    """The cuDNN/NCCL in use is the one the build needs and the one installed for it."""

    id = "loaded-libraries"
    summary = "the cuDNN and NCCL a program reports loading match its build and the installed packages"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch / nccl-mismatch findings."""
        yield from self._nccl_not_the_wheel(snapshot)
        yield from self._nccl_older_than_the_release(snapshot, matrices)
        yield from self._nccl_package_cuda(snapshot)
        yield from self._cudnn_package_cuda(snapshot)
        yield from self._cudnn_loaded(snapshot)
        yield from _nccl_graph_capture(snapshot, matrices)

    @staticmethod
    def _nccl_not_the_wheel(snapshot: Snapshot) -> Iterator[Finding]:
        """A program reports an NCCL older than the nvidia-nccl wheel installed for it: another libnccl.so.2 (the
        system's, an image's, one on LD_LIBRARY_PATH) is loaded first, so what the wheel adds is missing."""
        if not isinstance(snapshot.packages, tuple):
            return
        wheels = [d for d in snapshot.packages if normalize_name(d.name).startswith("nvidia-nccl")]
        # NOTE: nccl-tests links the system libnccl, never a Python wheel: its library says nothing about the wheel.
        loaded = [lib for lib in snapshot.libraries if lib.name == "nccl" and _loaded_by(lib)
                  and lib.source != f"{LOADED_SOURCE}:nccl-tests"]
        for lib in loaded[:1]:
            for wheel in wheels:
                lv, wv = version(_base(lib.version)), version(_base(wheel.version))
                if lv is None or wv is None or lv >= wv:
                    continue
                yield Finding(
                    "nccl-mismatch", Severity.ERROR,
                    f"The NCCL in use is {lib.version} ({lib.path}), older than the installed {wheel.name} "
                    f"{wheel.version}: another libnccl.so.2 is loaded before the wheel's, so the functions the "
                    "newer NCCL adds are missing.",
                    (ev("NCCL in use", lib.version, lib.path),
                     ev(wheel.name, wheel.version, interpreter_source(snapshot, "distributions"))),
                    "find the other copy (ldconfig -p | grep libnccl; echo $LD_LIBRARY_PATH; "
                    "cat /proc/<pid>/maps | grep nccl) and remove it from the loader path, or LD_PRELOAD "
                    "the wheel's nvidia/nccl/lib/libnccl.so.2",
                    NCCL_GET_VERSION, "nccl",
                )

    @staticmethod
    def _nccl_older_than_the_release(snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """torch reports loading an NCCL older than every CUDA wheel of its release depends on (torch.toml's
        nvidia-nccl pins), and no nvidia-nccl wheel is listed: a report whose NCCL error names the NCCL it loaded
        ("NCCL error in: ..., NCCL version 2.14.3") with torch 2.1, whose CUDA wheels pin nvidia-nccl 2.15.5 / 2.18.1.
        Not for a conda or source build (they link NCCL their own way)."""
        if not snapshot.from_report or not isinstance(snapshot.packages, tuple) or any(
                normalize_name(d.name).startswith("nvidia-nccl") for d in snapshot.packages):
            return
        torch = snapshot.framework("torch")
        loaded = next((lib for lib in snapshot.libraries if lib.name == "nccl" and _loaded_by(lib, "torch")), None)
        if torch is None or loaded is None or torch.channel or torch.accelerator in ("cpu", "rocm") \
                or torch.distribution != "torch":
            return
        release = matrices.torch.release(torch.version)
        tag = torch.version.partition("+")[2]
        pins = [v.nccl for v in (release.variants if release else ()) if v.nccl and v.cuda
                and (not tag or v.tag == tag)]
        floor = min((pv for pv in (version(p) for p in pins) if pv is not None), default=None)
        have = version(_base(loaded.version))
        if release is None or floor is None or have is None or have >= floor:
            return
        yield Finding(
            "nccl-mismatch", Severity.ERROR,
            f"torch {torch.version} reports NCCL {loaded.version}, older than the NCCL its CUDA wheels depend on "
            f"(nvidia-nccl {', '.join(sorted(set(pins)))}): another, older libnccl.so.2 (a stale nvidia-nccl wheel "
            "of an earlier torch, the system's, one on LD_LIBRARY_PATH) is loaded instead.",
            (ev("NCCL in use", loaded.version, loaded.path), build_evidence(torch, snapshot),
             ev("torch's NCCL", ", ".join(sorted(set(pins))), f"torch.toml {release.version} (nvidia-nccl pins)")),
            "pip list | grep nccl: remove the stale nvidia-nccl wheel (keep the one torch requires); otherwise find "
            "the other copy (ldconfig -p | grep libnccl; echo $LD_LIBRARY_PATH)",
            release.prov.source, "nccl",
        )

    @staticmethod
    def _nccl_package_cuda(snapshot: Snapshot) -> Iterator[Finding]:
        """A system NCCL package built for another CUDA major than the system's CUDA toolkit."""
        off = _package_off_major(snapshot, "nccl")
        if off is None:
            return
        lib, cuda, tk, tv = off
        yield Finding(
            "nccl-mismatch", Severity.ERROR,
            f"The NCCL package ({_package_name(lib)}{' ' + lib.version if lib.version else ''}) is built for CUDA "
            f"{cuda}, but the system's CUDA is {tk.version}: NVIDIA builds NCCL per CUDA version, and one "
            "for another CUDA major fails at run time (\"unhandled cuda error\").",
            (ev("NCCL package", f"{lib.version or 'version not reported'} (built for CUDA {cuda})", lib.path),
             ev("CUDA toolkit", tk.version, tk.source)),
            f"install the NCCL packages built for CUDA {tv.major}.{tv.minor}: "
            f"sudo apt install libnccl2=<version>-1+cuda{tv.major}.{tv.minor} "
            f"libnccl-dev=<version>-1+cuda{tv.major}.{tv.minor}  # apt-cache madison libnccl2 lists them",
            NCCL_INSTALL_GUIDE, "nccl",
        )

    @staticmethod
    def _cudnn_package_cuda(snapshot: Snapshot) -> Iterator[Finding]:
        """A cuDNN system package built for another CUDA major than the system's CUDA toolkit."""
        off = _package_off_major(snapshot, "cudnn")
        if off is None:
            return
        lib, cuda, tk, tv = off
        cuda_major = cuda.split(".")[0]
        major = (lib.version or "8").split(".")[0]
        yield Finding(
            "cudnn-mismatch", Severity.ERROR,
            f"The cuDNN package ({_package_name(lib)} {lib.version}) is built for CUDA {cuda}, but the system's CUDA "
            f"is {tk.version}: NVIDIA builds cuDNN per CUDA major, and the CUDA {cuda_major} build links that major's "
            f"cuBLAS (libcublasLt.so.{cuda_major}), which a CUDA {tv.major} install does not have.",
            (ev("cuDNN package", f"{lib.version} (built for CUDA {cuda})", lib.path),
             ev("CUDA toolkit", tk.version, tk.source)),
            f"install the cuDNN package built for CUDA {tv.major}: sudo apt install "
            f"libcudnn{major}={lib.version}-1+cuda{tv.major}.<minor>  # apt-cache madison libcudnn{major} lists "
            f"them (cuDNN 9: libcudnn9-cuda-{tv.major})",
            CUDNN_INSTALL_GUIDE, "cudnn",
        )

    @staticmethod
    def _cudnn_loaded(snapshot: Snapshot) -> Iterator[Finding]:
        """A framework reports loading a cuDNN of another major, or a lower minor, than it was compiled with."""
        failed = next((line for line in snapshot.observed_errors if CUDNN_CALL_FAILED.search(line)), None)
        for build in cuda_builds(snapshot):
            if not build.cudnn:
                continue
            need = version(build.cudnn)
            for lib in snapshot.libraries:
                if lib.name != "cudnn" or not _loaded_by(lib, build.name):
                    continue
                have = version(lib.version)
                if need is None or have is None:
                    continue
                if have.major == need.major and (have.major, have.minor) >= (need.major, need.minor):
                    continue
                other_major = have.major != need.major
                # Paddle itself only warns on a lower minor of the same major ("may cause serious incompatible
                # bug"), and some such setups run; another major cannot serve a build compiled against this one.
                # A cuDNN call that then failed (CUDNN_STATUS_BAD_PARAM ...) in the same report shows this one did
                # not run.
                severity = (Severity.ERROR if other_major or build.name != "paddle" or failed is not None
                            else Severity.WARNING)
                named = build.name if version(build.version) is None else f"{build.name} {build.version}"
                yield Finding(
                    "cudnn-mismatch", severity,
                    f"{named} was compiled with cuDNN {build.cudnn}, but the cuDNN it loaded is "
                    f"{lib.version} ({lib.path}): "
                    + ("another major, so another library is found first on the loader path."
                       if other_major else "an older minor than its build."),
                    (build_evidence(build, snapshot), ev("cuDNN compiled with", build.cudnn, build.source),
                     ev("cuDNN loaded", lib.version, lib.path),
                     *((ev("cuDNN call failed", failed[:160], snapshot.origin),) if failed else ())),
                    f"put the cuDNN {need.major}.x the build needs first on the loader path (conda: "
                    "LD_LIBRARY_PATH=$CONDA_PREFIX/lib; check ldconfig -p | grep cudnn) or remove the older copy",
                    PADDLE_GPU_RESOURCES if build.name == "paddle" else None, build.name,
                )


#: errors.toml row of NCCL's "cannot be captured in a graph ... CUDA runtime >= 11.3 ... driver < R465" warning.
GRAPH_CAPTURE_SIGNATURE = "nccl-graph-capture-old-cuda-runtime"
#: NCCL can be captured in CUDA graphs only when built with a CUDA runtime >= 11.3 (the message itself says so).
GRAPH_CAPTURE_MIN_CUDA = (11, 3)
#: The nvidia-nccl-cu11 wheels are built with CUDA 11.0 (lmdeploy#2433: "nvidia-nccl-cu11 is built on cuda11.0 which
#: is not met to capture cudagraph in TP mode"; vllm#3069 shows the cu11 wheel's "NCCL version 2.19.3+cuda11.0").
NCCL_CU11_WHEEL_CUDA = "11.0"
NCCL_CU11_WHEEL_SOURCES = "https://github.com/InternLM/lmdeploy/pull/2433 ; https://github.com/vllm-project/vllm/issues/3069"


def _nccl_graph_capture(snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
    """NCCL refused CUDA-graph capture, and the report shows the loaded NCCL was built with a CUDA runtime older
    than 11.3 (its version string's "+cudaA.B", or the nvidia-nccl-cu11 wheel): that NCCL build is the cause."""
    lines = [line for line in snapshot.observed_errors if "captured in a graph" in line]
    if not lines or not any(m.signature.id == GRAPH_CAPTURE_SIGNATURE for m in matrices.errors.match(lines)):
        return
    built: tuple[str, str, str] | None = None  # (NCCL, its CUDA, where)
    for lib in snapshot.libraries:
        _, _, cuda = (lib.version or "").partition("+cuda")
        cv = version(cuda)
        if lib.name == "nccl" and _loaded_by(lib) and cv is not None and cv.release[:2] < GRAPH_CAPTURE_MIN_CUDA:
            built = ((lib.version or "").split("+")[0], cuda, lib.path)
            break
    if built is None and isinstance(snapshot.packages, tuple):
        wheel = next((d for d in snapshot.packages if normalize_name(d.name) == "nvidia-nccl-cu11"), None)
        if wheel is not None:
            built = (f"{wheel.name} {wheel.version}", NCCL_CU11_WHEEL_CUDA,
                     f"{interpreter_source(snapshot, 'distributions')}; {NCCL_CU11_WHEEL_SOURCES}")
    if built is None:
        return
    nccl, cuda, where = built
    yield Finding(
        "nccl-mismatch", Severity.ERROR,
        f"NCCL refused to be captured in a CUDA graph, and the NCCL in use ({nccl}) was built with CUDA {cuda}: "
        "NCCL needs a build with a CUDA runtime >= 11.3 for graph capture, which vLLM and torch use for their "
        "collectives.",
        (ev("NCCL in use", f"{nccl} (built with CUDA {cuda})", where),
         ev("reported message", lines[0][:160], f"{snapshot.origin}, errors.toml {GRAPH_CAPTURE_SIGNATURE}")),
        "use an NCCL built with CUDA >= 11.3 (pip install nvidia-nccl-cu12 with a cu12 torch, or build NCCL against "
        "the local CUDA) and make it the one loaded (VLLM_NCCL_SO_PATH or LD_PRELOAD=.../libnccl.so.2); or turn graph "
        "capture off (vLLM --enforce-eager)",
        "https://github.com/vllm-project/vllm/issues/3069", "nccl",
    )

