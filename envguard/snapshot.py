"""The Snapshot: every fact envguard gathered about one environment, as versioned pure data."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, Union

from envguard.errors import SnapshotError

#: Bump when a reader of the previous version could misread the new layout.
SNAPSHOT_SCHEMA: Final = 1
#: ``Unavailable.code`` of a fact a pasted report does not mention: unknown, which is not "absent".
NOT_REPORTED: Final = "not-reported"
#: How the origin of a snapshot read from a pasted report begins ("report bug.txt").
REPORT_ORIGIN: Final = "report "


@dataclass(frozen=True, slots=True)
class Unavailable:
    """A fact envguard looked for and could not establish. Not an error."""

    reason: str
    #: Sources attempted, in order ("NVML", "/proc/driver/nvidia/version", "nvidia-smi").
    tried: tuple[str, ...] = ()
    #: A machine-readable cause where one is known ("driver-library-mismatch", "timeout", ...).
    code: str | None = None


@dataclass(frozen=True, slots=True)
class HostInfo:
    """Operating system and hardware of the machine (not the GPU)."""

    system: str
    arch: str
    kernel: str | None = None
    distro: str | None = None
    glibc: str | None = None
    #: "docker", "podman", "kubernetes", "containerd", "lxc" ... or None on bare metal / VMs.
    container: str | None = None
    wsl: bool = False
    cpu_count: int | None = None
    memory_bytes: int | None = None
    source: str = "platform"


@dataclass(frozen=True, slots=True)
class DriverInfo:
    """The NVIDIA driver as one source reports it."""

    #: Driver version, e.g. "550.90.07"; on R610+ the "KMD version". None when only the CUDA it
    #: supports is known (a pasted "found version 11040").
    version: str | None
    #: Highest CUDA version the driver supports ("12.4"); NOT an installed toolkit.
    cuda_driver_version: str | None
    source: str
    #: Kernel-module version from /proc/driver/nvidia/version when it was read.
    kernel_module_version: str | None = None
    #: Version of the user-space NVML library (may differ from the module: a mismatch).
    nvml_library_version: str | None = None
    #: "open" or "proprietary" kernel module where /proc says so.
    kernel_module_flavor: str | None = None


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """One physical GPU (MIG slices are described by ``mig_mode``, not listed separately)."""

    index: int
    name: str
    source: str
    uuid: str | None = None
    #: "major.minor", e.g. "9.0"; None when the source cannot tell.
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    #: "Enabled" / "Disabled" / None (not supported or unknown).
    mig_mode: str | None = None
    persistence_mode: str | None = None
    pcie_link_gen: int | None = None
    pcie_link_gen_max: int | None = None
    pcie_link_width: int | None = None
    pcie_link_width_max: int | None = None
    pci_bus_id: str | None = None


@dataclass(frozen=True, slots=True)
class CudaToolkit:
    """An installed CUDA toolkit (compiler and libraries), wherever it was found."""

    version: str
    #: Installation root (the folder holding bin/ and lib64/), when known.
    path: str | None
    #: "nvcc on PATH", "CUDA_HOME", "version.json", "/usr/local/cuda-12.4" ...
    source: str
    nvcc_path: str | None = None
    #: The full release string (e.g. "13.0.88"), when nvcc or version.json gives it.
    build: str | None = None


#: ``SharedLibrary.source`` of a library a framework reported loading ("loaded", or "loaded:torch" for one framework).
LOADED_SOURCE = "loaded"
#: ``SharedLibrary.source`` prefix of a library a system package (dpkg, rpm) installed.
PACKAGE_SOURCE = "package:"


def package_source(package: str, cuda: str) -> str:
    """``SharedLibrary.source`` of a system package built for one CUDA: "package:libnccl2+cuda11.0"."""
    return f"{PACKAGE_SOURCE}{package}+cuda{cuda}"


@dataclass(frozen=True, slots=True)
class SharedLibrary:
    """A CUDA-family shared library the dynamic loader (or a framework) would find."""

    #: Library family: "cudart", "cudnn", "nccl", "cublas", "nvrtc", "cuda" (the driver's libcuda).
    name: str
    #: The file name the loader asks for, e.g. "libcudnn.so.9".
    soname: str
    path: str
    #: "ldconfig", "LD_LIBRARY_PATH", "wheel:nvidia-cudnn-cu12", "toolkit" ...
    source: str
    #: Full version when the file name or a header next to it tells (e.g. "9.1.0").
    version: str | None = None

    @property
    def package_cuda(self) -> str | None:
        """The CUDA a system package was built for ("package:libnccl2+cuda11.0" → "11.0"), else None."""
        if not self.source.startswith(PACKAGE_SOURCE):
            return None
        _, _, cuda = self.source.partition("+cuda")
        return cuda or None

    @property
    def soname_major(self) -> int | None:
        """The ABI major in the soname: 9 for ``libcudnn.so.9``; None when the name has none."""
        _, sep, rest = self.soname.partition(".so.")
        head = rest.split(".", 1)[0]
        return int(head) if sep and head.isdigit() else None


@dataclass(frozen=True, slots=True)
class ComponentVersion:
    """A versioned library such as cuDNN or NCCL, from one source."""

    version: str
    #: "header /usr/include/cudnn_version.h", "wheel nvidia-cudnn-cu12", "soname libcudnn.so.8.9.2" ...
    source: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Distribution:
    """An installed Python distribution in the target environment."""

    name: str
    version: str
    #: Requires-Dist lines as written in the metadata (markers kept).
    requires: tuple[str, ...] = ()
    #: Where a pasted report states it ("report line 12: pip freeze"); empty for a probed interpreter's distribution.
    source: str = ""


@dataclass(frozen=True, slots=True)
class PythonInfo:
    """The target interpreter."""

    executable: str
    version: str
    implementation: str
    #: sys.platform of the target ("linux", "win32", "darwin").
    platform: str
    machine: str
    prefix: str
    base_prefix: str
    virtualenv: bool = False
    conda_prefix: str | None = None
    #: True for free-threaded ("t") builds.
    free_threaded: bool = False
    source: str = "target interpreter"


@dataclass(frozen=True, slots=True)
class RuntimeReport:
    """What a framework said about itself when imported (``--deep``)."""

    #: Whether the framework sees a usable GPU (torch.cuda.is_available(), TF GPU devices ...).
    gpu_available: bool | None = None
    device_count: int | None = None
    devices: tuple[str, ...] = ()
    arch_list: tuple[str, ...] = ()
    cudnn: str | None = None
    nccl: str | None = None
    cuda: str | None = None
    #: Warnings the framework printed while initialising (first lines only).
    warnings: tuple[str, ...] = ()
    error: str | None = None
    duration_s: float | None = None


#: A framework build's version when it is not known: a report names the framework without its release ("CPU-only
#: jax"), or, rarely, a probed package has neither ``__version__`` nor distribution metadata.
UNKNOWN_VERSION = "?"


@dataclass(frozen=True, slots=True)
class FrameworkBuild:
    """One installed framework build (torch, tensorflow, jax, paddle) and what it was built for."""

    #: Canonical framework name: "torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib", "paddle".
    name: str
    #: Distribution that provides it ("torch", "tensorflow-cpu", "jax-cuda12-plugin", "paddlepaddle-gpu" ...).
    distribution: str
    #: Version as the framework itself reports it, local variant included ("2.5.1+cu124").
    version: str
    #: "cuda", "rocm", "cpu" or None when unknown.
    accelerator: str | None
    #: CUDA (or ROCm) version the build targets ("12.4"), None for CPU builds or when unknown.
    cuda: str | None
    #: cuDNN the build expects ("9.1.0"), when known.
    cudnn: str | None
    #: NCCL the build expects, when known.
    nccl: str | None = None
    #: Compiled architectures ("sm_80", "compute_90"), empty when unknown.
    arch_list: tuple[str, ...] = ()
    #: Where the build facts came from ("torch/version.py", "build_info.py", "matrix", "runtime").
    source: str = "metadata"
    #: Set by ``--deep``: the framework's own report when imported (or why that failed).
    runtime: RuntimeReport | Unavailable | None = None
    #: Report mode: what shows this build was meant for an NVIDIA GPU when the report lists none (a CUDA build
    #: asked for, "cudatoolkit=11.3 (report line 3)"; a GPU working elsewhere on the machine); None otherwise.
    gpu_intent: str | None = None
    #: The conda channel the build came from ("conda-forge"), when known; None for pip builds or when unknown.
    channel: str | None = None
    #: The conda build string ("cuda126_generic_py312_h1234567_201"), when a conda listing gives it.
    conda_build: str | None = None
    #: Report mode, on a Jetson: the package index a pip build came from as the report shows it ("default",
    #: "download.pytorch.org", or "nvidia-jetson" when anything shows it may be NVIDIA's Jetson build); else None.
    index: str | None = None

    @property
    def version_known(self) -> bool:
        """Whether the build's version is known (not UNKNOWN_VERSION, not empty)."""
        return self.version not in ("", UNKNOWN_VERSION)

    def version_label(self, from_report: bool) -> str:
        """The version as a person reads it: "version not reported" for a report that does not give it (a report
        mode fact it leaves out is "not reported"), "version unknown" for a probed package that does not say."""
        if self.version_known:
            return self.version
        return "version not reported" if from_report else "version unknown"


#: ``Snapshot.environment`` keys only the report reader writes (what a pasted report states that a probe never sees),
#: each "value|source[|more]": the PyTorch cuXXX indexes pip commands used as their only index when pip then found no
#: torch ("cu124 cu121|report line 11: ...|<pip's line>"), a 32-bit interpreter in a report about PyTorch, and the
#: cuDNN a sentence says is required when no framework build carries it, and the L4T release of a Jetson container
#: image the report runs (an L4T image runs on a Jetson only: "36.4|report line 5: image whisper:r36.4...").
ONLY_TORCH_INDEX_KEY = "PIP_ONLY_TORCH_INDEX"
PYTHON_32BIT_KEY = "PYTHON_32BIT"
CUDNN_REQUIRED_KEY = "CUDNN_REQUIRED"
L4T_IMAGE_KEY = "L4T_IMAGE"
#: An L4T image the report starts with ``docker run`` but without the NVIDIA runtime ("32.4.2|report line 1: ...").
L4T_NO_RUNTIME_KEY = "L4T_RUN_WITHOUT_NVIDIA_RUNTIME"
#: The first report line where nvidia-smi could not reach the driver ("12").
SMI_FAILED_KEY = "NVIDIA_SMI_FAILED_LINE"
#: The PyTorch CUDA index a pip command names ("cu131|report line 4: pip install --index-url").
TORCH_INDEX_KEY = "PIP_TORCH_INDEX"
#: collect_env's "Is CUDA available: Yes" (torch.cuda.is_available() in the reported environment: its driver runs
#: its torch's CUDA), as "Yes|report line 30: collect_env: Is CUDA available".
TORCH_CUDA_AVAILABLE_KEY = "TORCH_CUDA_AVAILABLE"
#: What in a report shows a usable NVIDIA GPU on its machine without naming one ("I do have a GPU set up", "Is CUDA
#: available: Yes"), as "I do have a GPU set up|report line 5: text (the user says the machine has a GPU)".
GPU_SAID_KEY = "REPORT_GPU_SAID"
#: An NGC framework container the report names, as "tritonserver:21.10|report line 9: image nvcr.io/nvidia/...".
NGC_RELEASE_KEY = "NGC_CONTAINER"
#: A compiled torch extension the report installs from wheels built for one torch release (mmcv-full's
#: ".../mmcv/dist/cu101/torch1.6/index.html", PyG's "+pt21cu121"): "package|torch series|where" ("mmcv-full|1.6|report
#: line 11: ...").
BUILT_FOR_TORCH_KEY = "COMPANION_BUILT_FOR_TORCH"
#: A cuDNN named by its major only, when the report gives no cuDNN version ("cuda12.4 cudnn9", "CUDA 12 / cuDNN 9"),
#: as "9|report line 7: text (cuDNN major)": enough for what is built per cuDNN major (ONNX Runtime's GPU builds).
CUDNN_MAJOR_KEY = "CUDNN_MAJOR_STATED"
#: A CUDA named by its major alone, when the report gives no CUDA version ("I want to use CUDA 10"), as
#: "10|report line 5: text (CUDA major)": enough for the driver every minor of that major needs.
CUDA_MAJOR_KEY = "CUDA_MAJOR_STATED"
#: What in a report says its machine has no NVIDIA GPU, or runs on the CPU by choice ("MacBook Air", "ROCm", "I use the
#: cpu"), as "MacBook Air|report line 3: text (no NVIDIA GPU, or the CPU by choice)".
NO_NVIDIA_KEY = "REPORT_NO_NVIDIA_GPU"
#: The report's failure happened while an image was built ("docker build", a Dockerfile's RUN step), where no GPU is
#: attached, as "Docker build|report line 1: text (an image build)".
IMAGE_BUILD_KEY = "IMAGE_BUILD_STEP"
#: A CuPy wheel the report says is installed, by its CUDA tag ("92", "100", "12x"), as "92|report line 3: text".
CUPY_WHEEL_KEY = "CUPY_WHEEL"
#: Separates the parts of a stated fact's value: what was said, then where ("9|report line 7: text (cuDNN major)").
STATED_SEP = "|"


def stated(*parts: str) -> str:
    """One value of the stated-fact keys above: its parts (what was said first, where it was said next) joined."""
    return STATED_SEP.join(parts)


def stated_parts(raw: str, count: int = 2) -> tuple[str, ...]:
    """The ``count`` parts of a stated-fact value, in the order :func:`stated` joined them ("" for a missing one)."""
    parts = raw.split(STATED_SEP, count - 1)
    return (*parts, *([""] * (count - len(parts))))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every fact about one environment; rules judge it, formatters render it."""

    host: HostInfo
    driver: DriverInfo | Unavailable
    gpus: tuple[GpuInfo, ...] | Unavailable
    cuda_toolkits: tuple[CudaToolkit, ...] | Unavailable
    #: CUDA-family shared libraries found on the loader path and in wheels.
    libraries: tuple[SharedLibrary, ...]
    cudnn: tuple[ComponentVersion, ...] | Unavailable
    nccl: tuple[ComponentVersion, ...] | Unavailable
    python: PythonInfo | Unavailable
    packages: tuple[Distribution, ...] | Unavailable
    frameworks: tuple[FrameworkBuild, ...]
    #: Environment variables that change how libraries load or behave (allow-listed).
    environment: Mapping[str, str] = field(default_factory=dict)
    #: Error and warning lines seen in a pasted report (``check --from``), matched against errors.toml.
    observed_errors: tuple[str, ...] = ()
    #: Where the snapshot came from: "probe", "probe --deep", "file:snap.json" ...
    origin: str = "probe"
    envguard_version: str = ""
    schema_version: int = SNAPSHOT_SCHEMA

    # ---- convenience views used by rules and formatters ---------------------------------
    @property
    def from_report(self) -> bool:
        """Read from someone's pasted report (``check --from``): a fact it does not give is "not reported", and
        its evidence names report lines, not a probed machine or interpreter."""
        return self.origin.startswith(REPORT_ORIGIN)

    def gpu_list(self) -> tuple[GpuInfo, ...]:
        """GPUs, or an empty tuple when none could be listed."""
        return () if isinstance(self.gpus, Unavailable) else self.gpus

    def package_map(self) -> dict[str, Distribution]:
        """Installed distributions keyed by normalized name."""
        if isinstance(self.packages, Unavailable):
            return {}
        return {normalize_name(d.name): d for d in self.packages}

    def framework(self, name: str) -> FrameworkBuild | None:
        """The first framework build with this canonical name."""
        return next((f for f in self.frameworks if f.name == name), None)

    def toolkit_list(self) -> tuple[CudaToolkit, ...]:
        """CUDA toolkits found, or an empty tuple."""
        return () if isinstance(self.cuda_toolkits, Unavailable) else self.cuda_toolkits

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; ``from_dict`` reads it back exactly."""
        return _encode(self)  # type: ignore[no-any-return] # reason: a dataclass encodes to a dict

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Snapshot:
        """Read a snapshot dict, dispatching on ``schema_version``.

        :raises SnapshotError: unknown schema version or malformed content.
        """
        if not isinstance(data, Mapping):
            raise SnapshotError("a snapshot must be a JSON object")
        version = data.get("schema_version")
        if version is None:
            raise SnapshotError("not an envguard snapshot: no schema_version")
        if version != SNAPSHOT_SCHEMA:
            raise SnapshotError(
                f"snapshot schema_version {version!r} is not supported by this envguard "
                f"(reads version {SNAPSHOT_SCHEMA}); use a matching envguard release"
            )
        try:
            return _decode(cls, data, "snapshot")  # type: ignore[no-any-return] # reason: decodes to cls
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            raise SnapshotError(f"malformed snapshot: {exc}") from exc


def normalize_name(name: str) -> str:
    """PEP 503 normalization of a distribution name."""
    out = []
    prev_sep = False
    for ch in name.lower():
        if ch in "-_.":
            if not prev_sep:
                out.append("-")
            prev_sep = True
        else:
            out.append(ch)
            prev_sep = False
    return "".join(out)


# ---- generic, type-driven (de)serialisation -------------------------------------------------

T = TypeVar("T")


def _encode(value: Any) -> Any:
    if isinstance(value, Unavailable):
        return {"unavailable": True, "reason": value.reason, "tried": list(value.tried), "code": value.code}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(tp: Any, data: Any, where: str) -> Any:  # reason: one branch per type form
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        if isinstance(data, Mapping) and data.get("unavailable") is True and Unavailable in options:
            return _decode(Unavailable, data, where)
        errors = []
        for option in options:
            if option is type(None) or option is Unavailable:
                continue
            try:
                return _decode(option, data, where)
            except (TypeError, ValueError, KeyError) as exc:
                errors.append(str(exc))
        raise ValueError(errors[0] if errors else f"{where}: unexpected value {data!r}")
    if origin is tuple:
        if not isinstance(data, list):
            raise TypeError(f"{where}: expected a list, got {type(data).__name__}")
        (item_tp, *_rest) = typing.get_args(tp)
        return tuple(_decode(item_tp, v, f"{where}[{i}]") for i, v in enumerate(data))
    if origin in (Mapping, dict) or tp is Mapping:
        if not isinstance(data, Mapping):
            raise TypeError(f"{where}: expected an object")
        return {str(k): str(v) for k, v in data.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, Mapping):
            raise TypeError(f"{where}: expected an object for {tp.__name__}, got {type(data).__name__}")
        hints = _hints(tp)
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise KeyError(f"{where}: missing field {f.name!r}")
        if tp is Unavailable:
            kwargs.pop("unavailable", None)
        return tp(**kwargs)
    if tp is Any:
        return data
    if tp is bool:
        if not isinstance(data, bool):
            raise TypeError(f"{where}: expected true/false, got {data!r}")
        return data
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise TypeError(f"{where}: expected an integer, got {data!r}")
        return data
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise TypeError(f"{where}: expected a number, got {data!r}")
        return float(data)
    if tp is str:
        if not isinstance(data, str):
            raise TypeError(f"{where}: expected a string, got {data!r}")
        return data
    raise TypeError(f"{where}: cannot decode {tp!r}")  # pragma: no cover - a programming error
