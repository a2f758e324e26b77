"""Error messages seen in a pasted report → findings (errors.toml), merged with fact-based findings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envguard.codes import NOT_ENVIRONMENT
from envguard.findings import Evidence, Finding, Report, Severity
from envguard.knowledge import Matrices
from envguard.rules.arch_evidence import ARCH_CODE, no_kernels
from envguard.rules.base import CUDNN_CALL_FAILED, driver_evidence, gpu_cc, series, system_of, version
from envguard.rules.corroborate import SUBJECT
from envguard.rules.tf_arch import JIT_FAILED
from envguard.snapshot import (
    GPU_SAID_KEY,
    IMAGE_BUILD_KEY,
    NO_NVIDIA_KEY,
    SMI_FAILED_KEY,
    TORCH_INDEX_KEY,
    Snapshot,
    Unavailable,
    stated_parts,
)

if TYPE_CHECKING:
    from envguard.knowledge.errors import SignatureMatch


#: Launchers' own "this Python is untested" warnings (errors.toml): an error once pip finds nothing to install.
_UNTESTED_PYTHON = frozenset({"webui-untested-python"})
#: pip finding no release to install ("Could not find a version that satisfies", "No matching distribution found").
_PIP_FOUND_NONE = re.compile(r"Could not find a version that|No matching distribution found for")
#: JAX's fallback warning, and the codes of the messages that say why a CUDA plugin that is installed failed.
_JAX_FALLBACK = "jax-cpu-jaxlib-on-gpu-machine"
_JAX_BACKEND_CODES = frozenset({"companion-mismatch", "cuda-libs-missing", "cudnn-mismatch", "driver-too-old",
                                "driver-missing", "driver-library-mismatch"})
_JAX_HARDWARE_SOURCE = "https://github.com/jax-ml/jax/blob/main/jax/_src/hardware_utils.py"
#: xformers' "xFormers was built for: PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+cu130)".
_XFORMERS_BUILT_FOR = "xformers-built-for-torch"
_XFORMERS_PAIR = re.compile(r"PyTorch (\d+\.\d+\.\d+\S{0,20}?)(?: with CUDA \d{3,5})? "
                            r"\(you have (\d+\.\d+\.\d+[\w.+]{0,20})\)")
#: TensorFlow's no-SASS warning (its kernels will be JIT-compiled from PTX) ...
_NO_SASS = frozenset({"tf-no-kernel-binaries-for-capability"})
#: ... and a kernel that then could not be loaded or launched (tf_arch.JIT_FAILED).
#: A library's "only supports <Family> GPUs or newer" (errors.toml, a `family` group): an error when every GPU the
#: report names is below the family's lowest compute capability (gpu-arch.toml).
_FAMILY_FLOOR = frozenset({"flash-attn-requires-ampere"})
#: torch's cpp_extension naming an arch it does not know: an error when that arch is a reported GPU's own capability
#: (the GPU is newer than the torch release), not only a TORCH_CUDA_ARCH_LIST entry.
_OWN_ARCH = frozenset({"torch-extension-unknown-arch", "ggml-not-compiled-for-arch"})
_UNKNOWN_ARCH = re.compile(r"Unknown CUDA arch \((\d{1,2}\.\d)(?:\+PTX)?\)", re.IGNORECASE)
#: ggml's arch written as its __CUDA_ARCH__ (700 = 7.0, 1200 = 12.0).
_GGML_ARCH = re.compile(r"not compiled with any CUDA arch <= (\d{1,2})(\d)0\b")
#: pip's session-wide list of releases skipped for their Requires-Python: an error when the release that the same
#: report's "Could not find a version that satisfies the requirement <framework>==X" pins is itself in the list.
_IGNORED_PYTHON = frozenset({"pip-ignored-requires-python"})
_PINNED_NOT_FOUND = re.compile(
    r"Could not find a version that satisfies the requirement (?:torchvision|torchaudio|torch|tensorflow(?:-gpu|-cpu)?"
    r"|jaxlib|jax|paddlepaddle(?:-gpu)?)={2,3}(\d{1,4}(?:\.\d{1,4}){0,3}(?:(?:a|b|rc|\.post)\d{1,4})?)", re.IGNORECASE)
#: conda/mamba's "__cuda >=X" that no virtual package provides: an error when the report's driver CUDA is below X.
_CUDA_VIRTUAL_BOUND = frozenset({"conda-cuda-virtual-package-too-old"})
_CUDA_BOUND = re.compile(r"__cuda >=(\d{1,2}(?:\.\d{1,2})?)")
#: CPU-only evidence that stays a warning on a GPU machine: a libtorch program whose CUDA library was not linked, or
#: an extension build step without GPU access (docker build, a CPU worker), give the same line.
_NO_MACHINE_ESCALATION = frozenset({"torch-aten-op-no-cuda-backend", "torch-extension-no-cuda-runtime"})
#: uv's "no source distribution or wheel for the current platform": no platform finding when the same report has uv's
#: Python-tag message (a python-unsupported signature), which says the missing wheel is this interpreter's.
_PLATFORM_UNLESS_PYTHON = frozenset({"uv-no-wheel-for-current-platform"})


class SignatureRule:
    """Each catalogued error message in the report is evidence of its finding code."""

    id = "signatures"
    summary = "error messages in a pasted report, matched against the signature catalogue"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """One finding per signature seen (the first line that shows it)."""
        if not snapshot.observed_errors:
            return
        seen: set[str] = set()
        matches = matrices.errors.match(snapshot.observed_errors)
        toolkit = snapshot.toolkit_list()[0] if snapshot.toolkit_list() else None
        for match in matches:
            sig = match.signature
            if sig.id in seen or sig.code == NOT_ENVIRONMENT:
                continue
            if sig.id in _PLATFORM_UNLESS_PYTHON and any(m.signature.code == "python-unsupported" for m in matches):
                continue
            seen.add(sig.id)
            unreachable = False
            line = _excerpt(match)
            severity = Severity.parse(sig.severity)
            evidence = [Evidence(SUBJECT, line, f"{snapshot.origin}, errors.toml {sig.id}")]
            machine = _gpu_machine(snapshot)
            unusable = no_kernels(match, matches, snapshot, matrices) if sig.code == ARCH_CODE else None
            if unusable is not None and severity is Severity.WARNING:
                # The architectures the report's messages list are all unusable on this GPU (SASS runs on its own
                # major only, PTX JIT-compiles forward only): the build has no kernels for it at all.
                severity = Severity.ERROR
                evidence.append(unusable)
            elif sig.code == "cudnn-mismatch" and severity is Severity.WARNING and \
                    (failed := next((x for x in snapshot.observed_errors if CUDNN_CALL_FAILED.search(x)), None)):
                # A framework warning that the cuDNN it loaded is older than its build, and a cuDNN call that then
                # failed: the warning was the cause, not noise.
                severity = Severity.ERROR
                evidence.append(Evidence("cuDNN call failed", failed[:160], snapshot.origin))
            elif sig.id in _UNTESTED_PYTHON and severity is Severity.WARNING and \
                    (failed := next((x for x in snapshot.observed_errors if _PIP_FOUND_NONE.search(x)), None)):
                # A launcher warning that this Python is untested, and pip then finding no release to install: the
                # interpreter is the cause.
                severity = Severity.ERROR
                evidence.append(Evidence("pip", failed[:160], snapshot.origin))
            elif sig.id in _NO_SASS and severity is Severity.WARNING and \
                    (failed := next((x for x in snapshot.observed_errors if JIT_FAILED.search(x)), None)):
                # TensorFlow's "not built with kernel binaries for X; kernels will be JIT-compiled from PTX" and then a
                # kernel that could not be loaded: the PTX path failed too, so the build has no usable kernels.
                severity = Severity.ERROR
                evidence.append(Evidence("kernel load failed", failed[:160], snapshot.origin))
            elif sig.id == _XFORMERS_BUILT_FOR and (built := _XFORMERS_PAIR.search(match.line)) is not None \
                    and built.group(1).split("+")[0] != built.group(2).split("+")[0]:
                # xformers' detail line names the torch its binary was built for and the one installed: another torch
                # release is a wheel for another torch (facebookresearch/xformers' build-info check).
                severity = Severity.ERROR
                evidence.append(Evidence("xformers built for", f"torch {built.group(1)}; installed {built.group(2)}",
                                         snapshot.origin))
            elif sig.id in _FAMILY_FLOOR and severity is Severity.WARNING and \
                    (below := _below_family(match, snapshot, matrices)) is not None:
                severity = Severity.ERROR
                evidence.append(below)
            elif sig.id in _OWN_ARCH and severity is Severity.WARNING and \
                    (own := _gpu_of_arch(match, snapshot, matrices)) is not None:
                severity = Severity.ERROR
                evidence.append(own)
            elif sig.id in _IGNORED_PYTHON and severity is Severity.WARNING and \
                    (pinned := _pinned_in_ignored(match, snapshot)) is not None:
                # pip skipped the very release the failing requirement pins because of its Requires-Python.
                severity = Severity.ERROR
                evidence.append(pinned)
            elif sig.id in _CUDA_VIRTUAL_BOUND and severity is Severity.WARNING and \
                    (older := _driver_below_bound(match, snapshot)) is not None:
                severity = Severity.ERROR
                evidence.append(older)
            elif sig.code == "cpu-only-build" and severity is Severity.WARNING and \
                    (shown := machine or _gpu_said(snapshot)) is not None and sig.id not in _NO_MACHINE_ESCALATION:
                # A framework saying it fell back to the CPU is a warning alone ("a GPU may be present"); with an
                # NVIDIA driver or GPU in the same report, or the user saying the machine has one ("I do have a
                # GPU", diffrax#80 under JAX's "No GPU/TPU found"), it is the CPU-only build on a GPU machine.
                severity = Severity.ERROR
                evidence.append(shown)
            elif sig.id == _JAX_FALLBACK and severity is Severity.WARNING and "may be present" in match.line \
                    and not any(m.signature.id != sig.id and m.signature.code in _JAX_BACKEND_CODES for m in matches):
                # JAX prints "An NVIDIA GPU may be present" only when /dev/nvidia0, /dev/nvidiactl or /dev/dxg exists
                # (jax/_src/hardware_utils.py has_visible_nvidia_gpu): the driver's device nodes are there, so this is
                # a GPU machine; with no plugin failure logged beside it, its jaxlib has no CUDA backend at all.
                severity = Severity.ERROR
                evidence.append(Evidence("NVIDIA device nodes", "present (JAX checks /dev/nvidia0, /dev/nvidiactl, "
                                         "/dev/dxg before printing this)", _JAX_HARDWARE_SOURCE))
            if sig.code in _CODE_ASKS_FOR_CUDA and severity is Severity.ERROR and machine is None and \
                    GPU_SAID_KEY not in snapshot.environment and not snapshot.toolkit_list() and \
                    (none_there := snapshot.environment.get(NO_NVIDIA_KEY)) is not None:
                # NOTE: the report says the machine has no NVIDIA GPU (an Apple Silicon Mac, an AMD or Intel card) or
                # runs on the CPU on purpose: "Torch not compiled with CUDA enabled" / "Found no NVIDIA driver" is
                # then the code asking for CUDA (device='cuda', .cuda()), not an install to replace
                # (Vaibhavs10/insanely-fast-whisper#107, intel/torch-xpu-ops#3579, ShuweiShao/AF-SfMLearner#39)
                severity = Severity.WARNING
                value, where = stated_parts(none_there)
                evidence.append(Evidence("no NVIDIA GPU", f"the report says {value!r}", where))
            if sig.code == "cpu-only-build" and severity is Severity.ERROR and system_of(snapshot) == "darwin":
                # NOTE: macOS has no CUDA build of any framework (the CPU/MPS build is the only one): code that asks
                # for CUDA there is the program's choice, not an install to replace (zai-org/ChatGLM-6B#549 on an M1)
                severity = Severity.WARNING
                evidence.append(Evidence("platform", "macOS (no CUDA builds exist)", snapshot.host.source))
            if sig.id in _NO_DISTRIBUTION and severity is Severity.ERROR and \
                    (unknown := _unknown_torch_index(snapshot, matrices)) is not None:
                # NOTE: pip looked at a PyTorch index of a CUDA variant no release was built for (cu131): the index
                # holds no torch at all, whatever the Python (visualbruno/ComfyUI-Trellis2#131)
                severity = Severity.WARNING
                evidence.append(unknown)
            if sig.id in _PIP_NOT_FOUND and severity is not Severity.INFO and \
                    (offline := next((m for m in matches if m.signature.id == _INDEX_UNREACHABLE), None)) is not None:
                # NOTE: pip could not reach an index (a proxy, TLS, no ssl module): what it then could not find says
                # nothing about the Python (pytorch#51723; an expired download.pytorch.org certificate, 2020)
                severity = Severity.WARNING
                evidence.append(Evidence("pip could not reach an index", _excerpt(offline), snapshot.origin))
                unreachable = True
            if sig.id == _TF_DLOPEN and severity is Severity.ERROR and machine is None and toolkit is None and \
                    GPU_SAID_KEY not in snapshot.environment and \
                    match.groups.get("lib", "").lower().removeprefix("lib").startswith("cudart"):
                # NOTE: TensorFlow's GPU build tries the CUDA runtime at import on every machine, and says so: "Ignore
                # above cudart dlerror if you do not have a GPU set up on your machine" (cudart_stub.cc). With no GPU,
                # driver or CUDA toolkit in the report, and nothing saying there is one ("I do have a GPU set up"),
                # the message alone does not show a GPU machine (google/lightweight_mmm#23; huggingface/transformers
                # #11804: TensorFlow imported beside a PyTorch job; the soname is "libcudart.so.X" on Linux,
                # "cudart64_X.dll" on Windows).
                severity = Severity.WARNING
                evidence.append(Evidence("GPU", "not reported (TensorFlow prints this at import on machines without "
                                         "a GPU too)", _CUDART_STUB_SOURCE))
            elif sig.id == _TF_DLOPEN and machine is None and (said := _gpu_said(snapshot)) is not None:
                evidence.append(said)
            elif sig.id == _TF_DLOPEN and machine is None and toolkit is not None:
                evidence.append(Evidence("CUDA toolkit", f"{toolkit.version} (a CUDA set up for a GPU)",
                                         toolkit.source))
            if sig.id == _NMS_MISSING and severity is Severity.ERROR and \
                    (pair := _release_pair(snapshot, matrices)) is not None:
                # NOTE: the report shows torch and torchvision of one release and one variant: the operator is missing
                # for another reason (torch.hub loading pytorch/vision without its C++ ops, pytorch/pytorch#157648;
                # 'import torchvision' first, pytorch/pytorch#138567), not because of a mismatched pair
                severity = Severity.WARNING
                evidence.append(pair)
            if sig.id in _NO_DRIVER_AT_BUILD and severity is Severity.ERROR and machine is None and \
                    (image_built := snapshot.environment.get(IMAGE_BUILD_KEY)) is not None:
                # NOTE: an image build attaches no GPU (docker build's RUN steps run without the NVIDIA runtime), so
                # torch finds no driver there on a GPU host too: build steps must not need one (NVIDIA/apex#486:
                # torch's cpp_extension querying the device during 'RUN pip install apex'; TORCH_CUDA_ARCH_LIST set)
                severity = Severity.WARNING
                value, where = stated_parts(image_built)
                evidence.append(Evidence("image build", f"{value!r} (no GPU is attached while an image builds)", where))
            if sig.id in _DRIVER_UNREACHABLE and severity is Severity.ERROR and \
                    (working := _smi_worked(snapshot)) is not None:
                # NOTE: the same report shows nvidia-smi answering (its table's driver): the failure was another
                # state (a job without a GPU allocated, a container, before a reboot), not the machine's driver
                # missing (3dem/model-angelo#60: a Slurm job without a GPU allocated, then the working table).
                severity = Severity.WARNING
                evidence.append(working)
            code, cause, check = sig.code, sig.cause, sig.check
            if unreachable:
                cause, check = _INDEX_CAUSE, _INDEX_CHECK
            if sig.id == _PTX_VERSION and (jit := next((x for x in (match.line, *snapshot.observed_errors)
                                                        if _DRIVER_JIT.search(x)), None)) is not None:
                # NOTE: the driver's own PTX JIT ("ptxas application ptx input", inside cuLinkAdd*/cuModuleLoad*):
                # the driver is older than the CUDA that wrote the PTX (hashcat/hashcat#2694: "you update cuda but
                # not the driver"; heavyai/heavydb#617, hashcat/hashcat#4728)
                code, severity, cause = "driver-too-old", Severity.ERROR, _DRIVER_JIT_CAUSE
                check = _DRIVER_JIT_CHECK
                evidence.append(Evidence("driver's PTX JIT", jit[:160], snapshot.origin))
            if sig.id == FORWARD_COMPAT and snapshot.host.container:
                # NOTE: in a container the newer user-mode driver is the image's cuda-compat libcuda: the image's CUDA
                # is newer than the host driver, which forward compatibility cannot bridge on this GPU.
                code, cause, check = "driver-too-old", _FORWARD_COMPAT_IN_CONTAINER, _FORWARD_COMPAT_CONTAINER_FIX
                evidence.append(Evidence("container", snapshot.host.container, snapshot.origin))
            elif sig.id == FORWARD_COMPAT and (smi := _smi_driver(snapshot, matrices)) is not None:
                # NOTE: nvidia-smi answering in the same report shows the kernel module and the driver's own libraries
                # agree: the newer user-mode driver is a forward-compatibility libcuda the program or image brought
                # (huggingface/text-embeddings-inference#47: driver 525 / CUDA 12.0 under a CUDA 12.2 build)
                code, cause, check = "driver-too-old", _FORWARD_COMPAT_SMI, _FORWARD_COMPAT_CONTAINER_FIX
                evidence.append(smi)
            yield Finding(
                code, severity,
                f"The report shows \"{line}\": {cause}",
                tuple(evidence), check, sig.prov.source, SUBJECT,
            )


#: torchvision's C++ operators not registered.
_NMS_MISSING = "torchvision-nms-missing"


def _release_pair(snapshot: Snapshot, matrices: Matrices) -> Evidence | None:
    """torch and torchvision of one release pair (torch.toml) and one variant, as evidence (None otherwise)."""
    torch, vision = snapshot.framework("torch"), snapshot.framework("torchvision")
    if torch is None or vision is None:
        return None
    release = matrices.torch.release(torch.version)
    if release is None or not release.torchvision or version(series(vision.version)) != version(release.torchvision):
        return None
    local = (torch.version.partition("+")[2], vision.version.partition("+")[2])
    if local[0] != local[1] or (torch.accelerator and vision.accelerator and torch.accelerator != vision.accelerator) \
            or (torch.cuda and vision.cuda and torch.cuda != vision.cuda):
        return None
    return Evidence("torch and torchvision", f"torch {torch.version} with torchvision {vision.version}: a release "
                    "pair of one variant", f"{torch.source}; torch.toml {release.version}")


#: TensorFlow failing to dlopen a CUDA library, and where it says a missing CUDA runtime is expected without a GPU.
_TF_DLOPEN = "tf-dlopen-cuda-library"
_CUDART_STUB_SOURCE = "https://github.com/tensorflow/tensorflow/blob/v2.10.0/tensorflow/stream_executor/cuda/cudart_stub.cc"
#: CUDA error 804 (cudaErrorCompatNotSupportedOnDevice): the user-mode driver loaded is newer than the kernel module.
FORWARD_COMPAT = "cuda-forward-compat-unsupported-hw"
_FORWARD_COMPAT_IN_CONTAINER = (
    "In a container, the newer user-mode driver is the image's CUDA forward-compatibility libcuda (cuda-compat): "
    "the image's CUDA is newer than the host driver supports, and forward compatibility runs only on data-centre "
    "GPUs (CUDA Compatibility guide; cudaErrorCompatNotSupportedOnDevice, error 804), so the host driver is too old "
    "for the image.")
_FORWARD_COMPAT_SMI = (
    "nvidia-smi works in the same report, so the kernel module and the driver's own libraries agree: the newer "
    "user-mode driver is a CUDA forward-compatibility libcuda (cuda-compat) that the program or its image brought, "
    "for a CUDA newer than this driver supports; forward compatibility runs only on data-centre GPUs (CUDA "
    "Compatibility guide; error 804), so the driver is too old for the program's CUDA.")
_FORWARD_COMPAT_CONTAINER_FIX = (
    "nvidia-smi on the host (its 'CUDA Version' is the driver's newest CUDA) versus the image's CUDA; upgrade the "
    "host driver, or use an image built for a CUDA the host driver supports.")


#: ptxas refusing a PTX ISA newer than it knows; the driver's JIT is the one compiling when the input is the
#: application's PTX handed to it (cuLinkAddData / cuLinkAddFile / cuModuleLoadData).
_PTX_VERSION = "ptxas-unsupported-ptx-version"
_DRIVER_JIT = re.compile(r"ptxas application ptx input|\bcuLinkAdd(?:Data|File)(?:_v2)?\b|\bcuModuleLoadData(?:Ex)?\b")
_DRIVER_JIT_CAUSE = ("The driver's PTX JIT compiler (its ptxas, fed the application's PTX through cuLinkAdd*/"
                     "cuModuleLoad*) accepts PTX ISA versions up to its own ('current version'): the program's PTX was "
                     "written by a newer CUDA toolkit than the driver supports, so the driver is too old for it.")
_DRIVER_JIT_CHECK = ("nvidia-smi's 'CUDA Version' is the newest CUDA the driver JIT-compiles for: upgrade the driver "
                     "to one of the CUDA that built the program (PTX 9.3 = CUDA 13.3, 7.0 = CUDA 11.0), or use a "
                     "build of the program made with the driver's CUDA.")


#: pip finding no release of the framework at all.
_NO_DISTRIBUTION = frozenset({"pip-no-distribution-for-framework"})


def _unknown_torch_index(snapshot: Snapshot, matrices: Matrices) -> Evidence | None:
    """The PyTorch cuXXX index the report's pip command names, when no torch release has that variant and it is
    not newer than every variant the matrices know (None otherwise)."""
    raw = snapshot.environment.get(TORCH_INDEX_KEY, "")
    tag, source = stated_parts(raw)
    if not tag[2:].isdigit():
        return None
    known = {v.tag for r in matrices.torch.releases for v in r.variants if v.tag.startswith("cu")}
    newest = max((int(t[2:]) for t in known if t[2:].isdigit()), default=0)
    if tag in known or int(tag[2:]) > newest:
        return None
    return Evidence("PyTorch index", f"{tag}: no torch release has a {tag} variant (envguard matrix torch)",
                    source or snapshot.origin)


#: pip reporting what it could not find (python-unsupported when the index was reachable).
_PIP_NOT_FOUND = frozenset({"pip-no-distribution-for-framework", "pip-pinned-version-not-offered",
                            "pip-torch-only-placeholder-releases"})
#: pip failing to reach an index at all (not-environment: it only qualifies the lines above).
_INDEX_UNREACHABLE = "pip-index-unreachable"
_INDEX_CAUSE = ("pip could not reach a package index it was given (the report shows the connection, proxy or TLS "
                "failure), so what it then could not find says nothing about the Python: the releases it lists are "
                "only those of the indexes it did reach.")
_INDEX_CHECK = ("Open the index URL from the same shell (curl -I URL): fix the proxy (http:// for an HTTP-only proxy), "
                "the certificate store or the Python's ssl module, then retry the install; judge the Python only on "
                "a run that reached every index.")


#: nvidia-smi failing to reach the driver.
_DRIVER_UNREACHABLE = frozenset({"nvidia-smi-cannot-communicate"})
#: Findings a message gives that mean "this code (or a docker run --gpus) asked for CUDA": a warning on a machine the
#: report says has no NVIDIA GPU (fboulnois/stable-diffusion-docker#82: an Intel Xe laptop).
_CODE_ASKS_FOR_CUDA = frozenset({"cpu-only-build", "driver-missing", "gpu-runtime-missing"})
#: torch finding no driver: a warning when it happened while an image was built.
_NO_DRIVER_AT_BUILD = frozenset({"torch-no-nvidia-driver"})


_REPORT_LINE = re.compile(r"report line (\d{1,7})")


def _smi_worked(snapshot: Snapshot) -> Evidence | None:
    """nvidia-smi's own table or header after the line where it failed, naming the driver (None when there is none,
    or when the table comes first: then the failure is the later state)."""
    driver = snapshot.driver
    if isinstance(driver, Unavailable) or not driver.version or "nvidia-smi" not in driver.source:
        return None
    table = _REPORT_LINE.search(driver.source)
    failed = snapshot.environment.get(SMI_FAILED_KEY, "")
    if table is None or not failed.isdigit() or int(table.group(1)) < int(failed):
        return None
    return Evidence("nvidia-smi answered later in the same report", f"driver {driver.version}", driver.source)


def _smi_driver(snapshot: Snapshot, matrices: Matrices) -> Evidence | None:
    """The driver nvidia-smi's table or header in the report names, when its CUDA is one that driver can have (None
    when the driver is not from nvidia-smi, or when the header claims a CUDA newer than the driver's own: "Driver
    Version: 470.57.02  CUDA Version: 12.1" is a newer libcuda beside an older module, SYSTRAN/faster-whisper#653)."""
    driver = snapshot.driver
    if isinstance(driver, Unavailable) or not driver.version or "nvidia-smi" not in driver.source.lower():
        return None
    native = matrices.cuda_driver.native_driver(driver.cuda_driver_version) if driver.cuda_driver_version else None
    have = version(driver.version)
    if native is not None and have is not None and have.major < native.major:
        return None
    return Evidence("nvidia-smi answered", f"driver {driver.version}", driver.source)


def _gpu_said(snapshot: Snapshot) -> Evidence | None:
    """What in the report says the machine has a usable NVIDIA GPU without naming one, as evidence."""
    said = snapshot.environment.get(GPU_SAID_KEY)
    if said is None:
        return None
    value, where = stated_parts(said)
    return Evidence("GPU", f"the report says so: {value!r}", where)


def _gpu_machine(snapshot: Snapshot) -> Evidence | None:
    """The GPU or NVIDIA driver the facts show, as evidence (None when they show neither)."""
    gpus = snapshot.gpu_list()
    if gpus:
        return Evidence("GPU", gpus[0].name, gpus[0].source)
    driver = snapshot.driver
    if not isinstance(driver, Unavailable) and driver.version:
        return Evidence("NVIDIA driver", driver.version, driver.source)
    return None


def _below_family(match: SignatureMatch, snapshot: Snapshot, matrices: Matrices) -> Evidence | None:
    """Evidence that every GPU the report names is older than the family the message requires (None otherwise)."""
    family = match.groups.get("family", "").strip().lower()
    ccs = [a.cc for a in matrices.gpu_arch.archs if family and a.family.lower() == family]
    if not ccs:
        return None
    floor = min(ccs, key=_cc_key)
    gpus = [(g, cc, where) for g in snapshot.gpu_list() for cc, where in [gpu_cc(g, matrices)]]
    if not gpus or any(cc is None or _cc_key(cc) >= _cc_key(floor) for _, cc, _ in gpus):
        return None
    named = ", ".join(f"GPU {g.index}: {g.name}, compute capability {cc}" for g, cc, _ in gpus)
    return Evidence("GPU below the required family", f"{named}; {family.title()} starts at compute capability "
                    f"{floor}", f"{gpus[0][2]}; gpu-arch.toml {family.title()} rows")


def _gpu_of_arch(match: SignatureMatch, snapshot: Snapshot, matrices: Matrices) -> Evidence | None:
    """Evidence that the arch the message names is the compute capability of a GPU the report names."""
    named = _arch_named(match.line)
    if named is None:
        return None
    for gpu in snapshot.gpu_list():
        cc, where = gpu_cc(gpu, matrices)
        if cc == named:
            return Evidence(f"GPU {gpu.index}", f"{gpu.name}, compute capability {cc}: the arch the message names",
                            where)
    return None


def _arch_named(line: str) -> str | None:
    """The compute capability a message names: torch's "Unknown CUDA arch (8.9)", ggml's "arch <= 700" (7.0)."""
    found = _UNKNOWN_ARCH.search(line)
    if found is not None:
        return found.group(1)
    ggml = _GGML_ARCH.search(line)
    return f"{ggml.group(1)}.{ggml.group(2)}" if ggml is not None else None


def _pinned_in_ignored(match: SignatureMatch, snapshot: Snapshot) -> Evidence | None:
    """Evidence that the framework release a failing pip requirement pins is in pip's Requires-Python skip list."""
    for line in snapshot.observed_errors:
        for pinned in _PINNED_NOT_FOUND.finditer(line):
            version = pinned.group(1)
            if re.search(rf"(?<![\w.]){re.escape(version)}(?:\+\w{{1,20}})? Requires-Python ", match.line):
                return Evidence("pip", f"{pinned.group(0)[:120]} (release {version} is in the Requires-Python "
                                "skip list)", snapshot.origin)
    return None


def _driver_below_bound(match: SignatureMatch, snapshot: Snapshot) -> Evidence | None:
    """Evidence that the report's driver supports an older CUDA than the __cuda bound the solver could not meet."""
    bound = _CUDA_BOUND.search(match.line)
    driver = snapshot.driver
    if bound is None or isinstance(driver, Unavailable) or not driver.cuda_driver_version:
        return None
    if _cc_key(driver.cuda_driver_version) >= _cc_key(bound.group(1)):
        return None
    return Evidence("driver max CUDA", f"{driver.cuda_driver_version}, below the __cuda >={bound.group(1)} the "
                    "package needs", driver.source)


def _cc_key(cc: str) -> tuple[int, int]:
    major, _, minor = cc.partition(".")
    return (int(major), int(minor or 0)) if major.isdigit() and (minor or "0").isdigit() else (0, 0)


def _excerpt(match: SignatureMatch, width: int = 160) -> str:
    """The part of a long line around the matched message (log prefixes and paths cut)."""
    line = match.line
    if len(line) <= width:
        return line
    found = match.signature.pattern.search(line)
    start = max(0, found.start() - 20) if found else 0
    text = line[start:start + width]
    return ("..." if start else "") + text + ("..." if start + width < len(line) else "")


# ---- explain -------------------------------------------------------------------------------------

CONFIRMED = "confirmed"
NOT_CONFIRMED = "not confirmed"
NO_FACTS = "no facts"
NOT_AN_ENVIRONMENT_PROBLEM = "not an environment problem"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One recognised message, and what the facts say about its cause."""

    match: SignatureMatch
    status: str
    #: The fact-based finding that confirms it.
    finding: Finding | None
    #: The facts that were checked (so "not confirmed" says against what).
    facts: tuple[Evidence, ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    """Recognised messages with their causes; empty when nothing in the text is catalogued."""

    verdicts: tuple[Verdict, ...]
    #: Where the facts came from ("probe", "report x.txt", "snapshot y.json"), None when not checked.
    facts_origin: str | None
    lines_read: int


def explain(lines: list[str], matrices: Matrices, facts: Report | None) -> Explanation:
    """Match each line against the catalogue; with facts, confirm or rule out each cause."""
    verdicts: list[Verdict] = []
    seen: set[str] = set()
    for match in matrices.errors.match(lines):
        if match.signature.id in seen:
            continue
        seen.add(match.signature.id)
        if match.signature.code == NOT_ENVIRONMENT:
            verdicts.append(Verdict(match, NOT_AN_ENVIRONMENT_PROBLEM, None, ()))
            continue
        if facts is None:
            verdicts.append(Verdict(match, NO_FACTS, None, ()))
            continue
        twin = next((f for f in facts.findings if f.code == match.signature.code and f.subject != SUBJECT), None)
        checked = twin.evidence if twin is not None else relevant_facts(match.signature.code, facts.snapshot)
        verdicts.append(Verdict(match, CONFIRMED if twin else NOT_CONFIRMED, twin, checked))
    return Explanation(tuple(verdicts), facts.snapshot.origin if facts else None, len(lines))


def relevant_facts(code: str, snapshot: Snapshot) -> tuple[Evidence, ...]:
    """The facts a cause with this finding code depends on, as evidence rows."""
    rows: list[Evidence] = []
    driver = snapshot.driver
    if code.startswith("driver") or code in ("arch-unsupported", "cpu-only-build"):
        if isinstance(driver, Unavailable):
            rows.append(Evidence("driver", f"unavailable: {driver.reason}", ", ".join(driver.tried)))
        else:
            rows.extend(driver_evidence(driver))
    if code in ("arch-unsupported", "cpu-only-build", "driver-missing"):
        gpus = snapshot.gpu_list()
        rows.append(Evidence("GPUs", ", ".join(f"{g.name} ({g.compute_capability or 'cc ?'})" for g in gpus)
                             or "none listed", gpus[0].source if gpus else "probe"))
    if code in ("cudnn-mismatch", "cuda-libs-missing", "nccl-mismatch"):
        for label, component in (("cuDNN", snapshot.cudnn), ("NCCL", snapshot.nccl)):
            if isinstance(component, Unavailable):
                rows.append(Evidence(label, "not found", ", ".join(component.tried)))
            else:
                rows.extend(Evidence(label, c.version, c.source) for c in component)
        if snapshot.environment.get("LD_LIBRARY_PATH"):
            rows.append(Evidence("LD_LIBRARY_PATH", snapshot.environment["LD_LIBRARY_PATH"], "environment"))
    if code == "python-unsupported" and not isinstance(snapshot.python, Unavailable):
        rows.append(Evidence("python", snapshot.python.version, snapshot.python.source))
    for fw in snapshot.frameworks:
        detail = f" (CUDA {fw.cuda})" if fw.cuda else f" ({fw.accelerator})" if fw.accelerator else ""
        rows.append(Evidence(fw.name, f"{fw.version}{detail}", f"{fw.distribution}: {fw.source}"))
    return tuple(rows)
