"""Which cuDNN and NCCL a report shows *loaded*, which ones a build was *compiled* with, and which system packages
are installed: the shapes that put two copies of a library in one report.

Extractors here yield mentions like those of ``extract`` (one shape each, linear patterns on lines already cut to
``segment.MAX_LINE_CHARS``); ``attach`` turns them into the ``Snapshot`` facts the library rules judge:

- a library the running program reports using → ``SharedLibrary(source="loaded" or "loaded:<framework>")``
  (``torch.cuda.nccl.version()`` output, NCCL_DEBUG's "NCCL version 2.x.y+cudaA.B", nccl-tests' "nccl-library=",
  PaddlePaddle's "cuDNN Version: X.Y." start-up line);
- a system package built for one CUDA → ``SharedLibrary(source="package:libnccl2+cudaA.B")``
  (``dpkg -l`` rows, "my nccl is built for CUDA 11.0");
- what ``paddle.version.show()`` prints: the CUDA and cuDNN the Paddle wheel was compiled with.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace

from envguard import archs
from envguard.probes import parsers
from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import whole_words
from envguard.snapshot import (
    LOADED_SOURCE,
    NOT_REPORTED,
    ComponentVersion,
    FrameworkBuild,
    SharedLibrary,
    Snapshot,
    Unavailable,
    package_source,
    stated,
)

__all__ = ["GENCODE_KEY", "PADDLE_RUNTIME_KEY", "attach", "from_signature", "library_facts", "paddle_cudnn_banner",
           "without_claimed"]


# torch.cuda.nccl.version(): "(2, 28, 9)" on the next line (REPL or `python -c`), an int on older torch (2708,
# 21903), or "... torch.cuda.nccl.version()) is 2.19.3" in a sentence.
_NCCL_CALL = re.compile(r"torch\.cuda\.nccl\.version\(\)\)?`?(?:\s{0,4}(?:is|=|->|:|returns|gives|prints)\s{0,4}`?"
                        r"(\d\.\d{1,2}\.\d{1,2}|\(\d,\s{0,2}\d{1,2},\s{0,2}\d{1,2}\)))?")
_NCCL_OUT = re.compile(r"^\s{0,8}(?:Out\[\d{1,4}\]:\s{0,4})?(?:\((\d),\s{0,2}(\d{1,2}),\s{0,2}(\d{1,2})\)|(\d{4,5}))"
                       r"\s*$")
_TUPLE = re.compile(r"^\((\d),\s{0,2}(\d{1,2}),\s{0,2}(\d{1,2})\)$")
#: The answer said later in the sentence: "`python -c "import torch;print(torch.cuda.nccl.version())"` in Terminal, I
#: can see (2, 10, 3)." (NVIDIA/nccl#809)
_NCCL_SEEN = re.compile(r"torch\.cuda\.nccl\.version\(\)\)?[\"'`]{0,3}[^()]{0,60}?\b"
                        r"(?:see|get|got|shows?|gives?|returns?|prints?|outputs?)\s{0,4}`?(\(\d,\s{0,2}\d{1,2},\s{0,2}\d{1,2}\))")
#: dpkg -l: "ii  libcudnn8  8.9.6.50-1+cuda12.2  amd64  cuDNN runtime libraries" (tensorflow/build#221),
#: "ii  libcudnn9-cuda-12  9.1.0.70-1  amd64".
_DPKG_CUDNN = re.compile(r"^\s{0,4}[a-z]{2}\s{1,8}libcudnn(\d{1,2})(?:-cuda-\d{1,2})?(?::amd64|:arm64)?\s{1,80}"
                         r"(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)-\d{1,3}(?:\+cuda(\d{1,2}\.\d{1,2}))?(?:\s|$)")
#: ls -l of a library folder: a regular file (not a link) named with cuDNN's full version.
_LS_CUDNN = re.compile(r"^\s{0,4}-[rwx-]{9}\.?\s.{0,120}?[\s/]libcudnn\.so\.(\d{1,2}\.\d{1,2}\.\d{1,3})\s*$")
#: rpm -qa: NVIDIA's repositories' "libcudnn8-8.9.7.29-1.cuda12.2.x86_64", "libcudnn9-cuda-12-9.1.0.70-1.x86_64", and
#: Fedora's Terra "cuda-cudnn-1:9.21.1.3-1.fc43.x86_64" (terrapkg/packages#11766: epoch, version, release, arch).
_RPM_CUDNN = re.compile(r"^\s{0,4}(?:libcudnn(\d{1,2})(?:-cuda-\d{1,2})?|cuda-cudnn)(?:-devel)?-(?:\d{1,2}:)?"
                        r"(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)-\d{1,3}(?:\.[\w.]{1,20}?)?\.(?:x86_64|aarch64|ppc64le)\s*$")
# NCCL_DEBUG=INFO/WARN: "host:62571:62571 [1] NCCL INFO NCCL version 2.26.2+cuda12.2" (src/init.cc VERSION_STRING).
_NCCL_BANNER = re.compile(r"\bNCCL (?:INFO|WARN) NCCL version (\d\.\d{1,2}\.\d{1,2})(?:\+cuda(\d{1,2}\.\d{1,2}))?")
# nccl-tests (src/common.cu): "# nccl-tests version 2.17.6 nccl-headers=22602 nccl-library=22602".
_NCCL_TESTS = re.compile(r"\bnccl-tests version \S{1,20}(?: \(\w{1,40}\))? nccl-headers=\d{4,6} "
                         r"nccl-library=(\d{4,6})")
# dpkg -l: "ii  libnccl2   2.17.1-1+cuda12.1   amd64   NVIDIA Collective Communication Library (NCCL) Runtime".
_DPKG_NCCL = re.compile(r"^\s{0,4}[a-z]{2}\s{1,8}(libnccl2|libnccl-dev)(?::amd64|:arm64)?\s{1,80}"
                        r"(\d\.\d{1,2}\.\d{1,2})-\d{1,3}\+cuda(\d{1,2}\.\d{1,2})(?:\s|$)")
# rpm -qa: "libnccl-2.9.9-1+cuda11.3.x86_64" (NVIDIA/nccl#554, CentOS 7).
_RPM_NCCL = re.compile(r"^\s{0,4}(libnccl(?:-devel)?)-(\d\.\d{1,2}\.\d{1,2})-\d{1,3}\+cuda(\d{1,2}\.\d{1,2})"
                       r"\.(?:x86_64|aarch64|ppc64le)\s*$")
# A sentence that says which CUDA an NCCL build is for: "my nccl depends on a different CUDA version (11.0)",
# "NCCL was built for CUDA 11.0", "libnccl2 compiled with cuda 10.2".
_NCCL_BUILT_FOR = re.compile(r"\b(?:lib)?nccl2?\b(?!-tests)[^.;!?]{0,40}?"
                             r"\b(?:built|compiled|depends|linked|packaged)\s{1,2}(?:for|with|against|on)\b[^.;!?\d]{0,30}?\bCUDA\b[^.;!?\d]{0,12}?\(?(\d{1,2}\.\d)\)?",
                             re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:not|n't|never|if|would|should|could|supposed to|instead of|rather than)\b", re.IGNORECASE)
# paddle.version.show(): "full_version: 2.5.2" or "commit: <sha>", then "cuda: 11.2" / "cudnn: 8.2.1" (or False).
_SHOW_HEAD = re.compile(r"^\s{0,8}(full_version|commit)\s{0,2}:\s{0,2}['\"]?"
                        r"([0-9a-f]{7,40}|\d\.\d{1,2}\.\d{1,3}(?:[.\w-]{0,20}))['\"]?\s*$")
_SHOW_LINE = re.compile(r"^\s{0,8}(cuda|cudnn|major|minor|patch|rc|xpu|xpu_xccl|cinn|nccl|tensorrt|cuda_archs)\s{0,2}:"
                        r"\s{0,2}['\"]?([^'\"]{0,40})['\"]?\s*$")
#: Lines after the head that still belong to one paddle.version.show() output.
_SHOW_SPAN = 14
# NCCL's VERSION_STRING outside an NCCL_DEBUG prefix: "NCCL version 2.20.5+cuda12.4" (rank 0 prints it bare, users
# quote it after a full-width colon, vllm#3069); the "+cudaA.B" is the CUDA runtime that NCCL was built with.
_NCCL_VERSION_STRING = re.compile(r"\bNCCL version (\d\.\d{1,2}\.\d{1,2})\+cuda(\d{1,2}\.\d{1,2})\b")
#: A line of its own stating the NCCL in use: "NCCL version 2.10.X" (NVIDIA/nccl issue forms; a patch written as X is
#: unknown, not a number).
_NCCL_VERSION_SAID = re.compile(r"^\s{0,4}NCCL\s{1,2}version:?\s{1,2}v?(\d\.\d{1,2})(?:\.(\d{1,2})|\.[xX*])?\s*$")
# torch's ProcessGroupNCCL errors end with the NCCL it loaded (getNcclVersion → ncclGetVersion):
# "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2395, invalid usage (...), NCCL version 2.19.3".
_TORCH_NCCL_ERROR = re.compile(r"\bNCCL error in: \S{1,200}, [^,]{1,120}, NCCL version (\d\.\d{1,2}\.\d{1,2})\b")
# vLLM's pynccl wrapper: "INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5" (the library it dlopened).
_VLLM_NCCL = re.compile(r"\bvLLM is using nccl==(\d\.\d{1,2}\.\d{1,2})\b")
# NCCL's make variable (makefiles/common.mk; NCCL README "consider redefining NVCC_GENCODE ... to only include the
# architecture of the target platform"), also nccl-tests': NVCC_GENCODE="-gencode=arch=compute_80,code=sm_80 ...".
_NVCC_GENCODE = re.compile(r"\bNVCC_GENCODE\s{0,2}[=:]\s{0,2}(.{1,600})")
# PaddlePaddle's start-up line, with the glog prefix naming the source file that printed it (gpu_resources.cc from
# 2022's phi backend on, platform/device_context.cc before): "W1214 22:26:55.333168  2780 gpu_resources.cc:61]
# Please NOTE: device: 0, GPU Compute Capability: 7.5, Driver API Version: 10.2, Runtime API Version: 10.2"; 1.x and
# early 2.0 say "CUDA Capability: 61". Runtime API Version is cudaRuntimeGetVersion() of the libcudart it loaded.
_PADDLE_RUNTIME = re.compile(r"(?:\b(\w{1,40}\.cc):\d{1,5}\]\s{1,3})?Please NOTE: device: \d{1,3}, "
                             r"(?:GPU Compute Capability: \d{1,2}\.\d|CUDA Capability: \d{2,3}), "
                             r"Driver API Version: \d{1,2}\.\d{1,2}, Runtime API Version: (\d{1,2}\.\d{1,2})\b")


def library_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """The loaded-NCCL, NCCL-package and paddle.version.show() shapes, as mentions."""
    yield from _paddle_show(lines, offset)
    for i, line in enumerate(lines):
        if "NVCC_GENCODE" in line:
            yield from _gencode(line, offset + i + 1)
        if "arch flags" in line:
            yield from _detectron2_archs(line, offset + i + 1)
        if "Runtime API Version" in line:
            runtime = _PADDLE_RUNTIME.search(line)
            if runtime:
                where = runtime.group(1) or ""
                yield Mention("paddle_runtime", runtime.group(2), offset + i + 1, MESSAGE,
                              f"PaddlePaddle start-up line{f' ({where})' if where else ''}", where)
        listed = _LS_CUDNN.match(line) if "libcudnn.so." in line else None
        if listed:
            # "-rw-r--r-- 1 root root 125136 Nov 22 08:48 /usr/lib/x86_64-linux-gnu/libcudnn.so.9.6.0" (ls -l of the
            # library folder; Steffenhir/GraXpert#205, a cuDNN 9.6.0 deb install): the cuDNN installed there
            yield Mention("cudnn", listed.group(1), offset + i + 1, TOOL, "ls: libcudnn.so." + listed.group(1))
            continue
        cudnn = _DPKG_CUDNN.match(line) if "libcudnn" in line else None
        if cudnn and cudnn.group(2).startswith(cudnn.group(1) + "."):
            yield Mention("cudnn", cudnn.group(2), offset + i + 1, TOOL, f"dpkg: libcudnn{cudnn.group(1)}")
            if cudnn.group(3):
                yield Mention("cudnn_package", cudnn.group(2), offset + i + 1, TOOL, f"dpkg: libcudnn{cudnn.group(1)}",
                              cudnn.group(3))
            continue
        rpm = _RPM_CUDNN.match(line) if "cudnn" in line else None
        if rpm and (rpm.group(1) is None or rpm.group(2).startswith(rpm.group(1) + ".")):
            yield Mention("cudnn", rpm.group(2), offset + i + 1, TOOL,
                          f"rpm: libcudnn{rpm.group(1)}" if rpm.group(1) else "rpm: cuda-cudnn")
            continue
        if not line or "nccl" not in line.lower():
            continue
        n = offset + i + 1
        yield from _nccl_runtime_lines(line, n)
        call = _NCCL_CALL.search(line)
        seen = _NCCL_SEEN.search(line) if call and not call.group(1) else None
        if seen:
            yield Mention("nccl_loaded", _nccl_value(seen.group(1)), n, MESSAGE, "torch.cuda.nccl.version()", "torch")
        elif call:
            if call.group(1):
                yield Mention("nccl_loaded", _nccl_value(call.group(1)), n, MESSAGE, "torch.cuda.nccl.version()",
                              "torch")
            else:
                # NOTE: a command printing several things ("print(torch.__version__); print(torch.cuda.nccl.version())")
                # answers each print on its own line, in order: the NCCL tuple is the answer of the call's own print
                k = max(line.count("print(", 0, call.start()) - 1, 0)
                outs = [j for j in range(i + 1, min(i + 3 + k, len(lines))) if lines[j].strip()]
                out = (outs[k], lines[outs[k]]) if len(outs) > k else None
                value = _nccl_value(out[1].strip()) if out is not None and _NCCL_OUT.match(out[1]) else ""
                if out is not None and value:
                    yield Mention("nccl_loaded", value, offset + out[0] + 1, TOOL, "torch.cuda.nccl.version()",
                                  "torch")
        banner = _NCCL_BANNER.search(line)
        if banner:
            yield Mention("nccl_loaded", banner.group(1), n, MESSAGE, "NCCL_DEBUG: NCCL version", banner.group(2) or "")
        tests = _NCCL_TESTS.search(line)
        if tests:
            yield Mention("nccl_loaded", parsers.decode_nccl_int(int(tests.group(1))) or "", n, MESSAGE,
                          "nccl-tests: nccl-library", "nccl-tests")
        dpkg = _DPKG_NCCL.match(line) or _RPM_NCCL.match(line)
        if dpkg:
            tool = "rpm" if dpkg.re is _RPM_NCCL else "dpkg"
            yield Mention("nccl_package", dpkg.group(2), n, TOOL, f"{tool}: {dpkg.group(1)}", dpkg.group(3))
            continue
        built = _NCCL_BUILT_FOR.search(line)
        if built and not _HEDGE.search(whole_words(line, built.start() - 32, built.end() + 32)):
            yield Mention("nccl_package", "", n, PROSE, "text: NCCL built for CUDA", built.group(1))


#: NCCL_DEBUG=INFO's "NCCL INFO cudaDriverVersion 12080" (NVIDIA/nccl src/init.cc): the newest CUDA the driver
#: supports, as cudaDriverGetVersion returns it (1000*major + 10*minor; pytorch/pytorch#152077 shows 12080).
_NCCL_DRIVER = re.compile(r"\bNCCL INFO cudaDriverVersion (\d{4,6})\b")


def _nccl_runtime_lines(line: str, n: int) -> Iterator[Mention]:
    """The NCCL a running program loaded, from the lines NCCL, torch and vLLM print about it."""
    driver = _NCCL_DRIVER.search(line) if "cudaDriverVersion" in line else None
    if driver:
        yield Mention("driver_cuda", parsers.decode_cuda_driver_int(int(driver.group(1))) or "", n, MESSAGE,
                      "NCCL_DEBUG: cudaDriverVersion")
    if not _NCCL_BANNER.search(line):
        for found in _NCCL_VERSION_STRING.finditer(line):
            yield Mention("nccl_loaded", found.group(1), n, MESSAGE, "NCCL version string", found.group(2))
            break
    said = _NCCL_VERSION_SAID.match(line)
    if said:
        value = f"{said.group(1)}.{said.group(2)}" if said.group(2) else said.group(1)
        yield Mention("nccl", value, n, PROSE, "text: NCCL version")
    torch_error = _TORCH_NCCL_ERROR.search(line)
    if torch_error:
        yield Mention("nccl_loaded", torch_error.group(1), n, MESSAGE, "torch NCCL error: NCCL version", "torch")
    vllm = _VLLM_NCCL.search(line)
    if vllm:
        yield Mention("nccl_loaded", vllm.group(1), n, MESSAGE, "vLLM pynccl: vLLM is using nccl", "vllm")


#: detectron2's collect_env (detectron2#1048, #235): "detectron2 arch flags     sm_75", "... 3.5, 5.0, 7.5+PTX" (the
#: architectures its CUDA ops were compiled for; facebookresearch/detectron2 detectron2/utils/collect_env.py).
_D2_ARCHS = re.compile(r"^\s{0,4}detectron2 arch flags\s{1,40}(\S.{0,200}?)\s*$")
_D2_ITEM = re.compile(r"^(?:(sm|compute)_(\d{2,3})|(\d{1,2})\.(\d)(\+PTX)?)$", re.IGNORECASE)


def _detectron2_archs(line: str, n: int) -> Iterator[Mention]:
    """The architectures detectron2's collect_env says its CUDA ops were built for, as NVCC targets."""
    found = _D2_ARCHS.match(line)
    if found is None:
        return
    targets: list[str] = []
    for item in re.split(r"[,\s]+", found.group(1).strip()):
        arch = _D2_ITEM.match(item)
        if arch is None:
            return  # not a list of architectures ("<not set>", an error): say nothing
        if arch.group(1):
            targets.append(f"{arch.group(1).lower()}_{arch.group(2)}")
        else:
            sm = f"{arch.group(3)}{arch.group(4)}"
            targets += [f"sm_{sm}"] + ([f"compute_{sm}"] if arch.group(5) else [])
    if targets:
        yield Mention("nvcc_gencode", " ".join(targets), n, TOOL, "detectron2 collect_env: arch flags", "detectron2")


def _gencode(line: str, n: int) -> Iterator[Mention]:
    """The targets a library was compiled for, from its NVCC_GENCODE make variable."""
    gencode = _NVCC_GENCODE.search(line)
    targets = archs.gencode_targets(gencode.group(1)) if gencode else ()
    if targets:
        library = "nccl-tests" if "nccl-tests" in line.lower() else "nccl"
        yield Mention("nvcc_gencode", " ".join(targets), n, MESSAGE, "make NVCC_GENCODE", library)


def _nccl_value(text: str) -> str:
    as_tuple = _TUPLE.match(text)
    if as_tuple:
        return ".".join(as_tuple.groups())
    match = _NCCL_OUT.match(text)
    if match and match.group(4):
        return parsers.decode_nccl_int(int(match.group(4))) or ""
    if match:
        return ".".join(g for g in match.groups()[:3] if g)
    return text if re.match(r"^\d\.\d{1,2}\.\d{1,2}$", text) else ""


def _paddle_show(lines: list[str], offset: int) -> Iterator[Mention]:
    for i, line in enumerate(lines):
        head = _SHOW_HEAD.match(line)
        if not head:
            continue
        seen: dict[str, tuple[int, str]] = {}
        for j in range(i + 1, min(i + 1 + _SHOW_SPAN, len(lines))):
            row = _SHOW_LINE.match(lines[j])
            if row is None:
                if lines[j].strip():
                    break
                continue
            seen.setdefault(row.group(1), (offset + j + 1, row.group(2).strip()))
        if "cuda" not in seen or "cudnn" not in seen:
            continue  # not paddle.version.show(): it always prints both
        how = "paddle.version.show()"
        if head.group(1) == "full_version":
            yield Mention("package", head.group(2), offset + i + 1, TOOL, how, "paddlepaddle")
        for key in ("cuda", "cudnn"):
            line_no, value = seen[key]
            if value.lower() == "false":
                yield Mention("paddle_cpu", value, line_no, TOOL, how)
            elif re.match(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,3})?$", value):
                yield Mention(f"paddle_{key}", value, line_no, TOOL, how)


def paddle_cudnn_banner(value: str) -> str:
    """PaddlePaddle prints cudnnGetVersion() as ``v / 1000 "." (v % 1000) / 100``, so cuDNN 9.1.0 (90100) reads
    "90.1" and 9.10.0 (91000) "91.0" (paddle/phi/backends/gpu/gpu_resources.cc); this undoes that."""
    major, _, minor = value.partition(".")
    if major.isdigit() and minor.isdigit() and int(major) >= 10:
        return f"{int(major) // 10}.{(int(major) % 10) * 10 + int(minor)}"
    return value


def from_signature(signature_id: str, groups: dict[str, str], line: int) -> Iterator[Mention]:
    """The cuDNN a framework's own start-up line reports loading (``cudnn_loaded`` of a fact-only banner)."""
    if signature_id == "paddle-cudnn-banner" and groups.get("cudnn_loaded"):
        yield Mention("cudnn_loaded", paddle_cudnn_banner(groups["cudnn_loaded"].strip()), line, MESSAGE,
                      f"message ({signature_id})", "paddle")


def without_claimed(mentions: list[Mention]) -> list[Mention]:
    """Drop the generic readings of lines a more specific shape claimed: "cuda: 11.2" / "cudnn: 8.2.1" of a
    paddle.version.show() block are the wheel's build, not the system's CUDA toolkit or cuDNN; Paddle's banner
    "cuDNN Version: 90.1." is cuDNN 9.1."""
    claimed = {m.line for m in mentions if m.kind in ("paddle_cuda", "paddle_cudnn", "paddle_cpu")}
    # "NCCL version 2.19.3+cuda11.0" names the CUDA NCCL was built with, not the system's CUDA.
    nccl_build = {m.line for m in mentions if m.kind == "nccl_loaded" and m.how == "NCCL version string"}
    out = []
    for m in mentions:
        if m.line in claimed and m.kind in ("cuda_text", "cudnn", "system_cuda") and m.how.startswith("field"):
            continue
        if m.line in nccl_build and m.kind == "cuda_text" and m.tier == PROSE:
            continue
        fixed = m.kind == "cudnn" and m.how == "message (paddle-cudnn-banner)"
        out.append(replace(m, value=paddle_cudnn_banner(m.value)) if fixed else m)
    return out



def _listed_package(m: Mention, default: str) -> str:
    """The system package a dpkg or rpm row names ("dpkg: libnccl2" → "libnccl2"), else ``default``."""
    return m.how.split(": ", 1)[1] if m.how.startswith(("dpkg: ", "rpm: ")) else default


def attach(snapshot: Snapshot, mentions: Iterable[Mention]) -> Snapshot:
    """The snapshot with the loaded libraries, NCCL packages and Paddle build facts the mentions give."""
    found = [m for m in mentions if m.value or m.kind == "nccl_package"]
    libs: list[SharedLibrary] = []
    for m in sorted((m for m in found if m.kind == "nccl_loaded"), key=lambda m: (-m.tier, m.line)):
        source = f"{LOADED_SOURCE}:{m.key}" if m.key in ("torch", "nccl-tests", "vllm") else LOADED_SOURCE
        # NCCL's own version string names the CUDA it was built with: kept as the version's local part.
        value = f"{m.value}+cuda{m.key}" if re.match(r"^\d{1,2}\.\d{1,2}$", m.key) else m.value
        twin = next((i for i, lib in enumerate(libs) if lib.name == "nccl" and lib.version
                     and lib.version.split("+")[0] == m.value), None)
        if twin is None:
            libs.append(SharedLibrary("nccl", "libnccl.so.2", m.source, source, value))
        elif "+" in value and "+" not in (libs[twin].version or ""):
            libs[twin] = replace(libs[twin], version=value)
    for m in sorted((m for m in found if m.kind == "nccl_package"), key=lambda m: (-m.tier, m.line)):
        package = _listed_package(m, "nccl")
        libs.append(SharedLibrary("nccl", "libnccl.so.2", m.source, package_source(package, m.key), m.value or None))
    for m in sorted((m for m in found if m.kind == "cudnn_package"), key=lambda m: (-m.tier, m.line))[:1]:
        # a cuDNN system package built for one CUDA ("libcudnn8 8.9.3.28-1+cuda12.1")
        major = m.value.split(".")[0]
        package = _listed_package(m, f"libcudnn{major}")
        libs.append(SharedLibrary("cudnn", f"libcudnn.so.{major}", m.source, package_source(package, m.key), m.value))
    for m in (m for m in found if m.kind == "cudnn_loaded"):
        major = m.value.split(".")[0]
        source = f"{LOADED_SOURCE}:{m.key}" if m.key else LOADED_SOURCE
        libs.append(SharedLibrary("cudnn", f"libcudnn.so.{major}", m.source, source, m.value))
    nccl = snapshot.nccl
    loaded_nccl = [lib for lib in libs if lib.name == "nccl" and lib.source.startswith(LOADED_SOURCE)]
    if isinstance(nccl, Unavailable) and loaded_nccl:
        nccl = (ComponentVersion((loaded_nccl[0].version or "").split("+")[0], loaded_nccl[0].path),)
    frameworks = _paddle_build(snapshot.frameworks, found)
    environment = _paddle_runtime(_built_for(snapshot.environment, found), found)
    if not libs and frameworks == snapshot.frameworks and environment == snapshot.environment:
        return snapshot
    # A version the report states once is one library: the row that knows it was loaded replaces the plain one.
    known = {(lib.name, lib.version) for lib in libs}
    kept = tuple(lib for lib in snapshot.libraries if lib.source != "report" or (lib.name, lib.version) not in known)
    return replace(snapshot, libraries=kept + tuple(libs), nccl=nccl, frameworks=frameworks,
                   environment=environment)


#: ``Snapshot.environment`` key of the targets a site-built NCCL (or nccl-tests) was compiled for, as read from the
#: report's NVCC_GENCODE, then the library and the report line: "sm_80 sm_90|nccl|report line 14: make NVCC_GENCODE"
#: (``rules.built_archs`` reads it).
GENCODE_KEY = "NVCC_GENCODE"


def _built_for(environment: Mapping[str, str], found: list[Mention]) -> Mapping[str, str]:
    """The report's first NVCC_GENCODE (a report states the build that failed before the rebuild that fixed it)."""
    gencode = sorted((m for m in found if m.kind == "nvcc_gencode"), key=lambda m: (-m.tier, m.line))
    if not gencode or GENCODE_KEY in environment:
        return environment
    return {**environment, GENCODE_KEY: stated(gencode[0].value, gencode[0].key, gencode[0].source)}


#: ``Snapshot.environment`` key of the CUDA runtime PaddlePaddle's start-up line reports, the source file that printed
#: it and the report line: "10.2|gpu_resources.cc|report line 5: PaddlePaddle start-up line (gpu_resources.cc)"
#: (``rules.paddle_cudnn`` reads it).
PADDLE_RUNTIME_KEY = "PADDLE_CUDA_RUNTIME"


def _paddle_runtime(environment: Mapping[str, str], found: list[Mention]) -> Mapping[str, str]:
    """The first Paddle start-up line's CUDA runtime (a later one may be the rebuilt environment)."""
    first = min((m for m in found if m.kind == "paddle_runtime"), key=lambda m: m.line, default=None)
    if first is None or PADDLE_RUNTIME_KEY in environment:
        return environment
    return {**environment, PADDLE_RUNTIME_KEY: stated(first.value, first.key, first.source)}


def _paddle_build(frameworks: tuple[FrameworkBuild, ...], found: list[Mention]) -> tuple[FrameworkBuild, ...]:
    """paddle.version.show()'s CUDA/cuDNN are the Paddle wheel's build (PaddlePaddle docs, paddle.version.show:
    "cuda/cudnn: the version the wheel uses; False for a CPU build"). Without a Paddle version in the report, the
    build is still a fact: its version is "not reported"."""
    by_kind = {m.kind: m for m in found if m.kind in ("paddle_cuda", "paddle_cudnn", "paddle_cpu")}
    if not by_kind:
        return frameworks
    cuda, cudnn, cpu = by_kind.get("paddle_cuda"), by_kind.get("paddle_cudnn"), by_kind.get("paddle_cpu")
    source = next(iter(by_kind.values())).source
    current = next((f for f in frameworks if f.name == "paddle"), None)
    accel = "cpu" if cpu is not None and cuda is None else "cuda" if cuda is not None else None
    if current is None:
        build = FrameworkBuild("paddle", "paddlepaddle-gpu" if accel == "cuda" else "paddlepaddle",
                               NOT_REPORTED.replace("-", " "), accel, cuda.value if cuda else None,
                               cudnn.value if cudnn else None, source=source)
        return (*frameworks, build)
    build = replace(current, accelerator=accel or current.accelerator,
                    cuda=cuda.value if cuda else current.cuda, cudnn=cudnn.value if cudnn else current.cudnn,
                    source=f"{current.source}; {source}")
    return tuple(build if f is current else f for f in frameworks)
