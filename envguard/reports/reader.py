"""Pasted reports → Snapshot: collect_env, TF issue templates, nvidia-smi, pip lines, banners, prose.

Pure: text in, facts out. Reports are partial, hand-edited and mixed; every fact keeps the report
line it came from as its source, missing facts stay ``Unavailable``, and two sources that disagree
produce a note (the first, more structured source wins) instead of a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from envguard._version import __version__
from envguard.errors import SnapshotError
from envguard.probes import parsers
from envguard.probes.target import cuda_from_local
from envguard.snapshot import (
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
)

#: ``Unavailable.code`` for a fact the report does not mention (unknown, which is not "absent").
NOT_REPORTED = "not-reported"
#: Largest report envguard reads (a real one is a few kB; logs can be longer).
MAX_REPORT_CHARS = 4 << 20

_VERSION = r"\d+(?:\.\d+){1,3}(?:[+.][A-Za-z0-9_.]+)?"
_COLLECT_ENV_KEYS = {
    "pytorch version": "torch",
    "cuda used to build pytorch": "torch_cuda",
    "rocm used to build pytorch": "torch_rocm",
    "os": "os",
    "libc version": "libc",
    "python version": "python",
    "python platform": "platform",
    "is cuda available": "cuda_available",
    "cuda runtime version": "cuda_runtime",
    "gpu models and configuration": "gpus",
    "nvidia driver version": "driver",
    "cudnn version": "cudnn",
    # TensorFlow issue templates (new "### Header" and old "- Key: value" styles)
    "tensorflow version": "tf",
    "tensorflow version (use command below)": "tf",
    "tf version": "tf",
    "python version ": "python",
    "cuda/cudnn version": "cuda_cudnn",
    "gpu model and memory": "gpu_text",
    "os platform and distribution": "os",
    "os platform and distribution (e.g., linux ubuntu 16.04)": "os",
    "video card": "gpu_text",
    "graphics card": "gpu_text",
    "gpu": "gpu_text",
    "gpu model": "gpu_text",
    "cuda version": "cuda_text",
    "cudnn": "cudnn",
    "driver version": "driver",
    "ld_library_path": "ld_library_path",
}
_KEY_LINE = re.compile(r"^\s*(?:[-*]\s+)?([A-Za-z][A-Za-z0-9 /_().,'-]{0,60}?)\s*:\s*(.*)$")
_MD_HEADER = re.compile(r"^\s*#{2,4}\s+(.+?)\s*$")
_PIP_EQ = re.compile(r"^(?:\[(?:pip3?|conda)\]\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)\s*$")
_CONDA_ROW = re.compile(r"^\[conda\]\s+([A-Za-z0-9][A-Za-z0-9._-]*)\s+(\d\S*)\s+(\S+)")
_PIP_LIST = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s{2,}(\d[\w.+!-]*)\s*(?:\S.*)?$")
_INTERESTING = re.compile(
    r"^(torch|torchvision|torchaudio|pytorch|tensorflow(?:-cpu|-gpu|-intel|-macos)?|tf-nightly|jax|jaxlib|"
    r"jax-cuda1[23]-(?:plugin|pjrt)|paddlepaddle(?:-gpu)?|nvidia-[a-z0-9-]+|cuda-toolkit|cudatoolkit|"
    r"cuda-version|cudnn|nccl)$"
)
_BANNER_TORCH = re.compile(r"\btorch[- ](" + _VERSION + r")", re.IGNORECASE)
_BANNER_PYTHON = re.compile(r"\bPython[- ](\d+\.\d+(?:\.\d+)?)\b")
_BANNER_DEVICE = re.compile(r"\bCUDA:(\d+)\s*\(([^,()]+?),\s*(\d+)\s*MiB\)")
_PROSE_TORCH = re.compile(r"\b(?:py)?torch\s+(?:version\s+)?v?(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\b", re.IGNORECASE)
_PROSE_TF = re.compile(r"\b(?:tensorflow|tf)(?:==|\s+)v?(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE)
_PROSE_CUDA = re.compile(r"\busing\s+CUDA\s+(\d+\.\d+)\b", re.IGNORECASE)
_FOUND_VERSION = re.compile(r"found version (\d{4,5})\b")
_PROC_LINE = re.compile(r"NVRM version:.*?(?:Kernel Module|Module for \S+)\s+(\d+\.\d+(?:\.\d+)?)")
_DRIVER_PACKAGE = re.compile(r"\bnvidia-driver-\d+(?::\w+)?\s+(\d{3}\.\d+(?:\.\d+)?)")
_GPU_ENUM = re.compile(r"^\s*GPU\s+(\d+)\s*:\s*(.+?)\s*(?:\(UUID:.*\))?$")
_ERROR_HINT = re.compile(
    r"error|warning|failed|failure|could not|cannot|can't|not compatible|too old|mismatch|undefined symbol|"
    r"no kernel image|not found|no module named|not compiled|insufficient|incompatib|invalid",
    re.IGNORECASE,
)
_GPU_WORDS = re.compile(r"\b(rtx|gtx|tesla|quadro|titan|a100|h100|h200|v100|t4|l4|l40s?|a10g?|k80|k40m?|p100|"
                        r"geforce|\d{4}\s*ti)\b|\b\d{4}ti\b", re.IGNORECASE)


@dataclass
class _Facts:
    """Accumulates facts; the first value for a key wins and later disagreements become notes."""

    values: dict[str, tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    gpus: list[tuple[str, str, int | None, str | None]] = field(default_factory=list)
    packages: dict[str, tuple[str, str]] = field(default_factory=dict)
    cudnn: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def put(self, key: str, value: str | None, source: str) -> None:
        value = (value or "").strip().strip("`'\"").strip()
        if not value or value.lower() in ("n/a", "none", "could not collect", "unknown", "-"):
            return
        if key in self.values:
            old, old_source = self.values[key]
            if _comparable(old) != _comparable(value):
                self.notes.append(f"contradictory {key}: {old!r} ({old_source}) vs {value!r} ({source}); "
                                  f"kept the first")
            return
        self.values[key] = (value, source)

    def get(self, key: str) -> tuple[str, str] | None:
        return self.values.get(key)

    def gpu(self, name: str, source: str, memory: int | None = None, cc: str | None = None) -> None:
        name = name.strip().strip("`").strip()
        if name and all(_norm(name) != _norm(g[0]) for g in self.gpus):
            self.gpus.append((name, source, memory, cc))

    def package(self, name: str, version: str, source: str) -> None:
        version = version.strip().strip("`'\"")
        if not re.match(r"\d", version):
            return
        key = normalize_name(name)
        if key == "pytorch":
            key = "torch"
        self.packages.setdefault(key, (version, source))


def _comparable(value: str) -> str:
    return value.lower().split("+")[0].strip().rstrip(".0")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower().replace("nvidia", ""))


def normalize_report(text: str) -> list[str]:
    """Lines with quote markers, full-width punctuation, non-breaking spaces and fences removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\uff1a", ":").replace("\u00a0", " ").replace("\u3000", " ").replace("\ufeff", "")
    out = []
    for raw in text.split("\n"):
        line = raw.rstrip()
        while line.startswith(">"):
            line = line[1:].lstrip() if line[1:2] in (" ", "") else line[1:]
        if line.strip().startswith("```"):
            continue
        out.append(line)
    return out


def parse_report(text: str, name: str = "<report>") -> tuple[Snapshot, tuple[str, ...]]:
    """Turn a pasted report (or envguard's own JSON) into a Snapshot plus notes on what was unclear.

    :raises SnapshotError: when nothing in the text is an environment fact.
    """
    if len(text) > MAX_REPORT_CHARS:
        text = text[:MAX_REPORT_CHARS]
    stripped = text.lstrip()
    if stripped.startswith("{"):
        snapshot = _from_json(stripped, name)
        if snapshot is not None:
            return snapshot, ()
    lines = normalize_report(text)
    facts = _Facts()
    _key_values(lines, facts)
    _markdown_sections(lines, facts)
    _packages(lines, facts)
    _banners_and_prose(lines, facts)
    smi = parsers.parse_nvidia_smi_table("\n".join(lines))
    if smi is not None:
        facts.put("driver", smi.driver_version, "nvidia-smi table")
        facts.put("driver_cuda", smi.cuda_version, "nvidia-smi table")
        for gpu in smi.gpus:
            facts.gpu(gpu.name, "nvidia-smi table", gpu.memory_total_mib)
    _tool_outputs("\n".join(lines), facts)
    facts.errors = [ln.strip()[:500] for ln in lines if _ERROR_HINT.search(ln)][:200]
    snapshot = _assemble(facts, name)
    if not _has_facts(snapshot):
        raise SnapshotError(f"{name}: no environment facts found (expected collect_env output, a TensorFlow "
                            "issue template, nvidia-smi output, pip lines or an envguard snapshot)")
    return snapshot, tuple(facts.notes)


def _from_json(text: str, name: str) -> Snapshot | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and "snapshot" in data and "envguard_result_version" in data:
        data = data["snapshot"]
    if not isinstance(data, dict) or "schema_version" not in data:
        return None
    try:
        return Snapshot.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from exc


def _tool_outputs(text: str, facts: _Facts) -> None:
    """Other tool outputs people paste: nvcc --version, nvidia-smi -L / --query-gpu CSV / --version,
    cudnn_version.h, /proc/driver/nvidia/version, jax.print_environment_info()."""
    nvcc = parsers.parse_nvcc_version(text)
    if nvcc is not None:
        facts.put("cuda_runtime", nvcc[1] or nvcc[0], "nvcc --version")
    for gpu in parsers.parse_nvidia_smi_list(text):
        facts.gpu(gpu.name, "nvidia-smi -L")
    if "," in text:
        for gpu in parsers.gpus_from_query_csv(text, "nvidia-smi --query-gpu"):
            facts.gpu(gpu.name, gpu.source, gpu.memory_total_mib, gpu.compute_capability)
        facts.put("driver", parsers.driver_from_query_csv(text), "nvidia-smi --query-gpu")
    smi_version = parsers.parse_nvidia_smi_version(text)
    if smi_version != (None, None, None):
        _smi, driver, cuda = smi_version
        facts.put("driver", driver, "nvidia-smi --version")
        facts.put("driver_cuda", cuda, "nvidia-smi --version")
    cudnn = parsers.parse_cudnn_version_header(text)
    if cudnn is not None:
        facts.cudnn.append((cudnn, "cudnn_version.h"))
    proc = parsers.parse_proc_driver_version(text)
    if proc is not None:
        facts.put("kernel_module", proc[0], "/proc/driver/nvidia/version")
    for line in text.splitlines():
        match = re.match(r"^\s*(jax|jaxlib)\s*:\s*(\d[\w.+]*)\s*$", line)
        if match:
            facts.package(match.group(1), match.group(2), f"jax.print_environment_info: {match.group(1)}")


def _key_values(lines: list[str], facts: _Facts) -> None:
    """collect_env and "- Key: value" lines; multi-line values (GPU list, cuDNN paths) included."""
    i = 0
    while i < len(lines):
        match = _KEY_LINE.match(lines[i])
        i += 1
        if not match:
            continue
        key = _field(match.group(1))
        if key is None:
            continue
        value = match.group(2).strip()
        source = f"report line {i}: {match.group(1).strip()}"
        if key in ("gpus", "cudnn") and (not value or value.lower().startswith("probably one of")):
            while i < len(lines) and (lines[i].strip().startswith("/") or _GPU_ENUM.match(lines[i])):
                extra = lines[i].strip()
                if key == "gpus":
                    gpu = _GPU_ENUM.match(extra)
                    facts.gpu(gpu.group(2) if gpu else extra, source)
                else:
                    version = parsers.version_from_soname(extra.rsplit("/", 1)[-1])
                    if version:
                        facts.cudnn.append((version, f"{source} ({extra})"))
                i += 1
            continue
        _put_field(key, value, source, facts)


def _field(raw: str) -> str | None:
    key = " ".join(raw.lower().split())
    if key in _COLLECT_ENV_KEYS:
        return _COLLECT_ENV_KEYS[key]
    for prefix, target in (("tensorflow version", "tf"), ("python version", "python"),
                           ("cuda/cudnn version", "cuda_cudnn"), ("gpu model", "gpu_text"),
                           ("os platform", "os"), ("nvidia driver", "driver")):
        if key.startswith(prefix):
            return target
    return None


def _put_field(key: str, value: str, source: str, facts: _Facts) -> None:
    if key == "gpus":
        gpu = _GPU_ENUM.match(value)
        facts.gpu(gpu.group(2) if gpu else value, source)
    elif key == "gpu_text":
        if value and _GPU_WORDS.search(value):
            facts.gpu(re.split(r",\s*\d+\s*(?:GB|MB|GiB|MiB)", value)[0], source)
    elif key == "cudnn":
        version = re.search(r"\d+\.\d+(?:\.\d+)?", value)
        if version:
            facts.cudnn.append((version.group(0), source))
    elif key == "cuda_cudnn":
        versions = re.findall(r"\d+\.\d+(?:\.\d+)*", value)
        if versions:
            facts.put("system_cuda", versions[0], source)
        if len(versions) > 1:
            facts.cudnn.append((versions[1], source))
    elif key == "ld_library_path":
        facts.put("ld_library_path", value, source)
    else:
        facts.put(key, value, source)


def _markdown_sections(lines: list[str], facts: _Facts) -> None:
    """GitHub issue forms: "### TensorFlow version" then the value on the next non-empty line."""
    for i, line in enumerate(lines):
        header = _MD_HEADER.match(line)
        if not header:
            continue
        key = _field(header.group(1))
        if key is None:
            continue
        for nxt in lines[i + 1: i + 4]:
            if nxt.strip():
                if not _MD_HEADER.match(nxt):
                    _put_field(key, nxt.strip(), f"report line {i + 1}: {header.group(1)}", facts)
                break


def _packages(lines: list[str], facts: _Facts) -> None:
    """pip freeze / pip list / pip show / collect_env "[pip3]" and "[conda]" lines."""
    for i, line in enumerate(lines):
        text = line.strip()
        source = f"report line {i + 1}: {text[:60]}"
        for regex in (_PIP_EQ, _CONDA_ROW):
            match = regex.match(text)
            if match and _INTERESTING.match(normalize_name(match.group(1))):
                facts.package(match.group(1), match.group(2), source)
                if regex is _CONDA_ROW and normalize_name(match.group(1)) == "pytorch":
                    build = re.search(r"cuda(\d+)\.(\d+)", match.group(3))
                    if build:
                        facts.put("torch_cuda", f"{build.group(1)}.{build.group(2)}", source)
        match = _PIP_LIST.match(text)
        if match and _INTERESTING.match(normalize_name(match.group(1))) and "==" not in text:
            facts.package(match.group(1), match.group(2), source)
        if text.lower().startswith("name:") and i + 1 < len(lines):
            nxt = lines[i + 1].strip()
            pkg = text.split(":", 1)[1].strip()
            if nxt.lower().startswith("version:") and _INTERESTING.match(normalize_name(pkg)):
                facts.package(pkg, nxt.split(":", 1)[1].strip(), f"report line {i + 1}: pip show {pkg}")


def _banners_and_prose(lines: list[str], facts: _Facts) -> None:
    """Training-log banners, runtime warnings and prose mentions (the weakest sources, read last)."""
    for i, line in enumerate(lines):
        source = f"report line {i + 1}"
        for match in _BANNER_DEVICE.finditer(line):
            facts.gpu(match.group(2), f"{source}: banner", int(match.group(3)))
        found = _FOUND_VERSION.search(line)
        if found and "driver" in line.lower():
            facts.put("driver_cuda", parsers.decode_cuda_driver_int(int(found.group(1))),
                      f"{source}: found version {found.group(1)}")
        proc = _PROC_LINE.search(line)
        if proc:
            facts.put("kernel_module", proc.group(1), f"{source}: /proc/driver/nvidia/version")
        package = _DRIVER_PACKAGE.search(line)
        if package:
            facts.put("driver_package", package.group(1), f"{source}: driver package")
        if "LD_LIBRARY_PATH" in line and i + 1 < len(lines) and "echo" in line:
            facts.put("ld_library_path", lines[i + 1].strip(), f"{source}: echo $LD_LIBRARY_PATH")
        ld = re.search(r"LD_LIBRARY_PATH:\s*(\S+)", line)
        if ld:
            facts.put("ld_library_path", ld.group(1), source)
        banner_torch = _BANNER_TORCH.search(line)
        if banner_torch and "site-packages" not in line:
            facts.package("torch", banner_torch.group(1), f"{source}: banner")
        python = _BANNER_PYTHON.search(line)
        if python:
            facts.put("python", python.group(1), f"{source}: banner")
        prose = _PROSE_TORCH.search(line)
        if prose and "site-packages" not in line and "/" not in prose.group(0):
            facts.put("torch_prose", prose.group(1), f"{source}: text")
        tf = _PROSE_TF.search(line)
        if tf:
            facts.put("tf_prose", tf.group(1), f"{source}: text")
        cuda = _PROSE_CUDA.search(line)
        if cuda:
            facts.put("cuda_text", cuda.group(1), f"{source}: text")
        lowered = line.lower()
        if _GPU_WORDS.search(line) and re.search(r"\b(have|with|using|box with|card)\b", lowered) \
                and not re.search(r"error|warning", lowered):
            gpu = re.search(r"((?:NVIDIA\s+)?(?:GeForce\s+|Tesla\s+|Quadro\s+|TITAN\s+)?(?:RTX|GTX)?\s*"
                            r"[A-Z]?\d{2,4}[A-Za-z]*(?:\s+(?:Ti|SUPER|D))?)", line)
            if gpu and re.search(r"[A-Za-z]", gpu.group(1)) and re.search(r"\d", gpu.group(1)):
                facts.put("gpu_prose", gpu.group(1).strip(), f"{source}: text")


def _system(os_text: str | None, platform_text: str | None) -> str | None:
    text = f"{os_text or ''} {platform_text or ''}".lower()
    if re.search(r"\bwin(dows)?\s*\d*\b|win10|win11|microsoft windows", text):
        return "win32"
    if re.search(r"macos|mac os|darwin|os x", text):
        return "darwin"
    if re.search(r"linux|ubuntu|debian|centos|rhel|red hat|fedora|rocky|almalinux|arch|suse|amazon", text):
        return "linux"
    return None


def _assemble(facts: _Facts, name: str) -> Snapshot:  # reason: one branch per fact kind
    get = facts.get
    os_fact, platform_fact = get("os"), get("platform")
    system = _system(os_fact[0] if os_fact else None, platform_fact[0] if platform_fact else None)
    libc = get("libc")
    glibc = re.search(r"glibc-?(\d+\.\d+)", libc[0]) if libc else None
    host = HostInfo(
        system={"win32": "Windows", "darwin": "Darwin", "linux": "Linux"}.get(system or "", "unknown"),
        arch="x86_64" if os_fact and "x86_64" in os_fact[0] else "unknown",
        distro=os_fact[0] if os_fact else None,
        glibc=glibc.group(1) if glibc else None,
        source=os_fact[1] if os_fact else "report",
    )
    python_fact = get("python")
    python: PythonInfo | Unavailable
    py_version = re.match(r"(\d+\.\d+(?:\.\d+)?)", python_fact[0]) if python_fact else None
    if python_fact and py_version:
        python = PythonInfo(
            executable="", version=py_version.group(1), implementation="CPython",
            platform=system or "linux", machine=host.arch, prefix="", base_prefix="", source=python_fact[1],
        )
    else:
        python = Unavailable("the report does not give the Python version", ("report",), NOT_REPORTED)
    driver = _driver(facts)
    gpu_names = list(facts.gpus)
    if not gpu_names and get("gpu_prose"):
        value, source = get("gpu_prose")  # type: ignore[misc] # reason: checked just above
        gpu_names.append((value, source, None, None))
    gpus: tuple[GpuInfo, ...] | Unavailable
    if gpu_names:
        gpus = tuple(GpuInfo(index=i, name=n, source=s, memory_total_mib=m, compute_capability=c)
                     for i, (n, s, m, c) in enumerate(gpu_names))
    else:
        gpus = Unavailable("the report names no GPU", ("report",), NOT_REPORTED)
    toolkits: tuple[CudaToolkit, ...] | Unavailable = Unavailable(
        "the report names no CUDA toolkit", ("report",), NOT_REPORTED)
    runtime = get("cuda_runtime") or get("system_cuda")
    if runtime:
        version = re.match(r"(\d+)\.(\d+)", runtime[0])
        if version:
            toolkits = (CudaToolkit(f"{version.group(1)}.{version.group(2)}", None, runtime[1],
                                    build=runtime[0].split()[0]),)
    cudnn: tuple[ComponentVersion, ...] | Unavailable = (
        tuple(ComponentVersion(v, s) for v, s in facts.cudnn) if facts.cudnn
        else Unavailable("the report gives no cuDNN version", ("report",), NOT_REPORTED))
    libraries = tuple(
        SharedLibrary("cudnn", f"libcudnn.so.{v.split('.')[0]}", s, "report", v) for v, s in facts.cudnn
    )
    packages = tuple(Distribution(n, v) for n, (v, _s) in sorted(facts.packages.items()))
    frameworks = tuple(_frameworks(facts, system, bool(gpu_names)))
    environment = {}
    ld = get("ld_library_path")
    if ld:
        environment["LD_LIBRARY_PATH"] = ld[0]
    return Snapshot(
        host=host, driver=driver, gpus=gpus, cuda_toolkits=toolkits, libraries=libraries, cudnn=cudnn,
        nccl=Unavailable("the report gives no NCCL version", ("report",), NOT_REPORTED), python=python,
        packages=packages, frameworks=frameworks, environment=environment,
        observed_errors=tuple(facts.errors), origin=f"report {name}", envguard_version=__version__,
    )


def _driver(facts: _Facts) -> DriverInfo | Unavailable:
    driver, driver_cuda = facts.get("driver"), facts.get("driver_cuda")
    module, package = facts.get("kernel_module"), facts.get("driver_package")
    if module and package and module[0] != package[0]:
        reason = (f"the loaded kernel module is {module[0]} ({module[1]}) but the installed driver package is "
                  f"{package[0]} ({package[1]})")
        return Unavailable(reason, ("report",), "driver-library-mismatch")
    version = driver[0].split()[0] if driver else (module[0] if module else None)
    if version is None and driver_cuda is None:
        return Unavailable("the report gives no driver version", ("report",), NOT_REPORTED)
    source = driver[1] if driver else (module[1] if module else driver_cuda[1] if driver_cuda else "report")
    cuda = driver_cuda[0] if driver_cuda and driver_cuda[0].upper() != "ERR!" else None
    return DriverInfo(version, cuda, source, module[0] if module else None)


def _frameworks(facts: _Facts, system: str | None, gpu_seen: bool) -> Iterator[FrameworkBuild]:
    torch = facts.get("torch")
    pkg = facts.packages.get("torch")
    prose = facts.get("torch_prose")
    chosen = torch or (pkg if pkg else None) or prose
    if torch and pkg and _comparable(torch[0]) != _comparable(pkg[0]):
        facts.notes.append(f"contradictory torch version: {torch[0]!r} ({torch[1]}) vs {pkg[0]!r} ({pkg[1]}); "
                           "kept the first")
    if chosen:
        version, source = chosen
        version = version.split()[0]
        cuda_fact = facts.get("torch_cuda")
        cuda = cuda_fact[0] if cuda_fact else cuda_from_local(version)
        if cuda is None and chosen is prose and facts.get("cuda_text"):
            cuda = facts.get("cuda_text")[0]  # type: ignore[index] # reason: checked in the condition
        if "+cpu" in version or (cuda_fact is None and cuda_from_local(version) is None and "+" in version):
            accel: str | None = "cpu" if "+cpu" in version else None
        elif cuda:
            accel = "cuda"
        else:
            accel = None
        if facts.get("torch_rocm") and not cuda:
            accel = "rocm"
        yield FrameworkBuild("torch", "torch", version, accel, cuda if accel == "cuda" else None, None,
                             source=source)
    for companion in ("torchvision", "torchaudio"):
        entry = facts.packages.get(companion)
        if entry:
            cuda = cuda_from_local(entry[0])
            accel = "cuda" if cuda else ("cpu" if "+cpu" in entry[0] else None)
            yield FrameworkBuild(companion, companion, entry[0], accel, cuda, None, source=entry[1])
    tf = facts.get("tf")
    tf_pkg = next(((n, v) for n, v in facts.packages.items() if n.startswith(("tensorflow", "tf-nightly"))), None)
    tf_version = None
    if tf:
        found = re.search(r"\d+\.\d+(?:\.\d+)?", tf[0])
        tf_version = (found.group(0), tf[1]) if found else None
    if tf_version is None and tf_pkg:
        tf_version = tf_pkg[1]
    if tf_version is None and facts.get("tf_prose"):
        tf_version = facts.get("tf_prose")
    if tf_version is not None:
        dist = tf_pkg[0] if tf_pkg else "tensorflow"
        cpu = dist == "tensorflow-cpu"
        # NOTE: from 2.1 the Linux "tensorflow" wheel is the GPU build; on Windows after 2.10 and on macOS it
        # is CPU-only (platform rules judge those). Only claim a CUDA build where the report shows a GPU.
        accel = "cpu" if cpu else ("cuda" if system == "linux" and gpu_seen else None)
        yield FrameworkBuild("tensorflow", dist, tf_version[0], accel, None, None, source=tf_version[1])
    jaxlib = facts.packages.get("jaxlib")
    if jaxlib:
        plugin = next((n for n in facts.packages if n.startswith(("jax-cuda12", "jax-cuda13"))), None)
        yield FrameworkBuild("jax", "jaxlib", jaxlib[0], "cuda" if plugin else None,
                             ("13" if "13" in plugin else "12") if plugin else None, None, source=jaxlib[1])


def _has_facts(snapshot: Snapshot) -> bool:
    return bool(
        snapshot.frameworks or snapshot.packages or snapshot.gpu_list() or snapshot.observed_errors
        or snapshot.toolkit_list() or not isinstance(snapshot.cudnn, Unavailable)
        or not isinstance(snapshot.driver, Unavailable) or not isinstance(snapshot.python, Unavailable)
        or snapshot.driver.code not in (None, NOT_REPORTED)
    )
