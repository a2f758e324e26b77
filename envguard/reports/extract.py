"""Extractors: each recognises one shape of text people paste and yields typed mentions.

An extractor never decides between two mentions (``resolve`` does) and never judges (``rules`` do). Every
pattern here is linear: anchored or bounded, and run on lines already cut to ``segment.MAX_LINE_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.probes import parsers
from envguard.reports.mentions import FIELD, MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import kept_for, sentences, whole_words
from envguard.snapshot import normalize_name, stated

_V = r"\d{1,4}(?:\.\d{1,6}){1,3}"
_VERSION = _V + r"(?:[+.][A-Za-z0-9_.]{1,40})?"

# ---- collect_env and issue-template fields ----------------------------------------------------------

#: collect_env's own keys (torch.utils.collect_env): tool output.
_COLLECT_ENV = {
    "pytorch version": "torch", "cuda used to build pytorch": "torch_cuda", "rocm used to build pytorch": "torch_rocm",
    "os": "os", "libc version": "libc", "python version": "python", "python platform": "platform",
    "is cuda available": "cuda_available", "cuda runtime version": "cuda_runtime",
    "gpu models and configuration": "gpus", "nvidia driver version": "driver", "cudnn version": "cudnn",
    "is debug build": "debug_build",
}
#: Issue-template and hand-written fields ("- TensorFlow version: 2.15", "### CUDA/cuDNN version").
_FIELDS = {
    "tensorflow version": "tf", "tensorflow version (use command below)": "tf", "tf version": "tf",
    "cuda/cudnn version": "cuda_cudnn", "gpu model and memory": "gpu_text",
    "os platform and distribution": "os", "os platform and distribution (e.g., linux ubuntu 16.04)": "os",
    "video card": "gpu_text", "graphics card": "gpu_text", "gpu": "gpu_text", "gpu model": "gpu_text",
    "gpu type": "gpu_text", "cuda version": "cuda_text", "cuda": "cuda_text", "cudnn": "cudnn",
    "cudnn version ": "cudnn", "driver version": "driver", "nvidia driver": "driver", "ld_library_path": "ld_library_path",
    "python": "python", "python version ": "python", "pytorch": "torch_field", "pytorch version ": "torch_field",
    "torch version": "torch_field", "torch": "torch_field", "jax version": "jax_field", "jaxlib version": "jaxlib_field",
    "what jax/jaxlib version are you using?": "jax_jaxlib",
    "paddle version": "paddle_field", "paddlepaddle version": "paddle_field", "paddle with cuda": "paddle_with_cuda",
    "os version": "os", "platform": "os", "cuda runtime": "cuda_text", "onnx runtime": "ort_field", "onnxruntime": "ort_field",
    # NOTE: microsoft/onnxruntime's issue form: "### ONNX Runtime Version or Commit ID" / "1.16.2", and "### Execution
    # Provider Library Version" / "CUDA 12.1" (the libraries of whichever provider the form names: only a value that
    # labels its CUDA or cuDNN is read)
    "onnx runtime version or commit id": "ort_field", "execution provider library version": "ep_libraries",
    "operating system": "os", "system": "os", "os": "os",
}
_FIELD_PREFIXES = (("tensorflow version", "tf"), ("python version", "python"), ("cuda/cudnn version", "cuda_cudnn"),
                   ("gpu model", "gpu_text"), ("os platform", "os"), ("nvidia driver", "driver"),
                   ("cuda version", "cuda_text"), ("cudnn version", "cudnn"), ("pytorch version", "torch_field"))
_KEY_LINE = re.compile(r"^\s{0,8}(?:[-*]\s{1,4})?\**([A-Za-z][A-Za-z0-9 /_().,'-]{0,60}?)\**\s{0,8}:\**\s{0,8}(.{0,400})$")
#: A bullet whose key and value a dash separates: "* PyTorch Version -1.5", "* OS -Windows" (a PyTorch learning
#: program's question template, tinkerhub/ComputerVision-with-PyTorch-Learning-Program#80).
_DASH_LINE = re.compile(r"^\s{0,8}[-*]\s{1,4}([A-Za-z][A-Za-z0-9 /_().,']{0,60}?)\s{1,8}-\s{0,8}(\S.{0,400})$")
#: The same without the bullet, the dash spaced on both sides: "TensorFlow version - 2.1.0", "CUDA/cuDNN version -
#: 10.1" (tensorflow/tensorflow#36776); "python -m pip" is no such line.
_DASH_LINE_BARE = re.compile(r"^\s{0,8}([A-Za-z][A-Za-z0-9 /_().,']{0,60}?)\s{1,8}-\s{1,8}(\S.{0,400})$")
#: A two-column Markdown table's row, a key and its value: "| **OS** | Windows 11 Pro |", "| CUDA runtime | 12.8 |"
#: (an "Environment" table, a shape of 2025-26 reports).
_KV_ROW = re.compile(r"^\s{0,3}\|\s{0,4}\**([A-Za-z][A-Za-z0-9 /_().,'-]{0,60}?)\**\s{0,4}\|\s{0,4}([^|]{1,400}?)\s{0,4}\|\s*$")
_MD_HEADER = re.compile(r"^\s{0,3}#{2,4}\s{1,4}(.{1,80}?)\s*$")
_GPU_ENUM = re.compile(r"^\s{0,8}GPU\s{1,4}(\d{1,3})\s{0,4}:\s{0,4}(.{1,120}?)\s*(?:\(UUID:.{0,80}\))?$")
_GPU_WORDS = re.compile(r"\b(?:rtx|gtx|tesla|quadro|titan|a100|h100|h200|h800|a800|b200|gb200|gh200|v100|t4|l4|l40s?|"
                        r"a10g?|a30|a40|k80|k40m?|p100|p40|geforce|jetson|orin|xavier|\d{4}\s?ti|[1-5]0[5-9]0|"
                        # NOTE: the rest of gpu-arch.toml's [[gpu]] names (tests/test_report_wave_bj checks that
                        # every name there is a GPU word): Blackwell B/GB parts, GB10 (DGX Spark), H20, L20, A16, A2
                        r"gb\d{2,3}|b[123]00|h20|l20|a16|a2)\b", re.IGNORECASE)
#: Placeholders, not values: collect_env prints "No CUDA" for the GPU, driver and cuDNN fields when CUDA is not
#: available (torch/utils/collect_env.py), and "Could not collect" when a probe failed.
_NOT_A_VALUE = ("n/a", "none", "could not collect", "unknown", "-", "", "no", "na", "not installed", "no cuda")


def _field(raw: str, table: dict[str, str]) -> str | None:
    key = " ".join(raw.lower().replace("*", "").split())
    if key in table:
        return table[key]
    if table is _FIELDS:
        return next((target for prefix, target in _FIELD_PREFIXES if key.startswith(prefix)), None)
    return None


#: Ultralytics' environment table (``yolo checks``, ultralytics.utils.checks.collect_system_info): a key, two or more
#: spaces, the value ("Python              3.11.2", "CUDA                None", "torch               ✅ 2.5.1>=1.8.0").
_ALIGNED = re.compile(r"^`?(OS|Python|CUDA|torch|torchvision|GPU)\s{2,40}(?:✅\s{0,2}|❌\s{0,2})?(\S.{0,200}?)\s*$")
_ALIGNED_KINDS = {"OS": "os", "Python": "python", "GPU": "gpu_text"}


def _aligned(lines: list[str], offset: int) -> Iterator[Mention]:
    """Ultralytics' aligned environment table, when at least three of its rows are there (a lone "Python  3.11"
    line is not that table)."""
    rows = [(i, m) for i, line in enumerate(lines) if (m := _ALIGNED.match(line))]
    if len(rows) < 3:
        return
    for i, m in rows:
        key, value = m.group(1), m.group(2)
        kind = _ALIGNED_KINDS.get(key)
        if key == "torch":
            # "torch  ✅ 2.5.0.dev20240726+cu121>=1.8.0": the installed version (with its local tag), then the floor
            version = re.match(r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.?(?:dev|a|b|rc)\d{1,10})?(?:\+[\w.]{1,20})?",
                               value.split(">=", 1)[0])
            if version:
                yield Mention("torch", version.group(0), offset + i + 1, TOOL, "ultralytics checks: torch")
            continue
        if kind is not None:
            yield from _value(kind, value, offset + i + 1, TOOL, f"ultralytics checks: {key}")


#: glog's line prefix (Caffe, TensorFlow's and Paddle's C++ logs): severity, date, time, thread, file:line and "]".
_GLOG_PREFIX = re.compile(r"^\s{0,4}[IWEF]\d{4}\s{1,2}\d\d:\d\d:\d\d\.\d{1,6}\s{1,8}\d{1,8}\s{1,2}[\w.-]{1,60}:\d{1,6}\]\s{1,4}")


def fields(lines: list[str], offset: int) -> Iterator[Mention]:
    """collect_env lines (TOOL) and template fields (FIELD), including collect_env's multi-line GPU/cuDNN lists
    and GitHub issue-form headers ("### TensorFlow version" followed by the value)."""
    yield from _aligned(lines, offset)
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        header = _MD_HEADER.match(line)
        if header:
            kind = _field(header.group(1), _FIELDS)
            if kind is not None:
                nxt = next((n for n in lines[i:i + 3] if n.strip()), "")
                if nxt and not _MD_HEADER.match(nxt):
                    yield from _value(kind, nxt.strip(), offset + i, FIELD, f"issue form: {header.group(1)}")
            continue
        glog = _GLOG_PREFIX.match(line)
        if glog:
            # a glog line ("I0404 10:13:38.892243 12760 caffe.cpp:457] CUDA version: 8000"): its message is the line
            line = line[glog.end():]
        match = _KEY_LINE.match(line)
        dashed = (_DASH_LINE.match(line) or _DASH_LINE_BARE.match(line)) if match is None else None
        row = _KV_ROW.match(line) if match is None and dashed is None and "|" in line else None
        match = match or dashed or row
        if not match:
            continue
        raw, value = match.group(1), match.group(2).replace("**", "").strip().strip("`*_ ")
        # NOTE: collect_env writes "Key: value"; a dash-separated bullet or a table's row is a hand-written field.
        kind, tier = (_field(raw, _COLLECT_ENV), TOOL) if dashed is None and row is None else (None, TOOL)
        if kind is None:
            kind, tier = _field(raw, _FIELDS), FIELD
        if kind is None:
            continue
        how = f"{'collect_env' if tier == TOOL else 'table' if row else 'field'}: {raw.strip()}"
        if kind in ("gpus", "cudnn") and (not value or value.lower().startswith("probably one of")):
            while i < len(lines) and (lines[i].strip().startswith("/") or _GPU_ENUM.match(lines[i])):
                extra = lines[i].strip()
                i += 1
                if kind == "gpus":
                    gpu = _GPU_ENUM.match(extra)
                    yield Mention("gpu", gpu.group(2) if gpu else extra, offset + i, tier, how)
                else:
                    version = parsers.version_from_soname(extra.rsplit("/", 1)[-1])
                    if version:
                        yield Mention("cudnn", version, offset + i, tier, f"{how} ({extra})")
            continue
        yield from _value(kind, value, offset + i, tier, how)


#: A version with its component named before it, inside one CUDA/cuDNN answer: "CUDA 11.2", "cuDNN = 8.1.0.77",
#: "cuda: 12.1", "CUDNN v8.9".
_LABELLED_VERSION = re.compile(r"\b(cudnn|cuda)\s{0,2}(?:version)?\s{0,2}[:=]?\s{0,2}v?(\d{1,2}\.\d{1,2}(?:\.\d{1,4}){0,2})",
                               re.IGNORECASE)


#: The newer archive name: its own version, then the CUDA major ("cudnn-windows-x86_64-8.6.0.163_cuda11-archive",
#: "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz").
_CUDNN_ARCHIVE_NEW = re.compile(r"\bcudnn-(?:windows|linux)-[\w]{3,8}-(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)_cuda(\d{2})"
                                r"-archive\b", re.IGNORECASE)
#: A Debian package version with NVIDIA's CUDA flavour: "8.9.3.28-1+cuda12.1" (version, then the CUDA).
_DEB_FLAVOUR = re.compile(r"\b(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)-\d{1,3}\+cuda(\d{1,2}\.\d{1,2})\b")
#: The mention kind of a cuDNN system package and the CUDA it was built for (key).
CUDNN_PACKAGE = "cudnn_package"


#: NVIDIA's cuDNN archive name: the CUDA it is for, then its own version ("cudnn-11.2-windows-x64-v8.1.0.77",
#: "cudnn-linux-x86_64-8.9.7.29_cuda12-archive" is the newer shape and names no CUDA minor).
_CUDNN_ARCHIVE = re.compile(r"\bcudnn-(\d{1,2}\.\d)-(?:windows|linux)[\w-]{0,20}?-v(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)",
                            re.IGNORECASE)


_JAX_PAIR = re.compile(r"\b(jaxlib|jax)\s{0,2}(?:==?|:|\s)\s{0,2}v?(\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.?(?:dev|rc)\d{1,10})?(?:\+[\w.]{1,30})?)",
                       re.IGNORECASE)


_FIELD_CC = re.compile(r"compute capability\s{0,2}[:=]?\s{0,2}(\d{1,2}\.\d)\b", re.IGNORECASE)


def _value(kind: str, value: str, line: int, tier: int, how: str) -> Iterator[Mention]:
    value = value.strip().strip("`'\"").strip()
    if value.lower() in _NOT_A_VALUE:
        if kind == "torch_cuda" and value.lower() in ("none", "could not collect"):
            # collect_env prints torch.version.cuda through replace_nones(): None -> "Could not collect".
            yield Mention("torch_cuda_none", value, line, tier, how)
        return
    if kind == "gpus":
        gpu = _GPU_ENUM.match(value)
        yield Mention("gpu", gpu.group(2) if gpu else value, line, tier, how)
    elif kind == "gpu_text":
        if _GPU_WORDS.search(value):
            name = re.split(r",\s{0,4}\d{1,4}\s{0,2}(?:GB|MB|GiB|MiB)|\s\(\d|,\s{0,4}compute capability"
                            r"|\s\((?:\w{1,20},\s{0,2})?compute capability", value, maxsplit=1)[0]
            # "GeForce 960M, compute capability: 5.0" (tensorflow/tensorflow#38971's template answer)
            cc = _FIELD_CC.search(value)
            yield Mention("gpu", name.strip(), line, tier, how, f"|{cc.group(1)}" if cc else "")
    elif kind == "cudnn" and re.search(r"[/\\]", value):
        # NOTE: collect_env's "cuDNN version: /usr/local/cuda-9.0/targets/x86_64-linux/lib/libcudnn.so.7" (it
        # prints the library it found when it cannot run it): the file's soname says the cuDNN, never the
        # folder's "cuda-9.0" (pytorch/pytorch#20844's collect_env)
        name = re.split(r"[/\\]", value)[-1]
        version = parsers.version_from_soname(name)
        major = re.fullmatch(r"(?:lib)?cudnn(?:64_|\.so\.)(\d{1,2})(?:\.dll)?", name)
        if version:
            yield Mention("cudnn", version, line, tier, how)
        elif major:
            yield Mention(CUDNN_MAJOR, major.group(1), line, tier, f"{how} (the library's soname)")
    elif kind == "cudnn":
        found = re.search(r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?", value)
        if found:
            yield Mention("cudnn", found.group(0), line, tier, how)
        elif re.fullmatch(r"\d{4,5}", value):
            # torch.backends.cudnn.version()'s integer: 8902 -> 8.9.2, 90100 -> 9.1.0 (cudnn.h CUDNN_VERSION)
            yield Mention("cudnn", parsers.decode_cudnn_int(int(value)) or "", line, tier, how)
    elif kind == "cuda_cudnn":
        # NOTE: a Debian package version names the CUDA the package was built for ("8.9.3.28-1+cuda12.1", the
        # libcudnn8 of NVIDIA's repository; tensorflow/tensorflow's form answered "11.8.0-1/8.9.3.28-1+cuda12.1"):
        # that CUDA is the cuDNN package's, not the system's
        packaged = [(number, cuda) for number, cuda in _DEB_FLAVOUR.findall(value)
                    if re.match(r"[5-9]\.\d{1,2}\.\d", number)]
        for number, cuda in packaged:
            yield Mention("cudnn", number, line, tier, how)
            yield Mention(CUDNN_PACKAGE, number, line, tier, how, cuda)
        if packaged:
            value = _DEB_FLAVOUR.sub(lambda m: "" if m.group(1) == packaged[0][0] else m.group(1), value)
        labelled = {label.lower(): number for label, number in _LABELLED_VERSION.findall(value)}
        archive = _CUDNN_ARCHIVE.search(value)
        if archive:
            labelled = {"cuda": archive.group(1), **labelled, "cudnn": archive.group(2)}
        if labelled:
            # "cuDNN = 8.1.0.77" alone names no CUDA (tensorflow/tensorflow#58790); "CUDA 11.2 / cuDNN 8.1" both.
            if "cuda" in labelled:
                yield Mention("system_cuda", labelled["cuda"], line, tier, how)
            if "cudnn" in labelled:
                yield Mention("cudnn", labelled["cudnn"], line, tier, how)
            return
        versions = re.findall(r"\d{1,2}\.\d{1,2}(?:\.\d{1,4})?", value)
        if versions:
            yield Mention("system_cuda", versions[0], line, tier, how)
        if len(versions) > 1:
            yield Mention("cudnn", versions[1], line, tier, how)
    elif kind == "ep_libraries":
        for label, number in _LABELLED_VERSION.findall(value):
            yield Mention("cudnn" if label.lower() == "cudnn" else "system_cuda", number, line, tier, how)
    elif kind == "jax_jaxlib":
        # jax's old issue template: "What jax/jaxlib version are you using?" / "jax==0.3.17 and jaxlib==0.3.14",
        # "jax v0.4.1, jaxlib v0.4.1", "jax 0.4.13 jaxlib 0.4.13+cuda12.cudnn89".
        for name, number in _JAX_PAIR.findall(value):
            yield Mention("package", number, line, tier, how, name.lower())
    elif kind == "paddle_with_cuda":
        # paddle.utils.summary_env / Paddle's issue form: "Paddle With CUDA: True" (a GPU build) or "False"; a
        # hand-filled form may answer with the CUDA itself ("paddle with cuda: 10.2", PaddlePaddle/Paddle#44140)
        if value.lower() in ("true", "false"):
            yield Mention(kind, value.lower(), line, tier, how)
        elif re.fullmatch(r"\d{1,2}\.\d", value):
            yield Mention(kind, "true", line, tier, how)
            yield Mention("paddle_cuda", value, line, tier, how)
    elif kind == "cuda_text" and re.fullmatch(r"\d{1,2}0\d0", value):
        # CUDA's own integer (cudaRuntimeGetVersion, a CUDA_VERSION macro): 8000 -> 8.0, 11020 -> 11.2
        yield Mention(kind, parsers.decode_cuda_driver_int(int(value)) or "", line, tier, how)
    elif kind in ("tf", "torch_field", "jax_field", "jaxlib_field", "paddle_field", "ort_field", "cuda_text", "python",
                  "driver"):
        found = re.search(_VERSION if kind in ("torch_field", "tf") else _V, value)
        if found:
            target = {"torch_field": "torch", "jax_field": "package", "jaxlib_field": "package",
                      "paddle_field": "package", "ort_field": "package"}.get(kind, kind)
            key = {"jax_field": "jax", "jaxlib_field": "jaxlib", "paddle_field": "paddlepaddle",
                   "ort_field": "onnxruntime"}.get(kind, "")
            yield Mention(target, found.group(0), line, tier, how, key)
    else:
        yield Mention(kind, value, line, tier, how)


# ---- package listings -------------------------------------------------------------------------------

_INTERESTING = re.compile(
    r"^(?:torch|torchvision|torchaudio|pytorch|pytorch-cuda|tensorflow(?:-cpu|-gpu|-intel|-macos|-metal)?|tf-nightly|"
    r"tensorflow-io-gcs-filesystem|jax|jaxlib|jax-cuda1[23]-(?:plugin|pjrt)|paddlepaddle(?:-gpu)?|nvidia-[a-z0-9-]{1,40}|"
    r"cuda-toolkit|cudatoolkit|cuda-version|cuda-runtime|cudnn|nccl|onnxruntime(?:-gpu)?|xformers|triton|"
    r"pytorch-lightning|lightning|ultralytics|vllm|flash-attn|bitsandbytes|numpy|"
    # NOTE: the GPU stack around the frameworks, so that a listing of only these is not "no facts"
    r"transformers|diffusers|accelerate|deepspeed|ctranslate2|faster-whisper|tensorrt|tensorrt-llm|mmcv|mmcv-full|"
    r"detectron2|horovod|keras|tf-keras|sglang|cupy-cuda\d{2,3}x?|cupy)$"
)
_UV_INCLUDED = re.compile(r"`([A-Za-z0-9][\w.-]{0,60})` \(v(\d[\w.+!-]{0,40})\) was included because `([A-Za-z0-9][\w.-]{0,60})`"
                          r" \(v(\d[\w.+!-]{0,40})\) depends on")
_PIP_EQ = re.compile(r"^(?:\[(?:pip3?|conda|uv)\]\s{1,8})?([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{0,4}==\s{0,4}(\S{1,60})\s"
                     r"*$")
#: conda list rows: name, version, build, then the channel and labels ("[cpuonly]") conda may print.
_CONDA_ROW = re.compile(r"^(?:\[conda\]\s{1,8})?([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{1,60}(\d[\w.+!-]{0,40})\s{1,60}(\S{1,80})"
                        r"(?:\s{1,60}\S{1,60}){0,3}\s*$")
#: (pip list -v adds the location and the installer: a path, never a word: "pytorch 1.9 support" is an issue title.)
_PIP_LIST = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{1,60}(\d[\w.+!-]{0,40})(?:\s{1,60}(?:[/~.\\]|[A-Za-z]:[\\/]).{0,200})?$")
#: pixi list rows: name, version, build, size, kind ("conda" / "pypi") and the file: "libtorch  2.3.1
#: cpu_mkl_h0bb0d08_100  47.5 MiB  conda  libtorch-2.3.1-cpu_mkl_h0bb0d08_100.conda" (pixi's own list command).
_PIXI_ROW = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{1,60}(\d[\w.+!-]{0,40})\s{1,60}(\S{1,80})\s{1,60}"
                       r"\d[\d.]{0,8}\s{1,2}[KMG]i?B\s{1,60}(conda|pypi)\b")
#: conda-forge's libtorch is the library its pytorch package wraps, built in the same variant and version
#: ("libtorch 2.3.1 cpu_mkl_..." beside "pytorch 2.3.1 cpu_mkl_..."): in a conda listing it tells the build as well.
_CONDA_TORCH_NAMES = ("pytorch", "libtorch")
_CONDA_CUDA = re.compile(r"cuda_?(\d{1,2})\.?(\d)")
_CONDA_BUILD_SHAPE = re.compile(r"[\d_]")
_CONDA_CPU_BUILD = re.compile(r"(?:^|_)cpu(?:_|$)")
#: A JSON object's "name": "version" line, as InvokeAI's "Python dependencies" issue-form answer lists its
#: environment ('"torch"       : "2.6.0+cu124" ,', invoke-ai/InvokeAI#9323's listing has the same shape).
_JSON_DEPENDENCY = re.compile(r'^"([A-Za-z][A-Za-z0-9._-]{0,60})"\s{0,40}:\s{0,4}"(\d[\w.+!-]{0,40})"\s{0,40},?$')
#: The interpreter's version in a conda list row (CPython 3.x; PyPy lists itself as "pypy").
_CONDA_PYTHON = re.compile(r"3\.\d{1,2}\.\d{1,3}$")


#: The pytorch channel's CPU mutex packages (``conda install pytorch cpuonly -c pytorch``; "cpu-only" before 1.2).
_CONDA_CPU_MUTEX = frozenset({"cpuonly", "cpu-only"})
#: The pytorch channel's nightly package of 2018-2019 ("pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0"): a pytorch.
_CONDA_NIGHTLY = frozenset({"pytorch-nightly"})
#: conda's transaction listing: "  jaxlib   conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1".
_CONDA_PLAN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{1,40}[\w.-]{1,60}(?:/[\w-]{1,30})?::([A-Za-z0-9._-]{1,60}?)-"
                         r"(\d[\w.+!]{0,40})-(\S{1,80})\s*$")


#: conda's "The following packages will be downloaded" table: "pytorch-1.12.1 | py3.8_cpu_0  133.8 MB  pytorch"
#: (pytorch/pytorch#92273's plan).
_CONDA_DOWNLOAD = re.compile(r"^([A-Za-z0-9][\w.-]{0,60}?)-(\d[\w.+!]{0,40})\s{1,30}\|\s{0,30}(\S{1,80})\s{1,30}"
                             r"\d[\d.]{0,8}\s{0,2}[KMG]B\b")


def _pytorch_build_string(build: str, n: int, cpu: bool) -> Iterator[Mention]:
    """What a conda pytorch build string says of the build: its CUDA ("py3.8_cuda11.3_cudnn8.2.0_0"), or the CPU
    build (``cpu``: how the caller's table shape marks one)."""
    cuda = _CONDA_CUDA.search(build)
    if cuda:
        yield Mention("torch_cuda", f"{cuda.group(1)}.{cuda.group(2)}", n, TOOL, "conda build string")
    elif cpu:
        yield Mention("torch_cuda_none", build, n, TOOL, "conda build string")


def packages(lines: list[str], offset: int) -> Iterator[Mention]:
    """pip freeze / pip list / uv pip list / pip show / conda list / collect_env "[pip3]" and "[conda]" lines."""
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or len(text) > 400:
            continue
        n = offset + i + 1
        match = _PIP_EQ.match(text)
        if match and _INTERESTING.match(normalize_name(match.group(1))):
            yield Mention("package", match.group(2), n, TOOL, "pip freeze", normalize_name(match.group(1)))
            continue
        match = _CONDA_PLAN.match(text)
        if match and normalize_name(match.group(1)) in _CONDA_CPU_MUTEX:
            # NOTE: the pytorch channel's CPU mutex ("cpuonly", earlier "cpu-only") is what makes conda pick a CPU
            # pytorch: in a transaction it says the pytorch installed is the CPU build
            yield Mention("torch_cuda_none", match.group(1), n, TOOL, "conda transaction: CPU mutex package")
            continue
        if match and normalize_name(match.group(1)) in _CONDA_NIGHTLY:
            match = _CONDA_PLAN.match(text.replace(match.group(1), "pytorch", 1).replace("::pytorch-nightly-",
                                                                                         "::pytorch-", 1))
        if match and _INTERESTING.match(normalize_name(match.group(1))):
            name, build = normalize_name(match.group(1)), match.group(4)
            yield Mention("package", match.group(3), n, TOOL, "conda transaction", name)
            # NOTE: conda's plan names the build string: "py3.8_cpu_0" (pytorch channel), "cpu_py310h…" (conda-forge)
            if name in ("pytorch", "jaxlib", "tensorflow") and _CONDA_CPU_BUILD.search(build.lower()):
                yield Mention(f"{'torch' if name == 'pytorch' else name}_cuda_none", build, n, TOOL,
                              "conda build string")
            continue
        match = _CONDA_DOWNLOAD.match(text)
        if match and _INTERESTING.match(normalize_name(match.group(1))):
            name, build = normalize_name(match.group(1)), match.group(3)
            yield Mention("package", match.group(2), n, TOOL, "conda transaction (download table)", name)
            if name == "pytorch":
                yield from _pytorch_build_string(build, n, _CONDA_CPU_BUILD.search(build.lower()) is not None)
            continue
        match = _PIXI_ROW.match(text)
        if match and match.group(4) == "conda" and normalize_name(match.group(1)) in _CONDA_TORCH_NAMES:
            yield Mention("package", match.group(2), n, TOOL, "pixi list", "pytorch")
            yield from _pytorch_build_string(match.group(3), n, "cpu" in match.group(3).lower())
            continue
        match = _CONDA_ROW.match(text)
        if match and match.group(1) == "python" and _CONDA_PYTHON.match(match.group(2)) and "==" not in text:
            # conda lists the interpreter itself ("python  3.9.13  haa1d7c7_1"): the environment's Python
            yield Mention("python", match.group(2), n, TOOL, "conda list: python")
            continue
        if match and not _CONDA_BUILD_SHAPE.search(match.group(3)):
            match = None  # NOTE: a build string has a digit or an underscore ("h2828fa1_19", "pypi_0"): not a word
        if match and _INTERESTING.match(normalize_name(match.group(1))) and "==" not in text:
            name, build = normalize_name(match.group(1)), match.group(3)
            yield Mention("package", match.group(2), n, TOOL, "package list", name)
            if name == "pytorch":
                yield from _pytorch_build_string(build, n, "cpu" in build.lower())
            continue
        match = _PIP_LIST.match(text) if "(you have " not in text else None  # xformers' "built for" detail line
        if match and _INTERESTING.match(normalize_name(match.group(1))):
            yield Mention("package", match.group(2), n, TOOL, "pip list", normalize_name(match.group(1)))
            continue
        match = _JSON_DEPENDENCY.match(text)
        if match:
            name = normalize_name(match.group(1))
            if name == "python" and _CONDA_PYTHON.match(match.group(2)):
                yield Mention("python", match.group(2), n, TOOL, "dependency listing (JSON): python")
            elif _INTERESTING.match(name):
                yield Mention("package", match.group(2), n, TOOL, "dependency listing (JSON)", name)
            continue
        if text.lower().startswith("name:") and i + 1 < len(lines):
            nxt = lines[i + 1].strip()
            pkg = text.split(":", 1)[1].strip()
            if nxt.lower().startswith("version:") and _INTERESTING.match(normalize_name(pkg)):
                yield Mention("package", nxt.split(":", 1)[1].strip(), n, TOOL, f"pip show {pkg}", normalize_name(pkg))


# ---- tool outputs -----------------------------------------------------------------------------------

_JAX_INFO = re.compile(r"^\s{0,4}(jax|jaxlib|numpy|python)\s{0,4}:\s{0,4}(\d[\w.+]{0,40})")


_CONDA_VIRTUAL_CUDA = re.compile(r"^\s{0,40}(?:virtual packages\s{0,4}:\s{0,4})?__cuda=(\d{1,2}\.\d{1,2})=\w{1,8}\s*$")


def tools(lines: list[str], offset: int) -> Iterator[Mention]:
    """nvidia-smi (table, -L, --query-gpu CSV, --version), nvcc --version, cudnn_version.h, /proc driver version,
    jax.print_environment_info()."""
    text = "\n".join(lines)
    smi = parsers.parse_nvidia_smi_table(text)
    if smi is not None:
        n = _line_of(lines, "NVIDIA-SMI", offset)
        if smi.driver_version:
            yield Mention("driver", smi.driver_version, n, TOOL, "nvidia-smi table")
        if smi.cuda_version:
            yield Mention("driver_cuda", smi.cuda_version, n, TOOL, "nvidia-smi table")
        for gpu in smi.gpus:
            yield Mention("gpu", gpu.name, n, TOOL, "nvidia-smi table", f"{gpu.memory_total_mib or ''}|")
    nvcc = parsers.parse_nvcc_version(text)
    if nvcc is not None:
        yield Mention("cuda_runtime", nvcc[1] or nvcc[0], _line_of(lines, "Cuda compilation tools", offset), TOOL,
                      "nvcc --version")
    if "__cuda=" in text:
        # conda info's "virtual packages : __cuda=11.2=0": the CUDA the installed driver supports, as conda detects it
        for i, line in enumerate(lines):
            virtual = _CONDA_VIRTUAL_CUDA.match(line)
            if virtual:
                yield Mention("driver_cuda", virtual.group(1), offset + i + 1, TOOL, "conda info: __cuda")
    for gpu in parsers.parse_nvidia_smi_list(text):
        yield Mention("gpu", gpu.name, _line_of(lines, gpu.name, offset), TOOL, "nvidia-smi -L")
    if "," in text:
        for gpu in parsers.gpus_from_query_csv(text, "nvidia-smi --query-gpu"):
            yield Mention("gpu", gpu.name, _line_of(lines, gpu.name, offset), TOOL, "nvidia-smi --query-gpu",
                          stated(str(gpu.memory_total_mib or ""), gpu.compute_capability or ""))
        driver = parsers.driver_from_query_csv(text)
        if driver:
            yield Mention("driver", driver, _line_of(lines, driver, offset), TOOL, "nvidia-smi --query-gpu")
    _smi, driver, cuda = parsers.parse_nvidia_smi_version(text)
    if driver:
        yield Mention("driver", driver, _line_of(lines, driver, offset), TOOL, "nvidia-smi --version")
    if cuda and (_smi or driver):
        # NOTE: only with the rest of nvidia-smi --version ("NVIDIA-SMI version", "DRIVER version"): a lone "CUDA
        # version: 12.4" is a report's own field (the CUDA wanted, a toolkit), not the driver's (pytorch#147953)
        yield Mention("driver_cuda", cuda, _line_of(lines, "CUDA Version", offset), TOOL, "nvidia-smi --version")
    cudnn = parsers.parse_cudnn_version_header(text, patch_required=False)
    if cudnn is not None:
        yield Mention("cudnn", cudnn, _line_of(lines, "CUDNN_MAJOR", offset), TOOL, "cudnn_version.h")
    proc = parsers.parse_proc_driver_version(text)
    if proc is not None:
        yield Mention("kernel_module", proc[0], _line_of(lines, "NVRM", offset), TOOL, "/proc/driver/nvidia/version")
    for i, line in enumerate(lines):
        match = _JAX_INFO.match(line)
        if match and match.group(1) in ("jax", "jaxlib"):
            yield Mention("package", match.group(2), offset + i + 1, TOOL, "jax.print_environment_info",
                          match.group(1))


def _line_of(lines: list[str], needle: str, offset: int) -> int:
    return offset + next((i + 1 for i, line in enumerate(lines) if needle in line), 1)


# ---- banners, commands, file names, image tags, environment lines -----------------------------------

#: Ultralytics/YOLOv5 start-up banners: "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu", "Ultralytics 8.3.109
#: 🚀 Python-3.11.0 torch-2.6.0+cpu CPU (...)" (8.1+ dropped "YOLOv"), "YOLOv5 🚀 v6.2-109-g23701ea Python-3.8.13
#: torch-1.12.1+cpu CPU", "YOLOv5  2022-4-22 torch 1.11.0+cpu CPU" (no Python), and 2020's "Using torch 1.6.0 CPU".
_YOLO = re.compile(r"\b(?:Ultralytics\s{1,4}(?:YOLOv?)?\d{1,2}[\w.]{0,20}|YOLOv?\d{1,2}[\w.]{0,20})\s{1,4}(?:\S{1,4}\s{1,4})?"
                   r"(?:(?!Python-|torch)[\w.-]{1,40}\s{1,4})?(?:Python-(\d\.\d{1,2}\.\d{1,3})\s{1,4})?"
                   r"torch[- ](\d[\w.+]{1,40})(?:\s{1,4}(CPU|CUDA:\d{1,2}))?(?:\s{1,4}\(([^,()]{1,80}),\s{0,4}(\d{1,7})\s{0,2}MiB\))?"
                   r"|^\s{0,8}Using torch (\d\.\d{1,2}\.\d{1,2}(?:\+\w{1,12})?) (CPU|CUDA:\d{1,2})")
_BANNER_DEVICE = re.compile(r"\bCUDA:(\d{1,2})\s{0,4}\(([^,()]{1,80}?),\s{0,4}(\d{1,7})\s{0,2}Mi?B\)")
_FOUND_VERSION = re.compile(r"found version (\d{4,5})\b")
_PROC_LINE = re.compile(r"NVRM version:.{0,120}?(?:Kernel Module|Module for \S{1,40})\s{1,8}(\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_DRIVER_PACKAGE = re.compile(r"\bnvidia-(?:driver|utils|dkms|kernel-source|compute-utils)-(\d{3})(?:-\w{1,20})?(?::\w{1,10})?"
                             r"\s{1,20}(?:\(|\[)?(\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_CONDA_CREATE = re.compile(r"\bconda\s{1,4}create\b.{0,200}?\bpython\s{0,2}=\s{0,2}=?(3\.\d{1,2}(?:\.\d{1,3})?)")
_PIP_INSTALL = re.compile(r"\b(?:pip3?|uv\s{1,4}pip|python3?\s{1,4}-m\s{1,4}pip)\s{1,4}install\b(.{0,600})")
_REQ = re.compile(r"(?<![\w./-])([A-Za-z][A-Za-z0-9._-]{0,60})(?:\[[\w,-]{1,40}\])?\s{0,2}={2,3}\s{0,2}['\"]?(\d[\w.+!-]{0,40})")
_INDEX_CU = re.compile(r"/whl/(?:nightly/)?(cu\d{3}|cpu|rocm[\d.]{1,8})\b")
#: pip told to look only at one index ("--index-url URL", "-i URL"), with nothing added ("--extra-index-url",
#: "-f/--find-links" add the default index or a page); a nightly index is another matter (pre-releases).
_ONLY_INDEX = re.compile(r"(?:--index-url|(?<![\w-])-i)[\s=]{1,4}\S{0,80}/whl/cu\d{3}\b")
_MORE_INDEXES = re.compile(r"--extra-index-url|--find-links|(?<![\w-])-f\s|/nightly/|--pre\b")
#: Mention kind: the CUDA variant of the PyTorch index a pip command used as its only index.
ONLY_INDEX = "pip_only_index"
#: pip finding no torch at all: "No matching distribution found for torch" (no pin), or an empty list.
_NO_TORCH = re.compile(r"No matching distribution found for torch(?![\w=<>~!.\[-])|requirement torch "
                       r"\(from versions: none\)")
#: Mention kind: that pip line.
NO_TORCH = "pip_no_torch"
_WHEEL = re.compile(r"\b(torch|torchvision|torchaudio|tensorflow(?:_cpu|_gpu)?|jaxlib|jax_cuda1[23]_plugin|"
                    r"paddlepaddle(?:_gpu)?)-(\d[\w.+!]{0,40}?)-(cp3\d{1,2})t?-[\w]{1,20}-(\w[\w.]{0,80})\.whl\b",
                    re.IGNORECASE)
#: pip's resolver taking a pinned requirement: "Collecting nvidia-nccl-cu12==2.19.3 (from torch)" ...
_COLLECTING_PIN = re.compile(r"^\s{0,8}Collecting\s{1,4}([A-Za-z][A-Za-z0-9._-]{0,60})(?:\[[\w,-]{1,60}\])?"
                             r"={2,3}(\d[\w.+!]{0,40})(?=\s|$)")
#: ... and fetching it: "  Downloading https://.../nvidia_nccl_cu12-2.19.3-py3-none-manylinux1_x86_64.whl", "  Using cached".
_FETCHED = re.compile(r"^\s{1,8}(?:Downloading|Using cached)\s")
_NOT_INSTALLABLE = re.compile(r"Could not find a version that satisfies the requirement\s{1,4}"
                              r"([A-Za-z][A-Za-z0-9._-]{0,60})\s{0,2}(?:==\s{0,2}(\d[\w.+!-]{0,40}))?")
_ENV_LINE = re.compile(r"^\s{0,8}(?:export\s{1,4}|ENV\s{1,4}|-\s{0,4}|\"?)?([A-Z][A-Z0-9_]{2,40})\s{0,2}[=:]\s{0,2}\"?"
                       r"(\d[\w.+-]{0,40})\"?\s*$")
#: The start-up banner of NVIDIA's CUDA images (nvidia/cuda, and images built on them): "== CUDA ==", then "CUDA
#: Version 12.1.1" alone on its line, then "Container image Copyright (c) 2016-2023, NVIDIA CORPORATION" (its
#: entrypoint's nvidia_entrypoint.sh): the image's CUDA toolkit. nvidia-smi's "CUDA Version: 12.2" has a colon.
_CUDA_IMAGE_BANNER = re.compile(r"^\s{0,4}CUDA Version (\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s*$")
_CUDA_IMAGE_MARK = re.compile(r"^\s{0,4}== CUDA ==|Container image Copyright \(c\) \d{4}-\d{4},? NVIDIA")
#: A cell of a box-drawn KEY VALUE table: jetson-containers' build banner prints "│ L4T_VERSION   35.6.2  │
#: JETPACK_VERSION  5.1.5 │" (dusty-nv/jetson-containers issues).
_ENV_CELL = re.compile(r"^\s{0,4}([A-Z][A-Z0-9_]{2,40})\s{1,12}(\d[\w.+-]{0,40})\s{0,40}$")
_ENV_KINDS = {
    "CUDA_VERSION": "image_cuda", "NV_CUDA_LIB_VERSION": "image_cuda", "CUDA_DRIVER_VERSION": "driver",
    "PYTHON_VERSION": "python", "CUDNN_VERSION": "cudnn", "NV_CUDNN_VERSION": "cudnn", "NCCL_VERSION": "nccl",
    "NV_LIBNCCL_PACKAGE_VERSION": "nccl", "PYTORCH_VERSION": "torch", "TORCH_VERSION": "torch",
    "TENSORFLOW_VERSION": "tf", "TF_VERSION": "tf", "JETPACK_VERSION": "jetpack", "L4T_VERSION": "l4t",
    "NVIDIA_DRIVER_VERSION": "driver",
}
# Container images: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-devel, nvidia/cuda:12.3.2-cudnn9-runtime-ubuntu22.04,
# tensorflow/tensorflow:2.15.0-gpu, nvcr.io/nvidia/pytorch:24.05-py3 (the NGC release is kept as a mention).
_IMG_PYTORCH = re.compile(r"\bpytorch/pytorch:(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)-cuda(\d{1,2}\.\d{1,2})-cudnn(\d{1,2})")
_IMG_CUDA = re.compile(r"\bnvidia/cuda:(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)-(?:cudnn(\d{1,2})-)?(?:base|runtime|devel)")
_IMG_TF = re.compile(r"\btensorflow/tensorflow:(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(-gpu)?")
#: The moving GPU tags (tensorflow/tensorflow:latest-gpu, latest-gpu-jupyter, nightly-gpu): a GPU build, release not
#: in the tag.
_IMG_TF_MOVING_GPU = re.compile(r"\btensorflow/tensorflow:(latest|nightly|devel)-gpu\b")
#: Paddle's images: paddlepaddle/paddle:2.4.2-gpu-cuda10.2-cudnn7.6-trt7.0 (PaddleX install docs, Paddle's Docker
#: list); the bare tag is taken only with its TensorRT suffix, the shape of Paddle's release tags.
_IMG_PADDLE = re.compile(r"(paddle:|(?<![\w.:/-]))(\d\.\d{1,2}\.\d{1,2})-gpu-cuda(\d{1,2}\.\d)-cudnn\d{1,2}(?:\.\d{1,2})?(-trt\d{1,2}(?:\.\d{1,2})?)?")
#: NGC's framework containers: nvcr.io/nvidia/<name>:YY.MM-<variant> (pytorch:24.05-py3, tensorflow:21.10-tf2-py3,
#: tritonserver:21.10-py3-sdk); not nvcr.io/nvidia/cuda, whose tags are CUDA releases (12.4.1-...).
_IMG_NGC = re.compile(r"\bnvcr\.io/nvidia/(?!cuda:)([a-z][\w.-]{1,40}):(\d{2}\.\d{2})-[\w.-]{0,40}")
#: "JetPack 4.6.1", "Jetpack Version: 5.1.2", a bare major ("JetPack 6", "Jetpack<6": the comparator kept), "L4T R32.7.1".
#: (ASCII word edges: "我的Xavier是JETPACK5.1.5" has a CJK letter right before it, which \b counts as a word character.)
_JETSON = re.compile(r"(?<![0-9A-Za-z_])(?:JetPack|Jetpack|JETPACK)(?:\s{1,2}Version)?(?:\W{0,6}(\d\.\d(?:\.\d)?)|"
                     r"\s{0,2}([<>]=?)?\s{0,2}(\d)(?![\d.]))|(?<![0-9A-Za-z_])L4T\s{0,2}:?\s{0,2}R?(\d{2}\.\d(?:\.\d)?)")
#: The interactive interpreter's banner: "Python 3.7.5 (default, Oct 25 2019, 15:51:11)" / "... on linux".
_REPL = re.compile(r"^Python (3\.\d{1,2}\.\d{1,3})(?:[a-z]{1,2}\d{0,2})?\+? \((?:[^()]{0,120})\)")
_REPL_OS = re.compile(r"^\[[^\]]{1,200}\](?: :: [\w ,.]{1,60})? on (linux|win32|darwin)\s*$")
#: Debian/Ubuntu package pins of NVIDIA's repositories: "libnccl2=2.9.8-1+cuda10.2", "libcudnn8=8.9.7.29-1+cuda12.2".
_APT_PIN = re.compile(r"\blib(nccl2|nccl-dev|cudnn\d{1,2}(?:-dev)?)=(\d{1,2}\.\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)-\d{1,3}\+cuda(\d{1,2}\.\d{1,2})")
_LD = re.compile(r"LD_LIBRARY_PATH\s{0,2}[:=]\s{0,2}(\S{1,400})")


#: TensorFlow's cuda_diagnostics.cc after a failed cuInit: "libcuda reported version is: 384.111.0" (the user-space
#: driver library it loaded; its "kernel reported version is: 384.90.0" is the loaded module), tensorflow#1158.
_TF_LIBCUDA = re.compile(r"\blibcuda reported version is: (\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b")


def _driver_of_tf(text: str) -> str:
    """TensorFlow prints a driver version as integers ("515.43.4", "384.111.0"); the driver's own form is
    "515.43.04" / "384.111"."""
    parts = text.split(".")
    if len(parts) == 3 and parts[2] == "0":
        return ".".join(parts[:2])
    return ".".join(parts[:2] + [p.zfill(2) for p in parts[2:]])


def messages_and_commands(lines: list[str], offset: int) -> Iterator[Mention]:
    """Banners (YOLO/ultralytics), driver messages, driver packages, install commands and their errors, wheel file
    names, container image tags, KEY=VALUE environment lines, Jetson releases."""
    for i, line in enumerate(lines):
        if not line:
            continue
        n = offset + i + 1
        yolo = _YOLO.search(line)
        if yolo:
            if yolo.group(1):
                yield Mention("python", yolo.group(1), n, MESSAGE, "YOLO banner")
            yield Mention("package", yolo.group(2) or yolo.group(6), n, MESSAGE, "YOLO banner", "torch")
            if (yolo.group(3) or yolo.group(7)) == "CPU":
                yield Mention("device_cpu", "CPU", n, MESSAGE, "YOLO banner")
        for match in _BANNER_DEVICE.finditer(line):
            yield Mention("gpu", match.group(2).strip(), n, MESSAGE, "banner", f"{match.group(3)}|")
        found = _FOUND_VERSION.search(line)
        if found and "driver" in line.lower():
            yield Mention("driver_cuda", parsers.decode_cuda_driver_int(int(found.group(1))) or "", n, MESSAGE,
                          f"found version {found.group(1)}")
        proc = _PROC_LINE.search(line)
        if proc:
            yield Mention("kernel_module", proc.group(1), n, TOOL, "/proc/driver/nvidia/version")
        for included in _UV_INCLUDED.finditer(line) if "was included because" in line else ():
            # uv's resolver explains what it installs: "`nvidia-cudnn-cu12` (v9.10.2.21) was included because
            # `torch` (v2.8.0) depends on `nvidia-cudnn-cu12`"
            for name, version in ((included.group(1), included.group(2)), (included.group(3), included.group(4))):
                if _INTERESTING.match(normalize_name(name)):
                    yield Mention("package", version, n, MESSAGE, "uv: was included because", normalize_name(name))
        banner = _CUDA_IMAGE_BANNER.match(line)
        if banner and any(_CUDA_IMAGE_MARK.search(near) for near in lines[max(i - 4, 0):i + 6]):
            yield Mention("image_cuda", banner.group(1), n, TOOL, "nvidia/cuda image banner")
        package = _DRIVER_PACKAGE.search(line)
        if package:
            yield Mention("driver_package", package.group(2), n, TOOL, "driver package")
        libcuda = _TF_LIBCUDA.search(line)
        if libcuda:
            yield Mention("driver_package", _driver_of_tf(libcuda.group(1)), n, MESSAGE,
                          "TensorFlow's CUDA diagnostics: libcuda reported version")
        ld = _LD.search(line)
        if ld and not ld.group(1).startswith("$"):
            yield Mention("ld_library_path", ld.group(1).strip("'\""), n, FIELD, "LD_LIBRARY_PATH")
        elif "LD_LIBRARY_PATH" in line and "echo" in line and i + 1 < len(lines) and lines[i + 1].strip():
            yield Mention("ld_library_path", lines[i + 1].strip(), n + 1, TOOL, "echo $LD_LIBRARY_PATH")
        repl = _REPL.match(line)
        if repl:
            yield Mention("python", repl.group(1), n, TOOL, "Python banner")
        repl_os = _REPL_OS.match(line)
        if repl_os:
            yield Mention("os", {"win32": "Windows", "darwin": "macOS"}.get(repl_os.group(1), "Linux"), n, TOOL,
                          "Python banner")
        for pin in _APT_PIN.finditer(line):
            yield Mention("nccl" if pin.group(1).startswith("nccl") else "cudnn", pin.group(2), n, MESSAGE,
                          f"apt package lib{pin.group(1)} (built for CUDA {pin.group(3)})")
        conda = _CONDA_CREATE.search(line)
        if conda:
            yield Mention("python", conda.group(1), n, MESSAGE, "conda create")
        install = _PIP_INSTALL.search(line)
        if install:
            args = install.group(1)
            j = i
            # NOTE: a command continued with backslashes ("pip install jax==0.4.27 \" / "jaxlib==0.4.27+cuda12... \")
            # is one command: its requirements and index options on the following lines count too (at most 12)
            while lines[j].rstrip().endswith("\\") and j + 1 < len(lines) and j - i < 12:
                j += 1
                args = f"{args.rstrip().removesuffix(chr(92))} {lines[j].strip()}"
            for req in _REQ.finditer(args):
                name = normalize_name(req.group(1))
                if _INTERESTING.match(name):
                    yield Mention("requested", req.group(2), n, MESSAGE, "pip install", name)
            index = _INDEX_CU.search(args)
            if index:
                yield Mention("requested_variant", index.group(1), n, MESSAGE, "pip install --index-url")
                if _ONLY_INDEX.search(args) and not _MORE_INDEXES.search(args) \
                        and re.search(r"(?<![\w-])torch(?![\w-])", args):
                    # the PyTorch index is the only place pip looks: what it holds is all pip can offer
                    yield Mention(ONLY_INDEX, index.group(1), n, MESSAGE, "pip install --index-url (the only index)")
        collecting = _COLLECTING_PIN.match(line) if "Collecting" in line else None
        if collecting and _INTERESTING.match(name := normalize_name(collecting.group(1))) and \
                any(_FETCHED.match(lines[j]) for j in range(i + 1, min(i + 3, len(lines)))):
            # pip resolved this pin and fetched it (the next line downloads it or takes it from the cache)
            yield Mention("package", collecting.group(2), n, MESSAGE, "pip: Collecting", name)
        if _NO_TORCH.search(line):
            yield Mention(NO_TORCH, line.strip()[:160], n, MESSAGE, "pip: no torch")
        missing = _NOT_INSTALLABLE.search(line)
        if missing and missing.group(2):
            yield Mention("requested", missing.group(2), n, MESSAGE, "pip: no matching distribution",
                          normalize_name(missing.group(1)))
        # NOTE: pip's "Downloading https://download.pytorch.org/whl/nightly/cu121/torch-2.3.0.dev20240108%2Bcu121-...whl"
        # writes the wheel's local-version "+" URL-encoded
        for wheel in _WHEEL.finditer(line.replace("%2B", "+").replace("%2b", "+") if "%2" in line else line):
            name = normalize_name(wheel.group(1))
            yield Mention("package", wheel.group(2), n, MESSAGE, "wheel file name", name)
            tag = wheel.group(3)
            yield Mention("python", f"3.{tag[3:]}", n, MESSAGE, "wheel file name")
            yield Mention("wheel_platform", wheel.group(4).lower(), n, MESSAGE, "wheel file name")
        env = _ENV_LINE.match(line)
        cells = [env] if env else [_ENV_CELL.match(cell) for cell in line.split("\u2502")] if "\u2502" in line else []
        for cell in cells:
            if cell and cell.group(1) in _ENV_KINDS:
                kind = _ENV_KINDS[cell.group(1)]
                yield Mention(kind if kind not in ("torch", "tf") else "package", cell.group(2), n, FIELD,
                              cell.group(1), {"torch": "torch", "tf": "tensorflow"}.get(kind, ""))
        yield from _images(line, n)
        yield from _cupy_wheels(line, n)
        for archive in _LIBTF.finditer(line) if "libtensorflow" in line else ():
            # the TensorFlow C library's archives: "libtensorflow-gpu-windows-x86_64-2.11.0.zip"
            gpu, system = archive.group(1).lower() == "gpu", archive.group(2).lower()
            yield Mention("package", archive.group(3), n, MESSAGE, "libtensorflow archive name",
                          "tensorflow-gpu" if gpu else "tensorflow")
            yield Mention("os", {"windows": "Windows", "darwin": "macOS"}.get(system, "Linux"), n, MESSAGE,
                          "libtensorflow archive name")
        jetson = _JETSON.search(line)
        if jetson:
            jetpack = jetson.group(1) or (f"{jetson.group(2) or ''}{jetson.group(3)}" if jetson.group(3) else None)
            yield Mention("jetpack" if jetpack else "l4t", jetpack or jetson.group(4), n, MESSAGE, "Jetson release")


#: CuPy's wheels are named for the CUDA they need: cupy-cuda92 / cupy-cuda100 (one CUDA minor), cupy-cuda11x /
#: cupy-cuda12x (a CUDA major); a pip listing row ("cupy-cuda12x  13.0.0"), a requirement or a name in a sentence.
_CUPY = re.compile(r"(?<![\w.-])cupy[-_]cuda(\d{2,3}|1\dx)(?![\w.])", re.IGNORECASE)
#: A listing row or a requirement line: the name at the start of the line.
_CUPY_ROW = re.compile(r"^\s{0,4}(?:\[(?:pip3?|conda)\]\s{1,4})?cupy[-_]cuda", re.IGNORECASE)


#: The TensorFlow C library's release archives (tensorflow.org/install/lang_c):
#: libtensorflow-{cpu,gpu}-{linux,windows,darwin}-{x86_64,arm64}-X.Y.Z.{tar.gz,zip}.
_LIBTF = re.compile(r"\blibtensorflow-(cpu|gpu)-(linux|windows|darwin)-(?:x86_64|arm64)-(\d{1,2}\.\d{1,2}\.\d{1,2})"
                    r"\.(?:zip|tar\.gz)\b", re.IGNORECASE)


def _cupy_wheels(line: str, n: int) -> Iterator[Mention]:
    if "cupy" not in line.lower():
        return
    if _CUPY_ROW.match(line):
        found = _CUPY.search(line)
        if found:
            yield Mention("cupy_wheel", found.group(1).lower(), n, TOOL, f"package cupy-cuda{found.group(1).lower()}")
        return
    for sentence in sentences(line):
        # NOTE: "CuPy installed in the container is `cupy-cuda92` ... Could you change it to install `cupy-cuda100`?"
        # (googlecolab/colabtools#409): a question or a hedge names the wheel wanted, not the one installed
        found = next((f for f in _CUPY.finditer(sentence) if hedge_free(sentence, f)), None)
        if found and not sentence.rstrip().endswith("?") and not ASKED_FOR.search(sentence[:found.start()]):
            yield Mention("cupy_wheel", found.group(1).lower(), n, PROSE, "text (CuPy wheel)")
            return


def _images(line: str, n: int) -> Iterator[Mention]:
    for m in _IMG_PYTORCH.finditer(line):
        yield Mention("package", m.group(1), n, MESSAGE, f"image pytorch/pytorch:{m.group(1)}", "torch")
        yield Mention("torch_cuda", m.group(2), n, MESSAGE, "image tag")
        yield Mention("image_cudnn_major", m.group(3), n, MESSAGE, "image tag")
    for m in _IMG_CUDA.finditer(line):
        yield Mention("image_cuda", m.group(1), n, MESSAGE, f"image nvidia/cuda:{m.group(1)}")
    for m in _IMG_TF.finditer(line):
        yield Mention("package", m.group(1), n, MESSAGE, f"image tensorflow/tensorflow:{m.group(1)}",
                      "tensorflow")
        if m.group(2):
            yield Mention("tf_gpu_image", m.group(1), n, MESSAGE, "image tag")
    for m in _IMG_TF_MOVING_GPU.finditer(line):
        yield Mention("tf_gpu_image", m.group(1), n, MESSAGE, f"image tag tensorflow/tensorflow:{m.group(0)[22:]}")
    for m in _IMG_PADDLE.finditer(line):
        if m.group(1) or m.group(4):
            yield Mention("package", m.group(2), n, MESSAGE, f"image tag {m.group(0).removeprefix('paddle:')}",
                          "paddlepaddle-gpu")
            yield Mention("paddle_cuda", m.group(3), n, MESSAGE, "image tag")
    for m in _IMG_NGC.finditer(line):
        yield Mention("ngc", f"{m.group(1)}:{m.group(2)}", n, MESSAGE, f"image nvcr.io/nvidia/{m.group(1)}")


# ---- prose ------------------------------------------------------------------------------------------

#: A sentence that negates, conditions or hypothesises states no fact about the user's machine.
_HEDGE = re.compile(
    r"\b(?:no|not|n't|never|without|if|would|should|could|instead of|rather than|supposed to|wheels?|"
    r"supports?|supported|requires?|required|needs?|available|only|e\.g|for example|such as)\b|n't\b",
    re.IGNORECASE,
)
#: Characters around a version in which a hedge word takes the fact back ("Python 3.10 has no wheels").
_HEDGE_WINDOW = 32
#: Where a clause ends inside a sentence: a hedge beyond it is about another clause ("the runtime reports PyTorch
#: 2.9.1+cpu, and the web UI shows no CUDA support": the "no" does not take the version back; "tensorflow 2.15.0 and cuda
#: 11.8, the GPU is not found": a new subject after a comma starts another clause).
_CLAUSE_END = re.compile(r",\s{0,2}(?:and|but|while|whereas|so|the|i|it|my|we|they|which)\b|;|\s(?:but|whereas)\s",
                         re.IGNORECASE)
def _named(names: str, number: str, *, hyphenated: bool = False) -> re.Pattern[str]:
    """A framework or component named in a sentence, then its version: "torch 2.1", "PyTorch version is 2.1.0",
    "tf-nightly release `2.4.0`", "Paddle: 2.4.2", "cuDNN v8.0.5", "python==3.11"; Chinese reports' "版本" (version):
    "paddle版本1.8", "CUDA版本为11.2", "cudnn版本 8.1", "cuda使用10.2", with a full-width colon or 为/是/使用 (bounded, so linear); a list's
    "my python version - 3.9" (ultralytics/ultralytics#487); "the cuda version of my laptop is 12.1" (what it is on a
    machine, not a wish: tensorflow/tensorflow's template answers). "CUDA/cuDNN version - 10.1" is not cuDNN's (the
    template's combined field; tensorflow/tensorflow#36776)."""
    # NOTE: ``hyphenated``: "cudnn-7.6.5" as a user writes it; only three parts and nothing after them, since the
    # number after "cudnn-" in NVIDIA's old archive names is the CUDA ("cudnn-10.2-windows10-x64-v7.6.5.32",
    # "cudnn-9.0-linux-x64-v7.1.tgz"); not for the names image and wheel names carry ("tensorflow-2.15.0-gpu")
    hyphen = r"|-(?=v?\d{1,2}\.\d{1,2}\.\d{1,3}(?![\d.-]))" if hyphenated else ""
    return re.compile(rf"(?<![A-Za-z0-9_])(?<![Cc][Uu][Dd][Aa]/)(?:{names})`?\s{{0,2}}(?:version|release|ver\.?|的?版本)?\s{{0,2}}"
                      rf"(?:(?:of|on|in)\s{{1,2}}(?:my|the|this|our)\s{{1,2}}(?:laptop|machine|system|computer|pc|server|"
                      rf"environment|env|container|box|cluster|node)\s{{1,2}})?(?:is\s{{1,2}}|[:=：]{{1,2}}\s{{0,2}}|(?:[为是]|使用|用的是|装的是|安装的是)\s{{0,2}}|-\s{{1,2}}{hyphen})?`?v?"
                      rf"({number})(?![0-9A-Za-z_])", re.IGNORECASE)  # NOTE: not \b: "cuda装的是10.0版本" (CJK after it)


#: (Not right after "+": "mmcv-full==latest+torch1.5.0+cu101" is a version tag naming the torch a build is for.)
_P_TORCH = _named(r"(?<!\+)(?:py)?torch", r"\d\.\d{1,2}(?:\.\d{1,2})?(?:\+\w{1,20})?")
_P_TF = _named(r"tensorflow(?:-gpu)?|tf-nightly|tf", r"\d\.\d{1,2}(?:\.\d{1,2})?")
_P_JAX = re.compile(r"(?<![\w.-])(jaxlib|jax)\s{0,2}(?:version\s{0,2})?(?:is\s{1,2}|to\s{1,2}|[:=]{1,2}\s{0,2}|v)?(0\.\d{1,2}\.\d{1,3})\b", re.IGNORECASE)
_P_PADDLE = _named(r"paddle(?:paddle)?(?:[-_]?gpu)?", r"\d\.\d{1,2}(?:\.\d{1,2})?(?:\.post\d{2,3})?")
_P_CUDA = _named(r"cuda(?:\s{0,2}toolkit)?", r"\d{1,2}\.\d")
_P_CUDA_INT = re.compile(r"\bCUDA\s{0,2}(?:version\s{0,2})?(\d{2}0\d0)\b")
_P_CU = re.compile(r"\b(?:built for|compiled (?:for|with)|wheels? (?:for|of))\s{0,2}(?:CUDA\s{0,2})?cu(\d{2,3})\b", re.IGNORECASE)
_P_CUDNN = _named("cudnn", r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?", hyphenated=True)
#: cuDNN by its major alone: "cudnn9", "cuDNN 9", "cudnn v8" (not an image tag's "-cudnn8-", not "cudnn 8.9").
_P_CUDNN_MAJOR = re.compile(r"(?<![A-Za-z0-9_./:-])cudnn\s{0,2}v?([5-9])(?![\w.]|\.\d)", re.IGNORECASE)
CUDNN_MAJOR = "cudnn_major"
#: CUDA by its major alone: "I want to use CUDA 10", "incompatible with cuda9" (not "CUDA 10.2", not "cuda:0", not a
#: range or list of majors, "CUDA 9 and 10", which names no one CUDA).
_P_CUDA_MAJOR = re.compile(r"(?<![A-Za-z0-9_./:-])cuda[\s-]{0,2}v?(7|8|9|1[0-3])(?![\w.:/+-]|\.\d|\s{0,2}(?:and|or|&|/|,)\s{0,2}"
                           r"(?:cuda\s{0,2})?\d)", re.IGNORECASE)
CUDA_MAJOR = "cuda_major"
_P_PYTHON = _named("python", r"3\.\d{1,2}(?:\.\d{1,3})?")
#: "Colaboratory decided to upgrade its VM's TF version from 2.1 to 2.2-rc1" (tensorflow/tensorflow#37968): the
#: version after "to" is the one in use.
#: "we've pinned torch to `2.5.1`", "downgraded pytorch to 1.13.1", "switched TF to 2.15": the release set, in use.
#: Right before a CUDA version: a driver version and an opening parenthesis ("driver 580.159 (CUDA 13.0)").
_DRIVER_THEN_PAREN = re.compile(r"\bdriver\s{0,2}(?:version\s{0,2})?[:=]?\s{0,2}v?[3-6]\d{2}(?:\.\d{1,3}){0,2}\**\s{0,2}\(\s{0,2}$",
                                re.IGNORECASE)
_P_SET_TO = re.compile(r"\b(?:pinned|pinning|downgraded|downgrading|upgraded|upgrading|updated|switched|reverted|"
                       r"rolled\s{1,2}back)\s{1,2}(?:the\s{1,2}|my\s{1,2}|our\s{1,2})?(tf|tensorflow|torch|pytorch)"
                       r"(?:\s{1,2}version)?\s{1,2}to\s{1,2}[`'\"]?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\+\w{1,20})?)(?![\w.])",
                       re.IGNORECASE)
_P_UPGRADED = re.compile(r"(?<![\w.-])(tf|tensorflow|torch|pytorch)(?:'s)?\s{1,2}(?:version\s{1,2})?from\s{1,2}[`'\"]?v?"
                         r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\+\w{1,20})?[`'\"]?\s{1,2}to\s{1,2}[`'\"]?v?"
                         r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:-?rc\d{1,2}|\+\w{1,20})?)", re.IGNORECASE)
#: "CuDNN version 8.1 is required but only version 8.0.5 is loaded" (googlecolab/colabtools#2600): the cuDNN a
#: build needs and the one that loads, TensorFlow's "Loaded runtime CuDNN library" message said in words.
_P_CUDNN_NEEDED = re.compile(r"\bcudnn\s{0,2}(?:version\s{1,2})?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s{1,2}is\s{1,2}"
                             r"(?:required|needed),?\s{1,2}but\s{1,2}(?:only\s{1,2})?(?:version\s{1,2})?v?"
                             r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s{1,2}(?:is|was)\s{1,2}(?:loaded|installed|found)",
                             re.IGNORECASE)
#: The same said in Chinese: "cuda9需要7.3的cudnn" + a full-width comma + "我本机上是7.1" ("CUDA 9 needs cuDNN 7.3, my
#: machine has 7.1", PaddlePaddle/Paddle#21752): the requirement, then what the machine has.
_P_CUDNN_NEEDED_ZH = re.compile(r"需要\s{0,2}(?:cudnn\s{0,2})?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s{0,2}(?:版本)?\s{0,2}"
                                r"(?:的\s{0,2})?(?:cudnn)?[，,;；]\s{0,4}(?:但是?|而|可是)?\s{0,2}(?:我的?)?\s{0,2}"
                                r"(?:本机|机器|电脑|本地|环境)上?\s{0,2}(?:的\s{0,2})?(?:cudnn\s{0,2})?(?:版本\s{0,2})?"
                                r"(?:是|为|:)\s{0,2}v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)", re.IGNORECASE)
#: "i have upgraded to python 3.13 ..., but can not install pytorch 2.4.1" (pytorch/pytorch#137853).
_P_CANNOT_INSTALL = re.compile(r"\b(?:can\s?not|can't|unable to|fail(?:ed|s)? to|couldn't|could not)\s{1,2}(?:pip\s{1,2})?"
                               r"install\s{1,2}(?:py)?torch\s{0,2}(?:==|v)?\s{0,2}(\d\.\d{1,2}(?:\.\d{1,2})?)\b",
                               re.IGNORECASE)
#: What a failed or attempted install asked for, right before the version: "fails to install torch==2.6.0+cu121",
#: "the script attempts to hardcode the download of `torch==2.6.0+cu121`" (stemdeckapp/stemdeck#644).
ASKED_FOR = re.compile(r"\b(?:fail(?:ed|s)?|attempt(?:s|ed|ing)?|tr(?:y|ies|ied|ying)|can\s?not|can't|unable|couldn't|"
                       r"could\s{1,2}not)\b[^.;]{0,50}?\b(?:install|download)(?:s|ed|ing)?(?:\s{1,2}of)?\s{1,2}"
                       r"(?:pip\s{1,2})?[`'\"]?$", re.IGNORECASE)


_ASIDE = re.compile(r"\([^()]{0,200}(?:\)|$)")
_NEGATED_ASIDE = re.compile(r"\(\s{0,2}(?:no|not|never|without|n't)\b", re.IGNORECASE)


def in_clause(sentence: str, found: re.Match[str]) -> str:
    """The match with up to :data:`_HEDGE_WINDOW` characters on each side, cut at the ends of its clause: where a
    hedge word counts for it ("reports PyTorch 2.9.1+cpu, and the web UI shows no CUDA" does not take it back)."""
    before = whole_words(sentence, found.start() - _HEDGE_WINDOW, found.start())
    cuts = list(_CLAUSE_END.finditer(before))
    before = before[cuts[-1].end():] if cuts else before
    # NOTE: an aside in parentheses after the version is about something else ("python 3.12 (though not sure if
    # the python version is relevant), but ...", m-bain/whisperX: its "not" does not take the 3.12 back), unless it
    # opens with the negation ("CUDA 11.8 (not installed)"); the window counts the words after it instead
    after = _ASIDE.sub(lambda m: m.group(0) if _NEGATED_ASIDE.match(m.group(0)) else " ",
                       sentence[found.end():found.end() + _HEDGE_WINDOW + 200])
    after = whole_words(after, 0, _HEDGE_WINDOW)
    cut = _CLAUSE_END.search(after)
    return before + found.group(0) + (after[:cut.start()] if cut else after)


#: The hedges that take back only what follows them: "I installed tensorflow-gpu==2.5.0 instead of tensorflow" states
#: the tensorflow-gpu it names first (serengil/deepface#235), "instead of torch 2.1 I use 2.0" does not state 2.1.
_TAKES_BACK_WHAT_FOLLOWS = frozenset({"instead of", "rather than"})


def hedge_free(sentence: str, found: re.Match[str]) -> bool:
    """Whether no hedge word in the match's clause takes the version back (see :func:`in_clause`)."""
    clause = in_clause(sentence, found)
    if sentence.rstrip().endswith("?"):
        # NOTE: "Can I use cudatoolkit==11.7.0 instead of cudatoolkit==11.1.1 ?" asks; it states neither
        return _HEDGE.search(clause) is None
    end = clause.find(found.group(0)) + len(found.group(0))
    return all(h.group(0).lower() in _TAKES_BACK_WHAT_FOLLOWS and h.start() >= end for h in _HEDGE.finditer(clause))


def asked_for(sentence: str, start: int) -> bool:
    """Whether the version at ``sentence[start:]`` is what a failed or attempted install asked for."""
    return ASKED_FOR.search(sentence[max(0, start - 100):start]) is not None


#: Right after a Python version: what it was upgraded or changed to ("升级到3.14", " to 3.12", " -> 3.11").
_P_MOVED_TO = re.compile(r"\s{0,2}(?:升级到|升级为|升到|换成|换到|->|→|to)\s{0,2}(?:python\s{0,2})?(3\.\d{1,2}(?:\.\d{1,3})?)(?![0-9A-Za-z_])",
                         re.IGNORECASE)
#: How that sentence's requirement is labelled (reports.resolve keeps it apart from a framework's own message).
CUDNN_REQUIRED_HOW = "text (cuDNN required)"
#: "When I run nccl 2.4.2 across multiple nodes" (NVIDIA/nccl's tracker): NCCL's own three-part version.
_P_NCCL = _named("nccl", r"2\.\d{1,2}\.\d{1,2}")
#: "driver 535.104.05", "driver version is 550.54", and Chinese reports' "驱动555.85" / "驱动版本为 470.82" (driver);
#: "Updating driver from version 461.40 to 526.47 fix the issue": the driver of the report's failure is the first.
_P_DRIVER = re.compile(r"(?:\bdriver\s{0,2}(?:from\s{1,2}(?:version\s{1,2})?(?=\d{3}\.\d{2,3}(?:\.\d{2})?\s{1,2}to\s)|"
                       r"version\s{0,2}(?:is\s{1,2})?:?\s{0,2}|is\s{1,2})?|驱动(?:版本)?(?:[为是:：]\s{0,2})?\s{0,2}"
                       # "`nvidia-smi` shows 396.26, which doesn't support CUDA 10" (NVIDIA/k8s-device-plugin#97)
                       r"|\bnvidia-smi`?\s{1,2}(?:shows|says|reports|gives|prints|displays)\s{1,2}"
                       r"(?:(?:the\s{1,2})?driver\s{1,2})?(?:version\s{1,2})?)"
                       r"(?:\()?(\d{3}\.\d{2,3}(?:\.\d{2})?)\b", re.IGNORECASE)
#: A driver named by its branch alone: "my NVIDIA driver is 430" (GeekAlexis/FastMOT#89), "driver version: 535".
_P_DRIVER_BRANCH = re.compile(r"\b(?:NVIDIA\s{1,2})?driver\s{0,2}(?:version\s{0,2})?(?:is\s{1,2}|:\s{0,2}|=\s{0,2})?"
                              r"([3-6]\d\d)(?!\d|\.\d)", re.IGNORECASE)
#: (Not inside a URL or a path: "nccl_utils.py#L35" is a line anchor, "/T4/" a folder; "gpu==V100" is a value.)
#: The capability the writer states right after the name: "an RTX 5000 series GPU (compute capability 12.0)"
#: (tensorflow/tensorflow issue form, 2025), or as NVIDIA's CUDA GPUs table row: "GeForce GT 740M | 3.0"
#: (pytorch/pytorch#14681), or after it: "dual GeForce 780M with a compute capability 3.0" (iperov/DeepFaceLab#264).
STATED_CC = re.compile(r"\s{0,2}(?:series\s{1,2})?(?:gpus?\s{0,2})?(?:\(\s{0,2}(?:with\s{1,2})?(?:compute\s{1,2}capability|cc|arch)"
                        r"\s{0,2}[:=]?\s{0,2}(\d{1,2}\.\d)\s{0,2}\)|\|\s{0,2}(\d{1,2}\.\d)\s*$"
                        r"|,?\s{1,2}with\s{1,2}(?:a\s{1,2})?compute\s{1,2}capability(?:\s{1,2}of)?\s{1,2}(\d{1,2}\.\d)\b)",
                        re.IGNORECASE)


def stated_cc(found: re.Match[str] | None) -> str:
    """A GPU mention's key for the capability STATED_CC found beside its name ("|12.0"), "" when none."""
    return f"|{found.group(1) or found.group(2) or found.group(3)}" if found else ""


_P_GPU = re.compile(
    r"(?<![#/._\\-])(?<![A-Za-z0-9_])((?:NVIDIA\s{1,2})?(?:GeForce\s{1,2})?(?:RTX|GTX)(?:\s{0,2}|-)(?:PRO\s{1,2})?\d{3,4}\s{0,2}(?:Ti|SUPER|D|Laptop GPU|"
    r"Ada Generation|Ada(?![\w-]))?"
    r"|(?:NVIDIA\s{1,2})?(?:Tesla\s{1,2})?(?:[AHBLTVKP]\d{1,3}[a-z]{0,2}(?!\.\d)|GB\d{2,3}|GH\d{3})(?:[- ](?:SXM\d?|PCIE|PCIe|NVL))?"
    r"(?:[- ]\d{2,3}\s{0,1}GB)?"
    r"|(?:NVIDIA\s{1,2})?(?:Quadro|TITAN)\s{1,2}[A-Z]{0,3}\s{0,1}\d{0,4}"
    r"|(?i:tesla|nvidia)\s{1,2}(?i:[AHBLTVKP]\d{1,3}(?:[a-z]{1,2})?)(?![0-9A-Za-z_]|\.\d)"
    r"|(?i:jetson)\s{1,2}(?i:agx\s{1,2})?(?i:orin|xavier)(?:\s{1,2}(?i:nano|nx))?"
    r"|(?i:jetson)\s{1,2}(?i:nano|tx[12])(?:\s{1,2}(?i:nx))?|(?i:agx)\s{1,2}(?i:orin|xavier)"
    r"|(?i:orin|xavier)\s{1,2}(?i:nano|nx)|TX[12]"
    r"|\d{4}\s?[Tt][Ii])(?![0-9A-Za-z_])"
)
_GPU_HYPHEN = re.compile(r"^((?:NVIDIA\s{1,2})?(?:GeForce\s{1,2})?(?:RTX|GTX))-(?=\d)")
#: (ASCII word edges, not \b: "在win10下" has CJK letters on both sides, which \b counts as word characters.)
_P_OS = re.compile(r"(?<![0-9A-Za-z_])(Windows\s{0,2}(?:10|11|7|8\.1|(?:Server\s{1,2})?20(?:0[38]|1[269]|2[25]))|Win\s{0,1}(?:10|11)|Ubuntu\s{0,2}\d{2}\.?\d{2}(?:\.\d)?(?!\d)|"
                   r"macOS(?:\s{1,2}\d{2}(?:\.\d{1,2})?)?|WSL\s{0,1}2?|CentOS\s{0,2}\d{1,2}|Debian(?:\s{1,2}GNU/Linux)?\s{0,2}\d{1,2}|Fedora\s{0,2}\d{2}|"
                   r"Rocky\s{1,2}Linux\s{0,2}\d|RHEL\s{0,2}\d|Arch\s{1,2}Linux)(?![0-9A-Za-z_])", re.IGNORECASE)
_OS_CHOICES = re.compile(r"(?:Linux|Windows|mac\s?OS|Ubuntu)\s{0,2}[/、,|]\s{0,2}(?:Linux|Windows|mac\s?OS|Ubuntu)"
                         r"(?:\s{0,2}[/、,|]\s{0,2}(?:Linux|Windows|mac\s?OS|Ubuntu))?", re.IGNORECASE)
#: A hosted notebook service whose machines run Linux: Google Colab(oratory), Kaggle notebooks/kernels.
_P_HOSTED = re.compile(r"(?<![0-9A-Za-z_])(?:Google\s{1,2}Colab(?:oratory)?|Colab(?:oratory)?|Kaggle(?:\s{1,2}"
                       r"(?:notebooks?|kernels?))?)(?![0-9A-Za-z_])", re.IGNORECASE)
#: "GPU" right after a name (what lets a two-character one such as T4 count).
_GPU_AFTER = re.compile(r"\s{0,2}GPUs?\b")
#: The words a Jetson module's name starts with in prose ("Jetson Orin", "AGX Xavier", "Orin Nano", "Xavier NX").
_JETSON_WORDS = ("jetson", "agx", "orin", "xavier")


#: pip's lines about what it removes: "Found existing installation: torch 2.1.0+cu121", "Uninstalling
#: torch-2.1.0+cu121:", "Successfully uninstalled torch-2.1.0+cu121" (the release that was there before the install).
PIP_REMOVED = re.compile(r"^\s{0,12}(?:Found existing installation:|Uninstalling\s|Successfully uninstalled\s|"
                         r"Attempting uninstall:)")


#: An install command on its own line, and the text right after it saying that it failed: what the command names was
#: asked for, not installed (vt-vl-lab/3d-photo-inpainting#20: "`conda install pytorch==1.4.0 ... -c pytorch`" / "did not work.").
_INSTALL_CMD = re.compile(r"\b(?:conda|mamba|micromamba|pip3?|uv\s{1,4}pip)\s{1,4}install\s", re.IGNORECASE)
_FAILED_START = re.compile(r"^\W{0,4}(?:(?:it|this|that|which)\s{1,2})?(?:did\s{0,2}n[o']t\s{1,2}work|does\s{0,2}n[o']t\s{1,2}work|"
                           r"didn't\s{1,2}work|doesn't\s{1,2}work|failed|fails|gives?\s{1,2}(?:me\s{1,2})?an?\s{1,2}error)\b",
                           re.IGNORECASE)


def _failed_next(lines: list[str], i: int) -> bool:
    """Whether the text right after line ``i`` (skipping a lone code-span backtick or fence) says it failed."""
    for j in range(i + 1, min(i + 4, len(lines))):
        rest = lines[j].strip()
        if rest.strip("`") == "":
            continue
        return _FAILED_START.match(rest) is not None
    return False


def prose(lines: list[str], offset: int) -> Iterator[Mention]:
    """Versions and GPUs named in sentences: the weakest tier, and never from a sentence that hedges."""
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 2000 or "site-packages" in line or line.lstrip().startswith(("File ", "/", "|")) \
                or PIP_REMOVED.match(line):
            continue
        field = _KEY_LINE.match(line)
        if field and (_field(field.group(1), _COLLECT_ENV) or _field(field.group(1), _FIELDS)):
            continue  # a field line is read as a field, not as a sentence
        if _INSTALL_CMD.search(line) and _failed_next(lines, i):
            continue  # "`conda install pytorch==1.4.0 cudatoolkit==10.1.243 -c pytorch`" / "did not work."
        n = offset + i + 1
        needed_zh = _P_CUDNN_NEEDED_ZH.search(line) if "需要" in line else None
        if needed_zh and "cudnn" in needed_zh.group(0).lower():
            yield Mention("cudnn", needed_zh.group(2), n, PROSE, "text (cuDNN on the machine)")
            yield Mention("cudnn_compiled", needed_zh.group(1), n, PROSE, CUDNN_REQUIRED_HOW)
        for sentence in sentences(line):
            def stated(found: re.Match[str], sentence: str = sentence) -> bool:
                return hedge_free(sentence, found)

            failed_install = _P_CANNOT_INSTALL.search(sentence)
            for regex, kind in ((_P_TORCH, "torch_prose"), (_P_TF, "tf_prose"), (_P_CUDNN, "cudnn"),
                                (_P_PYTHON, "python"), (_P_DRIVER, "driver"), (_P_DRIVER_BRANCH, "driver"),
                                (_P_CUDA, "cuda_text"),
                                (_P_NCCL, "nccl_prose")):
                # NOTE: the first version the sentence states: "tensorflow-gpu 2.3.0 needs CUDA 10.1, I have CUDA
                # 10.2" takes back the first CUDA (a requirement), not the second
                found = next((f for f in regex.finditer(sentence) if stated(f)), None)
                # NOTE: asked_for covers _P_CANNOT_INSTALL's "can not install torch 2.4.1" too (its match starts
                # at the framework's name, right after "install")
                if found and regex in (_P_TORCH, _P_TF) and asked_for(sentence, found.start()):
                    continue  # "Fails to install torch==2.6.0+cu121": what was asked for, not what is installed
                if found and regex is _P_CUDA and _DRIVER_THEN_PAREN.search(sentence, max(0, found.start() - 40),
                                                                           found.start()):
                    # "on driver 580.159 (CUDA 13.0)": the CUDA the driver supports, as nvidia-smi's banner puts it
                    yield Mention("driver_cuda", found.group(found.lastindex or 1), n, PROSE,
                                  "text (the driver's CUDA, in parentheses)")
                    continue
                if found:
                    value = found.group(found.lastindex or 1)
                    moved = _P_MOVED_TO.match(sentence, found.end()) if regex is _P_PYTHON else None
                    # NOTE: "upgraded the driver from 460.32 to 535.104", "replaces torch 2.9.1+cu128 with torch
                    # 2.9.0+cpu": the version the change kept (the one before it where the change fixed the failure)
                    kept = None if moved else kept_for(sentence, found.start(found.lastindex or 1))
                    # NOTE: "把python3.10升级到3.14" / "python 3.10 to 3.12": the version it was moved to is the one in use
                    # NOTE: "tensorflow-gpu 2.0.0" names the GPU package (the CPU one was "tensorflow" before 2.1)
                    key = "tensorflow-gpu" if regex is _P_TF and "tensorflow-gpu" in found.group(0).lower() else ""
                    yield Mention(kind, moved.group(1) if moved else kept or value, n, PROSE,
                                  "text (moved to)" if moved else "text (changed)" if kept else "text", key)
            needed = _P_CUDNN_NEEDED.search(sentence)
            # NOTE: "required" and "only" are this shape's own words; only a condition before it hedges it
            if needed and not re.search(r"\b(?:if|would|should|could|whether)\b", sentence[:needed.start()], re.I):
                yield Mention("cudnn", needed.group(2), n, PROSE, "text (cuDNN loaded)")
                yield Mention("cudnn_compiled", needed.group(1), n, PROSE, CUDNN_REQUIRED_HOW)
            if failed_install:
                # "can not install pytorch 2.4.1": the release wanted (what a failed install asked for), not a
                # negated fact
                yield Mention("requested", failed_install.group(1), n, PROSE, "text (could not install)", "torch")
            upgraded = _P_UPGRADED.search(sentence)
            set_to = None if upgraded else _P_SET_TO.search(sentence)
            for moved_to, how in ((upgraded, "text (upgraded to)"), (set_to, "text (set to)")):
                if moved_to and stated(moved_to):
                    kind = "tf_prose" if moved_to.group(1).lower() in ("tf", "tensorflow") else "torch_prose"
                    # NOTE: "downgrading torch from 2.5.1 to 2.4.1 fixed it": the failure ran on the first
                    before = kept_for(sentence, moved_to.start(2)) if moved_to is upgraded else None
                    yield Mention(kind, before or moved_to.group(2), n, PROSE,
                                  "text (before the change that fixed it)" if before else how)
            for found in _P_JAX.finditer(sentence):
                if stated(found):
                    yield Mention("package", found.group(2), n, PROSE, "text", found.group(1).lower())
            paddle = _P_PADDLE.search(sentence)
            if paddle and stated(paddle):
                yield Mention("package", paddle.group(1), n, PROSE, "text", "paddlepaddle")
            cuda_int = _P_CUDA_INT.search(sentence)
            if cuda_int and stated(cuda_int):
                yield Mention("driver_cuda", parsers.decode_cuda_driver_int(int(cuda_int.group(1))) or "", n, PROSE,
                              f"text (CUDA {cuda_int.group(1)})")
            system = _P_OS.search(sentence)
            # NOTE: a template's list of choices is no answer: "如Linux/Windows/MacOS" ("e.g. Linux/Windows/MacOS",
            # PaddlePaddle/PaddleX's issue form)
            if system and _OS_CHOICES.search(sentence):
                system = None
            if system and stated(system):
                yield Mention("os", system.group(1), n, PROSE, "text")
            hosted = _P_HOSTED.search(sentence)
            if hosted and stated(hosted):
                yield Mention("hosted", hosted.group(0), n, PROSE, "text (hosted notebook)")
            archive = (_CUDNN_ARCHIVE.search(sentence) or _CUDNN_ARCHIVE_NEW.search(sentence)) \
                if "cudnn-" in sentence.lower() else None
            if archive:
                # NVIDIA's cuDNN archive named as what was installed: its cuDNN version ("cudnn-11.2-windows-x64-
                # v8.1.0.77", "cudnn-windows-x86_64-8.6.0.163_cuda11-archive")
                number = archive.group(2) if archive.re is _CUDNN_ARCHIVE else archive.group(1)
                yield Mention("cudnn", number, n, PROSE, "text (cuDNN archive name)")
            major = _P_CUDNN_MAJOR.search(sentence) if "cudnn" in sentence.lower() else None
            if major and stated(major):
                yield Mention(CUDNN_MAJOR, major.group(1), n, PROSE, "text (cuDNN major)")
            bare = _P_CUDA_MAJOR.search(sentence) if "cuda" in sentence.lower() else None
            if bare and stated(bare) and len({m.group(1) for m in _P_CUDA_MAJOR.finditer(sentence)}) == 1:
                yield Mention(CUDA_MAJOR, bare.group(1), n, PROSE, "text (CUDA major)")
            cu = _P_CU.search(sentence)
            if cu:
                digits = cu.group(1)
                yield Mention("cuda_text", f"{digits[:-1]}.{digits[-1]}", n, PROSE, f"text (cu{digits})")
            gpu = _P_GPU.search(sentence)
            # NOTE: a two-character name (T4, L4, A2) only when "GPU" follows it ("their T4 GPU"): alone it is as
            # likely a grade, a size or a step
            if gpu and (re.search(r"\d", gpu.group(1)) or gpu.group(1).lower().startswith(_JETSON_WORDS)) \
                    and (len(gpu.group(1)) > 2 or _GPU_AFTER.match(sentence, gpu.end())) and stated(gpu):
                # NOTE: "RTX-3060" is the RTX 3060 (PaddlePaddle/Paddle#44077)
                name = _GPU_HYPHEN.sub(r"\1 ", gpu.group(1).strip())
                yield Mention("gpu", name, n, PROSE, "text", stated_cc(STATED_CC.match(sentence, gpu.end())))


# ---- error messages ----------------------------------------------------------------------------------

#: Named groups of errors.toml patterns → mention kinds (the catalogue's group vocabulary).
GROUP_KINDS = {
    "gpu": "gpu", "cc": "gpu_cc", "sm": "gpu_sm", "driver": "driver", "found": "driver_cuda_int",
    "driver_cuda": "driver_cuda", "cuda": "cuda_text", "required_cuda": "image_cuda",
    "required_driver": "image_driver",
    "cudnn_loaded": "cudnn", "loaded": "cudnn", "cudnn_compiled": "cudnn_compiled", "compiled": "cudnn_compiled",
    "nccl": "nccl", "torch": "torch_message", "tensorflow": "tf_message", "jax": "package:jax",
    "jaxlib": "package:jaxlib", "paddle": "package:paddlepaddle", "python": "python",
}
_TUPLE = re.compile(r"^\((\d{1,3}),\s{0,2}(\d{1,3})(?:,\s{0,2}(\d{1,3}))?\)$")


def from_signature(signature_id: str, code: str, groups: dict[str, str], line: int) -> Iterator[Mention]:
    """Facts an error message states (its named groups), read with the message's line as the source."""
    for group, raw in groups.items():
        kind = GROUP_KINDS.get(group)
        if kind is None:
            continue
        if group in ("loaded", "compiled", "runtime") and code != "cudnn-mismatch":
            continue
        value = raw.strip()
        as_tuple = _TUPLE.match(value)
        if as_tuple:
            value = ".".join(g for g in as_tuple.groups() if g)
        elif value.isdigit() and group in ("loaded", "compiled", "cudnn_loaded", "cudnn_compiled") \
                and 4 <= len(value) <= 6:
            # cuDNN's own integer form: 8005 -> 8.0.5, 90100 -> 9.1.0
            value = parsers.decode_cudnn_int(int(value)) or ""
        if kind == "driver_cuda_int":
            if not value.isdigit() or len(value) > 6:
                continue
            value, kind = parsers.decode_cuda_driver_int(int(value)) or "", "driver_cuda"
        if kind == "gpu_sm":
            digits = value.removeprefix("sm_")
            if not digits.isdigit() or len(digits) > 4:
                continue
            value, kind = f"{digits[:-1]}.{digits[-1]}", "gpu_cc"
        key = ""
        if kind.startswith("package:"):
            kind, key = "package", kind.split(":", 1)[1]
        if value:
            yield Mention(kind, value, line, MESSAGE, f"message ({signature_id})", key)
