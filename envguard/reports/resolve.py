"""Resolve mentions into one ``Snapshot``: per fact the strongest tier wins, disagreements become notes.

Report mode says what it does not know: a fact no mention gives is ``Unavailable`` with code "not-reported".
Framework builds are derived by the same code the live probe uses (``probes.target.frameworks_from``), so the
same pip lines give the same verdicts whether they were pasted or installed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from envguard._version import __version__
from envguard.knowledge import Matrices
from envguard.probes.target import cuda_from_local, frameworks_from
from envguard.reports import (
    companions,
    extract,
    extract_builds,
    extract_driver,
    extract_jetson,
    extract_machine,
    extract_python,
    variants,
)
from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.snapshot import (
    BUILT_FOR_TORCH_KEY,
    CUDA_MAJOR_KEY,
    CUDNN_MAJOR_KEY,
    CUDNN_REQUIRED_KEY,
    CUPY_WHEEL_KEY,
    GPU_SAID_KEY,
    IMAGE_BUILD_KEY,
    L4T_IMAGE_KEY,
    L4T_NO_RUNTIME_KEY,
    NGC_RELEASE_KEY,
    NO_NVIDIA_KEY,
    NOT_REPORTED,
    ONLY_TORCH_INDEX_KEY,
    PYTHON_32BIT_KEY,
    REPORT_ORIGIN,
    SMI_FAILED_KEY,
    TORCH_CUDA_AVAILABLE_KEY,
    TORCH_INDEX_KEY,
    ComponentVersion,
    CudaToolkit,
    Distribution,
    DriverInfo,
    FrameworkBuild,
    GpuInfo,
    HostInfo,
    PythonInfo,
    SharedLibrary,
    Snapshot,
    Unavailable,
    normalize_name,
    stated,
    stated_parts,
)

#: Where the plain package-index torch wheel is the CPU build (pytorch/test-infra generate_binary_build_matrix.py:
#: ``pip3 install torch`` is the CUDA build only on Linux; on Windows and macOS it is the CPU build).
_PLAIN_TORCH_IS_CPU = ("win32", "darwin")
_TORCH_MATRIX_SOURCE = "https://github.com/pytorch/test-infra/blob/main/tools/scripts/generate_binary_build_matrix.py"
#: Shapes that name the exact torch distribution pip installed: an untagged one on Windows/macOS is the package
#: index's CPU wheel (torch >= 2.0: every download.pytorch.org CUDA wheel carries +cuXXX; 1.x Windows wheels of the
#: default CUDA did not, e.g. whl/cu100/torch-1.2.0-cp37-cp37m-win_amd64.whl).
INSTALLED_WHEEL_SHAPES = ("wheel file name", "pip: Successfully installed")
#: "right now (until pytorch 2.8), the pypi wheel ... only has CPU version pytorch on aarch64 platforms" (#160162);
#: 2.9 (the stable release in Nov 2025) still installed the CPU build on GB200 (#168065). Newer: not recorded.
#: Jetson is left out: NVIDIA's JetPack wheels (torch-1.8.0-cp36-cp36m-linux_aarch64.whl) are untagged CUDA builds.
_AARCH64_SOURCE = "https://github.com/pytorch/pytorch/issues/160162 ; https://github.com/pytorch/pytorch/issues/168065"
_JETSON_GPU = re.compile(r"jetson|orin|xavier|tegra|\btx[12]\b|\bnano\b", re.IGNORECASE)


def _plain_aarch64_is_cpu(version: str, matrices: Matrices | None) -> bool:
    row = matrices.torch.aarch64_index("default") if matrices is not None else None
    if row is not None:
        return row.is_cpu(version)
    found = re.match(r"(\d+)\.(\d+)", version)
    return found is not None and (int(found.group(1)), int(found.group(2))) <= (2, 9)


def _on_jetson(r: Resolved) -> bool:
    return r.get("jetpack") is not None or r.get("l4t") is not None or any(
        m.kind == "gpu" and _JETSON_GPU.search(m.value) for m in r.mentions)


def _comparable(value: str) -> str:
    """One release however it is written: a local tag ("2.1.0+cu121") or Paddle's variant suffix ("2.4.2.post112",
    which paddle.__version__ and summary_env's "Paddle version" leave out) does not make it another."""
    return re.sub(r"\.post\d{1,4}$", "", value.lower().split("+")[0].strip()).removesuffix(".0")


_VERSION = re.compile(r"\d{1,4}(?:\.\d{1,6}){0,3}")


def _refines(full: str, short: str) -> bool:
    """``full`` is ``short`` with more components ("3.13.7" of "3.13", "535.274.02" of "535")."""
    return full.startswith(f"{short}.") and _VERSION.fullmatch(short) is not None


def _bare_system(value: str) -> bool:
    """Only the system's name ("Linux", "Windows", "macOS"), no distribution or release."""
    return value.strip().lower() in ("linux", "windows", "macos", "darwin", "win32")


def _same_os(a: str, b: str) -> bool:
    """One system written twice: a bare name and a distribution of it ("Linux" and "Ubuntu 22.04"), or one
    spelling and a longer one ("Windows 10" and "Windows 10 22H2 19045.3448", "Ubuntu22.04" and "ubuntu 22.04")."""
    if (_bare_system(a) or _bare_system(b)) and _system(a, "", "") == _system(b, "", ""):
        return True
    x, y = ("".join(v.lower().split()) for v in (a, b))
    return x.startswith(y) or y.startswith(x)


def _norm_gpu(name: str) -> str:
    # NOTE: "GeForce RTX 3050 Laptop GPU" (nvidia-smi) and "GeForce RTX 3050" (the same report's prose) are one GPU
    return re.sub(r"[^a-z0-9]", "", re.sub(r"\blaptop(?: gpu)?\b", "", name.lower()).replace("nvidia", "")
                  .replace("geforce", ""))


def _same_gpu(a: str, b: str) -> bool:
    """One GPU: the same name, or a bare model number and its full name ("3060ti" and "GeForce RTX 3060 Ti",
    "1080 ti" and "GTX 1080 Ti"); a bare number never matches a longer one ("080ti" is no name)."""
    x, y = _norm_gpu(a), _norm_gpu(b)
    if x == y:
        return True
    short, full = sorted((x, y), key=len)
    return short[:1].isdigit() and full.endswith(short) and not full[-len(short) - 1].isdigit()


@dataclass
class Resolved:
    """The winning mention per fact, and the notes on what disagreed."""

    mentions: list[Mention]
    notes: list[str] = field(default_factory=list)
    _best: dict[str, Mention] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.mentions = [m for m in self.mentions if m.value.strip()]
        for kind in sorted({m.kind for m in self.mentions if m.kind not in ("package", "gpu", "cudnn")}):
            self._best[kind] = self._pick(kind, [m for m in self.mentions if m.kind == kind])

    def _pick(self, label: str, found: list[Mention]) -> Mention:
        found = sorted(found, key=lambda m: (-m.tier, m.line))
        best = found[0]
        if _VERSION.fullmatch(best.value):
            # NOTE: "driver 535" and "driver 535.274.02", "Python 3.13" and "Python 3.13.7" at the same tier are one
            # version: the fuller one says more, and neither contradicts the other.
            best = max((m for m in found if m.tier == best.tier and _refines(m.value, best.value)),
                       key=lambda m: (m.value.count("."), -m.line), default=best)
        if label == "os" and _bare_system(best.value):
            # NOTE: an issue form's "Platform: Linux" and its "OS Version: ubuntu 22.04" are one system: the
            # distribution says more
            best = next((m for m in found if m.tier == best.tier and not _bare_system(m.value)
                         and _system(m.value, "", "") == _system(best.value, "", "")), best)
        rival = next((m for m in found if m is not best and _comparable(m.value) != _comparable(best.value)
                      and not _refines(best.value, m.value) and not _refines(m.value, best.value)
                      and not (label == "os" and _same_os(m.value, best.value))), None)
        # NOTE: torch_cuda_none's values are the lines that say "no CUDA" (a build string, a CPU mutex package,
        # collect_env's "None"): two of them agree whatever they read
        unnoted = ("requested", "requested_variant", "torch_cuda_none", extract.ONLY_INDEX, extract.NO_TORCH,
                   extract_python.PYTHON_32BIT,
                   *variants.UNNOTED_KINDS, *extract_jetson.UNNOTED_KINDS)
        if rival is not None and rival.tier >= PROSE and best.kind not in unnoted:
            self.notes.append(f"contradictory {label}: {best.value!r} ({best.source}) vs {rival.value!r} "
                              f"({rival.source}); kept {best.value!r}"
                              + (" (the stronger source)" if best.tier > rival.tier
                                 else " (the first)" if best.line <= rival.line else " (its fullest spelling)"))
        return best

    def get(self, kind: str) -> Mention | None:
        return self._best.get(kind)

    def first(self, kind: str) -> Mention | None:
        """The earliest mention of ``kind`` in the report, whatever its tier."""
        return min((m for m in self.mentions if m.kind == kind), key=lambda m: m.line, default=None)

    def packages(self) -> dict[str, Mention]:
        out: dict[str, Mention] = {}
        for name in sorted({m.key for m in self.mentions if m.kind == "package" and m.key}):
            key = "torch" if name == "pytorch" else name
            if key in out:
                continue
            out[key] = self._pick(f"{key} version", [m for m in self.mentions if m.kind == "package"
                                                     and ("torch" if m.key == "pytorch" else m.key) == key])
        plain = out.get("onnxruntime")
        named_only = plain is not None and (plain.tier == PROSE
                                            or plain.how.startswith(("field", "issue form", "table")))
        if named_only and "onnxruntime-gpu" in out:
            # NOTE: an issue form's "ONNX Runtime version: 1.12.1" or a sentence's "onnxruntime 1.12.1" names the
            # product, not the CPU distribution, when the report names onnxruntime-gpu too (microsoft/onnxruntime's
            # template beside a title about onnxruntime-gpu): only a listing shows both distributions installed
            del out["onnxruntime"]
        return out

    def gpus(self) -> list[tuple[str, str, int | None, str | None]]:
        found = [m for m in self.mentions if m.kind == "gpu"]
        if not found:
            return []
        top = max(m.tier for m in found)
        # NOTE: GPUs named in prose are taken only when no tool, field or message names one.
        keep = [m for m in found if m.tier >= min(top, MESSAGE) and (top <= PROSE or m.tier > PROSE)]
        out: list[tuple[str, str, int | None, str | None]] = []
        for m in sorted(keep, key=lambda m: (-m.tier, m.line)):
            name = m.value.strip().strip("`").strip()
            memory, cc = stated_parts(m.key)
            twin = next((i for i, g in enumerate(out) if _same_gpu(g[0], name)), None)
            if twin is None and name:
                out.append((name, m.source, int(memory) if memory.isdigit() else None, cc or None))
            elif twin is not None:
                old = out[twin]
                mem = int(memory) if memory.isdigit() else None
                # NOTE: of a bare model number and its full name, the full name is the GPU's.
                fuller = m.tier == PROSE and len(_norm_gpu(name)) > len(_norm_gpu(old[0]))
                out[twin] = (name if fuller else old[0], m.source if fuller else old[1], old[2] or mem,
                             old[3] or cc or None)
        stated_cc = self.get("gpu_cc")
        if stated_cc is not None and len(out) == 1 and out[0][3] is None:
            out[0] = (*out[0][:3], stated_cc.value)
        return out

    def cudnn(self) -> list[Mention]:
        found = [m for m in self.mentions if m.kind == "cudnn"]
        if not found:
            return []
        top = max(m.tier for m in found)
        seen: set[str] = set()
        out = []
        for m in sorted(found, key=lambda m: m.line):
            if m.tier == top and m.value not in seen:
                seen.add(m.value)
                out.append(m)
        return out


#: Mentions of a Linux container image's tag (extract._images).
_LINUX_IMAGE_KINDS = ("tf_gpu_image", "image_cuda", "image_cudnn_major", "ngc")


def _system(os_text: str, platform_text: str, wheel_platform: str) -> str | None:
    text = f"{os_text} {platform_text} {wheel_platform}".lower()
    if re.search(r"\bwsl\s{0,2}2?\b", text):
        # NOTE: "Windows 11 - WSL2 - Ubuntu 22.04" (tensorflow/tensorflow's form): the frameworks run in WSL2's Linux
        return "linux"
    # NOTE: "nt" alone is Python's os.name on Windows (ComfyUI's system information prints "OS: nt")
    if re.search(r"\bwin(?:dows?)?\s{0,2}\d{0,2}\b|win10|win11|win_amd64|microsoft windows", text) \
            or os_text.strip().lower() == "nt":
        return "win32"
    if re.search(r"macos|mac os|darwin|os x|macosx|\bmac\s{0,2}1\d(?:\.\d{1,2})?\b", text):
        return "darwin"
    # NOTE: DGX OS is NVIDIA's Ubuntu-based OS for DGX systems (DGX Spark included)
    if re.search(r"linux|ubuntu|debian|centos|rhel|red hat|fedora|rocky|almalinux|arch|suse|amazon|manylinux|wsl"
                 r"|dgx os", text):
        return "linux"
    return None


def assemble(mentions: Iterable[Mention], observed_errors: Iterable[str], name: str,
             matrices: Matrices | None = None) -> tuple[Snapshot, list[str]]:
    """The Snapshot the mentions describe, and notes on contradictions and inferences. ``matrices`` (optional)
    tells what a plain package-index torch wheel was built with."""
    r = Resolved(list(mentions))
    get, first = r.get, r.first
    os_m, platform_m, wheel_m = get("os"), get("platform"), get("wheel_platform")
    jetson = get("jetpack") or get("l4t")
    # NOTE: a Jetson GPU, JetPack/L4T release or l4t image names the machine: a Jetson, Linux on aarch64.
    board = jetson is not None or get("l4t_image") is not None or _on_jetson(r)
    system = _system(os_m.value if os_m else "", platform_m.value if platform_m else "",
                     wheel_m.value if wheel_m else "") or ("linux" if board else None)
    # NOTE: the mention that told the system, for the Host row's source ("not reported" only when none did)
    system_m = next((m for m in (os_m, platform_m, wheel_m) if m is not None), None) if system else None
    path_m = get("path_os")
    if system is None and path_m is not None:
        system = companions.path_system(path_m.value, [m.value for m in r.mentions if m.kind in ("package", "torch")])
        system_m = path_m if system else None
    image_m = next((m for kind in _LINUX_IMAGE_KINDS if (m := get(kind)) is not None), None)
    if system is None and image_m is not None:
        # NOTE: the frameworks of a report that names only a Linux image (tensorflow/tensorflow:latest-gpu,
        # nvidia/cuda:12.2.0-..., pytorch/pytorch:..., an NGC tag) run in Linux, whatever the host is.
        system, system_m = "linux", image_m
    if system is None and (hosted_m := get("hosted")) is not None:
        # NOTE: Google Colab and Kaggle notebooks run Linux VMs; only when nothing else names the system (no OS,
        # platform, path or image), since a report may be about another machine that names its own
        system, system_m = "linux", hosted_m
    libc = get("libc")
    glibc = re.search(r"glibc-?(\d+\.\d+)", libc.value) if libc else None
    arch_text = " ".join(m.value for m in (os_m, platform_m, wheel_m) if m)
    arch = "x86_64" if re.search(r"x86_64|amd64", arch_text, re.I) else (
        "aarch64" if board or re.search(r"aarch64|arm64", arch_text, re.I) else "unknown")
    host = HostInfo(
        system={"win32": "Windows", "darwin": "Darwin", "linux": "Linux"}.get(system or "", "not reported"),
        arch=arch if arch != "unknown" else "not reported",
        distro=os_m.value if os_m else (
            (f"NVIDIA JetPack {jetson.value}" if jetson.kind == "jetpack" else f"NVIDIA L4T r{jetson.value}")
            if jetson else None),
        glibc=glibc.group(1) if glibc else None,
        container=container.value if (container := get("container")) else None,
        source=os_m.source if os_m else jetson.source if jetson else system_m.source if system_m else "not reported",
    )
    # NOTE: "no wheels for Python 3.11" names the Python the report is about only when nothing else names one.
    python_m = get("python") or get("python_no_wheel")
    python: PythonInfo | Unavailable
    py_version = re.match(r"(\d+\.\d+(?:\.\d+)?)", python_m.value) if python_m else None
    if python_m and py_version:
        free = bool(re.search(r"\d(?:t\b|\s{0,2}experimental free-threading)", python_m.value)) or (
            get("python_free_threaded") is not None)
        python = PythonInfo(executable="", version=py_version.group(1), implementation="CPython",
                            platform=system or "linux", machine=host.arch, prefix="", base_prefix="",
                            free_threaded=free, source=python_m.source)
    else:
        python = Unavailable("the report does not give the Python version", ("report",), NOT_REPORTED)
    driver = _driver(r)
    gpu_rows = r.gpus()
    gpus: tuple[GpuInfo, ...] | Unavailable
    if gpu_rows:
        gpus = tuple(GpuInfo(index=i, name=n, source=s, memory_total_mib=m, compute_capability=c)
                     for i, (n, s, m, c) in enumerate(gpu_rows))
    else:
        gpus = Unavailable("the report names no GPU", ("report",), NOT_REPORTED)
    toolkits: tuple[CudaToolkit, ...] | Unavailable = Unavailable(
        "the report names no CUDA toolkit", ("report",), NOT_REPORTED)
    runtime = get("cuda_runtime") or get("image_cuda") or get("system_cuda")
    prefixes = {m.value: m for m in r.mentions if m.kind == extract_builds.CUDA_PREFIX}
    if runtime is None and len(prefixes) == 1:
        # NOTE: one /usr/local/cuda-X.Y named is the toolkit installed; several are several installs, none known used.
        runtime = next(iter(prefixes.values()))
    named_frameworks = any(m.kind in _TORCH_KINDS | _TF_KINDS
                           or (m.kind == "package" and m.key in _FRAMEWORK_PACKAGES | {"tensorflow"})
                           for m in r.mentions)
    if runtime is None and not named_frameworks:
        # NOTE: "CUDA 11.4 installed" in a sentence is the system's CUDA only when no framework build is named
        # (next to one, a CUDA in prose is as likely the build's); then it is shown, never judged against a build.
        runtime = get("cuda_text")
    elif runtime is None and _tf_template_cuda(r):
        # NOTE: TensorFlow's issue template asks for the CUDA installed ("CUDA/cuDNN version:"), and a TensorFlow
        # before 2.14 loads the system's: the field (or a sentence's CUDA) is the toolkit when TensorFlow is the
        # only framework named.
        runtime = get("cuda_text")
    if runtime:
        version = re.match(r"(\d+)\.(\d+)", runtime.value)
        if version:
            toolkits = (CudaToolkit(f"{version.group(1)}.{version.group(2)}", None, runtime.source,
                                    build=runtime.value.split()[0]),)
    cudnn_m = r.cudnn()
    cudnn: tuple[ComponentVersion, ...] | Unavailable = (
        tuple(ComponentVersion(m.value, m.source) for m in cudnn_m) if cudnn_m
        else Unavailable("the report gives no cuDNN version", ("report",), NOT_REPORTED))
    libraries = tuple(SharedLibrary("cudnn", f"libcudnn.so.{m.value.split('.')[0]}", m.source, "report", m.value)
                      for m in cudnn_m)
    # NOTE: an NCCL named in a sentence only when nothing shows the NCCL a framework loaded (libraries.attach).
    nccl_m = get("nccl") or (get("nccl_prose") if get("nccl_loaded") is None else None)
    nccl: tuple[ComponentVersion, ...] | Unavailable = (
        (ComponentVersion(nccl_m.value, nccl_m.source),) if nccl_m
        else Unavailable("the report gives no NCCL version", ("report",), NOT_REPORTED))
    pkgs = r.packages()
    cuda_seen = bool(gpu_rows) or not isinstance(toolkits, Unavailable) or bool(cudnn_m)
    observed_errors = tuple(observed_errors)
    frameworks = _frameworks(r, pkgs, system, cuda_seen, matrices, host.arch,
                             paddle_gpu_ran=any(_PADDLE_GPU_RAN.search(e) for e in observed_errors))
    if board:
        frameworks = extract_jetson.apply(r.mentions, frameworks)
    environment: dict[str, str] = {}
    ld = get("ld_library_path")
    if ld:
        environment["LD_LIBRARY_PATH"] = ld.value
    image = get("image_cuda")
    if image:
        environment["CUDA_VERSION"] = image.value
    # NOTE: only the sentence's requirement: a framework's own message carries its own judgement (Paddle's "compiled
    # with CUDNN 7.6, but ... 7.4" is a warning: it goes on running)
    required = next((m for m in r.mentions if m.kind == "cudnn_compiled" and m.how == extract.CUDNN_REQUIRED_HOW), None)
    if required is not None and cudnn_m and not any(f.name == "tensorflow" and f.cudnn for f in frameworks):
        # NOTE: "cuDNN 8.1 is required but only 8.0.5 is loaded" with no framework build to carry the 8.1
        environment[CUDNN_REQUIRED_KEY] = stated(required.value, required.source)
    available = next((m for m in r.mentions if m.kind == extract_builds.GPU_PRESENT and m.tier == TOOL
                      and m.how == "collect_env: Is CUDA available"), None)
    major = get(extract.CUDNN_MAJOR)
    if major is not None and not cudnn_m:
        environment[CUDNN_MAJOR_KEY] = stated(major.value, major.source)
    cuda_major = get(extract.CUDA_MAJOR)
    if cuda_major is not None and isinstance(toolkits, Unavailable) and not any(b.cuda for b in frameworks):
        environment[CUDA_MAJOR_KEY] = stated(cuda_major.value, cuda_major.source)
    ngc = get("ngc")
    if ngc is not None:
        environment[NGC_RELEASE_KEY] = stated(ngc.value, ngc.source)
    built = get("built_for_torch")
    if built is not None:
        environment[BUILT_FOR_TORCH_KEY] = stated(built.key, built.value, built.source)
    said = min((m for m in r.mentions if m.kind == extract_builds.GPU_PRESENT), key=lambda m: (-m.tier, m.line),
               default=None)
    if said is not None:
        environment[GPU_SAID_KEY] = stated(said.value, said.source)
    if available is not None:
        environment[TORCH_CUDA_AVAILABLE_KEY] = stated("Yes", available.source)
    no_nvidia = first(extract_builds.NO_NVIDIA)
    if no_nvidia is not None:
        environment[NO_NVIDIA_KEY] = stated(no_nvidia.value, no_nvidia.source)
    built = first(extract_machine.IMAGE_BUILD)
    if built is not None:
        environment[IMAGE_BUILD_KEY] = stated(built.value, built.source)
    cupy = get("cupy_wheel")
    if cupy is not None:
        environment[CUPY_WHEEL_KEY] = stated(cupy.value, cupy.source)
    l4t_image = get("l4t_image")
    if l4t_image is not None:
        environment[L4T_IMAGE_KEY] = stated(l4t_image.value, l4t_image.source)
    index_m = get("requested_variant")
    if index_m is not None and index_m.value.startswith("cu"):
        environment[TORCH_INDEX_KEY] = stated(index_m.value, index_m.source)
    smi_failed = first(extract_driver.SMI_FAILED)
    if smi_failed is not None:
        environment[SMI_FAILED_KEY] = smi_failed.value
    no_runtime = get(extract_driver.L4T_RUN_NO_RUNTIME)
    if no_runtime is not None:
        environment[L4T_NO_RUNTIME_KEY] = stated(no_runtime.value, no_runtime.source)
    bits = get(extract_python.PYTHON_32BIT)
    if bits is not None and system in (None, "win32"):
        environment[PYTHON_32BIT_KEY] = stated(bits.value, bits.source)
    only = [m for m in r.mentions if m.kind == extract.ONLY_INDEX]
    failed = get(extract.NO_TORCH)
    if only and failed:
        environment[ONLY_TORCH_INDEX_KEY] = stated(" ".join(dict.fromkeys(m.value for m in only)), only[0].source,
                                                      f"{failed.value} ({failed.source})")
    snapshot = Snapshot(
        host=host, driver=driver, gpus=gpus, cuda_toolkits=toolkits, libraries=libraries, cudnn=cudnn, nccl=nccl,
        python=python, packages=tuple(Distribution(n, m.value, source=m.source) for n, m in sorted(pkgs.items())),
        frameworks=frameworks, environment=environment, observed_errors=tuple(observed_errors),
        origin=f"{REPORT_ORIGIN}{name}", envguard_version=__version__,
    )
    return snapshot, r.notes


def _driver(r: Resolved) -> DriverInfo | Unavailable:
    driver, driver_cuda = r.get("driver"), r.get("driver_cuda")
    module, package = r.get("kernel_module"), r.get("driver_package")
    if module and package and module.value != package.value:
        reason = (f"the loaded kernel module is {module.value} ({module.source}) but the installed driver package "
                  f"is {package.value} ({package.source})")
        return Unavailable(reason, ("report",), "driver-library-mismatch")
    version = driver.value.split()[0] if driver else (module.value if module else None)
    # NOTE: a bare branch ("my driver is 525") is kept as written; the rules compare it by branch only.
    if version is not None and not re.match(r"\d{2,4}\.\d|[3-9]\d{2}$", version):
        version = None
    if version is None and driver_cuda is None:
        return Unavailable("the report gives no driver version", ("report",), NOT_REPORTED)
    source = driver.source if driver else (module.source if module else driver_cuda.source if driver_cuda else "")
    cuda = driver_cuda.value if driver_cuda and re.match(r"\d{1,2}\.\d", driver_cuda.value) else None
    return DriverInfo(version, cuda, source, module.value if module else None)


#: Paddle's own error from a GPU code path ("(at ..\\paddle\\phi\\kernels\\gpu\\rnn_kernel.cu.cc:86)", "CUDNN error(4)",
#: "ExternalError: CUDA error(700)"): only a GPU build of Paddle runs those, whatever name the report gives it.
_PADDLE_GPU_RAN = re.compile(r"paddle[/\\]phi[/\\]kernels[/\\]gpu[/\\]|paddle[/\\]phi[/\\]backends[/\\]gpu[/\\]|"
                             r"\b(?:CUDNN|CUDA|CUBLAS) error\(\d{1,4}\)")


def _frameworks(r: Resolved, pkgs: dict[str, Mention], system: str | None, gpu_seen: bool,
                matrices: Matrices | None = None, arch: str = "not reported", *,
                paddle_gpu_ran: bool = False) -> tuple[FrameworkBuild, ...]:
    """The same derivation as a probed environment's (``frameworks_from``), then what only a report says."""
    torch_m = _torch_version(r, pkgs)
    dists = {n: Distribution(n, m.value) for n, m in pkgs.items()}
    if torch_m is not None:
        dists["torch"] = Distribution("torch", torch_m.value.split()[0])
    tf_requested = [m for m in r.mentions if m.kind == "requested" and m.key in ("tensorflow", "tensorflow-gpu")
                    and re.match(r"\d+\.\d+", m.value)]
    # NOTE: what an install command asked for is the build only when nothing else names one (as for torch).
    for m in (r.get("tf"), r.get("tf_message"), r.get("tf_prose"), tf_requested[-1] if tf_requested else None):
        if m is not None and not any(d.startswith(("tensorflow", "tf-nightly")) for d in dists):
            number = re.search(r"\d+\.\d+(?:\.\d+)?", m.value)
            if number:
                # NOTE: tensorflow-gpu==1.13.1 is the GPU package (before 2.1 "tensorflow" was the CPU one): the
                # name an install command or listing gave for this version decides.
                gpu_named = any(x.key == "tensorflow-gpu" and _comparable(x.value) == _comparable(number.group(0))
                                for x in r.mentions if x.kind in ("requested", "package"))
                dist = "tensorflow-gpu" if gpu_named or m.key == "tensorflow-gpu" else "tensorflow"
                dists[dist] = Distribution(dist, number.group(0))
                pkgs[dist] = replace(m, value=number.group(0))
    builds = list(frameworks_from({}, dists))
    out: list[FrameworkBuild] = []
    for derived in builds:
        build = derived
        if build.name == "torch" and torch_m is not None:
            build = _torch_facts(r, build, torch_m, system, pkgs, matrices, arch)
        elif build.name in ("torchvision", "torchaudio"):
            build = replace(build, source=pkgs[build.name].source)
            build = companions.conda_build(build, r.get(f"{build.name}_build"))
            build = companions.pypi_build(build, pkgs[build.name], torch_m.value if torch_m else None, system, arch,
                                          matrices)
        elif build.name == "tensorflow":
            dist = build.distribution
            cpu = normalize_name(dist) == "tensorflow-cpu"
            gpu_dist = normalize_name(dist) == "tensorflow-gpu" or r.get("tf_gpu_image") is not None
            accel = "cpu" if cpu else ("cuda" if gpu_dist or (system == "linux" and gpu_seen) else None)
            build = replace(build, accelerator=accel, source=pkgs[dist].source if dist in pkgs else build.source)
            compiled = r.get("cudnn_compiled")
            if compiled is not None and accel == "cuda":
                build = replace(build, cudnn=compiled.value)
        elif build.name == "jax":
            jaxlib = pkgs.get("jaxlib")
            in_listing = jaxlib is not None and jaxlib.tier == TOOL and jaxlib.how.startswith(("pip ", "package list"))
            unknown_plugin = build.accelerator == "cpu" and not in_listing and not any(
                n.startswith("jax-cuda") for n in pkgs) and "+" not in (jaxlib.value if jaxlib else "")
            # NOTE: a report that names jaxlib but no plugin may simply not list the plugin: unknown, not "cpu";
            # a pip listing (pip list / freeze / show) lists the jax-cuda plugins too, so there it is the CPU build.
            build = replace(build, accelerator=None if unknown_plugin else build.accelerator,
                            source=jaxlib.source if jaxlib else build.source)
        elif build.name == "paddle":
            listed = pkgs.get("paddlepaddle-gpu") or pkgs.get("paddlepaddle")
            if ".post" not in build.version:
                # "Paddle version: 2.4.2" and "pip install paddlepaddle-gpu==2.4.2.post112" are one release; the
                # suffix says which CUDA build (PaddlePaddle/Paddle#51859's summary_env and install command).
                suffixed = {m.value: m for m in r.mentions if m.kind in ("package", "requested")
                            and m.key in ("paddlepaddle", "paddlepaddle-gpu") and ".post" in m.value
                            and _comparable(m.value) == _comparable(build.version)}
                if len(suffixed) == 1:
                    value, named = suffixed.popitem()
                    build = replace(build, version=value, source=f"{build.source}; {value} in {named.source}")
            post = re.search(r"\.post(\d)(\d{1,2})$", build.version)
            image_cuda = r.get("paddle_cuda")
            if image_cuda is not None and build.cuda is None:
                # A Paddle image tag (2.4.2-gpu-cuda10.2-cudnn7.6-trt7.0) names the CUDA its Paddle was built with.
                build = replace(build, cuda=image_cuda.value, accelerator="cuda")
            legacy = re.search(r"^1\.\d{1,2}\.\d{1,2}\.post(\d{1,2})(\d)$", build.version)
            if legacy is not None and build.cuda is None:
                # Paddle 1.x names CUDA major + cuDNN major: 1.8.2.post97 is CUDA 9.0, post107 CUDA 10.0 (the 1.8
                # install guide, paddle.toml 1.8); not the 2.x rule below (post107 is not CUDA 10.7).
                build = replace(build, cuda=f"{legacy.group(1)}.0", accelerator="cuda")
                post = None
            if post is not None and build.cuda is None:
                # Paddle's own naming: 2.4.2.post117 is the CUDA 11.7 build, post102 CUDA 10.2, post90 CUDA 9.0
                # (https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html).
                digits = post.group(1) + post.group(2)
                build = replace(build, cuda=f"{digits[:-1]}.{digits[-1]}", accelerator="cuda")
            # NOTE: a "Paddle version" field names the release, not the package (paddlepaddle or -gpu).
            cpu_listed = ("paddlepaddle" in pkgs and gpu_seen and pkgs["paddlepaddle"].tier >= FIELD
                          and not pkgs["paddlepaddle"].how.startswith(("field:", "issue form:")))
            # NOTE: Paddle failing in a GPU kernel (paddle_gpu_ran) is a GPU build, whatever it is named
            accel = "cuda" if "paddlepaddle-gpu" in pkgs or build.cuda or paddle_gpu_ran else (
                "cpu" if cpu_listed else None)
            with_cuda = r.get("paddle_with_cuda")
            if with_cuda is not None:
                accel = "cuda" if with_cuda.value == "true" else "cpu"
            build = replace(build, accelerator=accel, source=listed.source if listed else build.source)
            text = r.get("cuda_text")
            if (accel is None and gpu_seen and text is not None and any(m.kind == "cudnn" for m in r.mentions)
                    and _of_major(build.version, 2)):
                # NOTE: "paddle=2.2.2 / cuda 10.2 / cudnn 7.6.5 / NVIDIA A30" (PaddlePaddle/Paddle, 2023): a Paddle
                # report naming the machine's CUDA and cuDNN beside its GPU is about a GPU Paddle; a 2.x GPU wheel
                # loads the system CUDA and cuDNN (Paddle's install guide picks the wheel by them)
                accel = "cuda"
                build = replace(build, accelerator=accel)
            if accel == "cuda" and build.cuda is None and text is not None and re.match(r"\d{1,2}\.\d", text.value):
                # NOTE: as for torch: the CUDA a report names beside a GPU Paddle of unknown CUDA is the one it runs
                # (Paddle 2.x GPU wheels load the system CUDA; the install table picks the wheel by that CUDA)
                build = replace(build, cuda=text.value, source=f"{build.source}; CUDA {text.value} ({text.source})")
        out.append(build)
    return variants.adjust(r.mentions, tuple(out), system, gpu_seen, matrices)


def _torch_version(r: Resolved, pkgs: dict[str, Mention]) -> Mention | None:
    """collect_env's "PyTorch version" (tool) > pip/conda listings > fields and messages > prose > what a failed
    install asked for."""
    candidates = [m for m in (r.get("torch"), pkgs.get("torch"), r.get("torch_message"), r.get("torch_prose")) if m]
    requested = [m for m in r.mentions if m.kind == "requested" and m.key == "torch"]
    if not candidates and requested:
        return requested[-1]
    if not candidates:
        return None
    best = sorted(candidates, key=lambda m: (-m.tier, m.line))[0]
    if "+" not in best.value:
        # "torch 2.7.0" and "torch 2.7.0+cpu" at the same tier are one release; the local tag says which build.
        tagged = [m for m in r.mentions if (m.kind, m.key, m.tier) == (best.kind, best.key, best.tier)
                  and "+" in m.value and _comparable(m.value) == _comparable(best.value)]
        best = tagged[0] if len({m.value for m in tagged}) == 1 else best
    if "+" not in best.value and best.tier < TOOL:
        # "I installed it with pip install torch==2.2.0 ... --index-url .../whl/cpu": the CPU index of the command
        # that installed this very release says its build (a listing or collect_env, which print the tag, outrank
        # it). NOTE: a cuXXX index is not taken so: on linux_aarch64 its older releases are CPU wheels without the
        # tag (torch.toml [[aarch64_index]]), and an install that failed named a build that never existed.
        variants = {v.value for m in requested if _comparable(m.value) == _comparable(best.value)
                    for v in r.mentions if v.kind == "requested_variant" and v.line == m.line}
        if variants == {"cpu"}:
            best = replace(best, value=f"{best.value}+cpu", how=f"{best.how}; installed from the PyTorch cpu index")
    rival = next((m for m in candidates if _comparable(m.value) != _comparable(best.value)), None)
    note = (f"contradictory torch version: {best.value!r} ({best.source}) vs {rival.value!r} ({rival.source}); "
            f"kept {best.value!r}") if rival else None
    if note and not any(n.startswith("contradictory torch") for n in r.notes):
        r.notes.append(note)
    return best


def _torch_facts(r: Resolved, build: FrameworkBuild, torch_m: Mention, system: str | None,
                 pkgs: dict[str, Mention], matrices: Matrices | None = None, arch: str = "") -> FrameworkBuild:
    version = torch_m.value.split()[0]
    cuda_m, none_m, rocm_m = r.get("torch_cuda"), r.get("torch_cuda_none"), r.get("torch_rocm")
    cuda = cuda_m.value if cuda_m and re.match(r"\d", cuda_m.value) else cuda_from_local(version)
    accel = build.accelerator
    source = torch_m.source
    if "+cpu" in version:
        accel, cuda = "cpu", None
    elif cuda:
        accel = "cuda"
    elif none_m is not None and torch_m.tier == TOOL and not (rocm_m and re.match(r"\d", rocm_m.value)):
        accel = "cpu"
        source = f"{torch_m.source}; {none_m.source} {none_m.value!r}: torch.version.cuda is None, a CPU build"
    elif (system in _PLAIN_TORCH_IS_CPU and "+" not in version and (
            (torch_m.tier >= FIELD and pkgs.get("torch") is not None and "conda" not in pkgs["torch"].how)
            or (torch_m.how in INSTALLED_WHEEL_SHAPES and re.match(r"[2-9]\.", version)))):
        accel = "cpu"
        source = (f"{torch_m.source}; the plain package-index torch wheel is the CPU build on "
                  f"{'Windows' if system == 'win32' else 'macOS'} ({_TORCH_MATRIX_SOURCE})")
    elif (system == "linux" and arch == "aarch64" and "+" not in version and _plain_aarch64_is_cpu(version, matrices)
          and not _on_jetson(r) and (torch_m.how in INSTALLED_WHEEL_SHAPES or (
              torch_m.tier >= FIELD and pkgs.get("torch") is not None and "conda" not in pkgs["torch"].how))):
        accel = "cpu"
        row = matrices.torch.aarch64_index("default") if matrices is not None else None
        source = (f"{torch_m.source}; the plain package-index torch wheel for Linux aarch64 is the CPU build "
                  + (f"for torch{row.cpu_only} ({row.prov.source})" if row else f"up to 2.9 ({_AARCH64_SOURCE})"))
    elif rocm_m is not None and re.match(r"\d", rocm_m.value):
        accel, cuda = "rocm", rocm_m.value
    else:
        text = r.get("cuda_text")
        listed = torch_m.tier >= FIELD and pkgs.get("torch") is not None and "conda" not in pkgs["torch"].how
        plain = r.get("torch_default_install")  # pip install torch==X without an index: the plain build of X
        installed_plain = plain is not None and _comparable(plain.value) == _comparable(version)
        default = _pypi_default(version, matrices) if (
            system == "linux" and arch != "aarch64" and "+" not in version and (listed or installed_plain)) else None
        if default is not None:
            cuda, tag = default
            source = (f"{torch_m.source}; the plain package-index torch {version} wheel for Linux x86_64 is its "
                      f"{tag} build (torch.toml pypi_default)")
            accel = "cuda"
        elif cuda is None and torch_m.tier <= MESSAGE and text is not None:
            cuda, accel = text.value, "cuda"
    return replace(build, version=version, accelerator=accel, cuda=cuda if accel in ("cuda", "rocm") else None,
                   source=source)


#: Mentions that name a torch or a TensorFlow build, and the packages of the other frameworks' builds.
_TORCH_KINDS = frozenset({"torch", "torch_prose", "torch_message"})
_TF_KINDS = frozenset({"tf", "tf_prose", "tf_message"})
_FRAMEWORK_PACKAGES = frozenset({"torch", "pytorch", "jaxlib", "paddlepaddle", "paddlepaddle-gpu"})


def _of_major(version: str, major: int) -> bool:
    """Whether ``version`` ("2.2.2", "2.6.1.post117") is of release ``major`` (2.x for Paddle's system-CUDA wheels)."""
    found = re.match(r"(\d{1,2})\.", version)
    return found is not None and int(found.group(1)) == major


def _tf_template_cuda(r: Resolved) -> bool:
    """Whether the report's CUDA is a template field, or a sentence's, and TensorFlow the only framework it names.

    A TensorFlow wheel has no CUDA variants (its release decides its CUDA), so "tensorflow-gpu 2.0.0 and cuda 10.1"
    can only mean the CUDA installed beside it.
    """
    text = r.get("cuda_text")
    if text is None or not (text.how.startswith("field") or text.how == "text"):
        return False
    if text.how == "text" and any(m.line == text.line and m.kind in ("driver", "driver_cuda") for m in r.mentions):
        return False  # "Driver Version: 450.66  CUDA Version: 11.0": the driver's CUDA, not a toolkit
    kinds = {m.kind for m in r.mentions}
    keys = {m.key for m in r.mentions if m.kind == "package"}
    return bool(kinds & _TF_KINDS) and not kinds & _TORCH_KINDS and not keys & _FRAMEWORK_PACKAGES


def _pypi_default(version: str, matrices: Matrices | None) -> tuple[str, str] | None:
    """(CUDA, variant tag) of the plain package-index wheel of this torch release on Linux x86_64, when known."""
    if matrices is None:
        return None
    release = matrices.torch.release(version)
    variant = release.pypi_variant if release is not None else None
    if variant is None or not variant.cuda:
        return None
    return variant.cuda, variant.tag
