"""Held-out sets EA-ED (issue 14, stop 27): what their first contact taught, each on a real report's text (the public
source above each). One version written twice, once with more components ("Python 3.13" and "Python 3.13.7"), is one
version: the fuller one is kept and no contradiction is noted. A number a recognised message states is that message's
fact; the same number read again from the line as a sentence does not become a second, differently typed fact. A
framework a report names without its release says "version not reported", never "?"."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.formatters import make_formatter
from envguard.knowledge import load_matrices
from envguard.reports import extract, parse_environments
from envguard.rules import run_rules
from envguard.snapshot import CudaToolkit, PythonInfo, Unavailable
from tests.reports import findings, first_snapshot

# pytorch/pytorch#167895 (its Versions block is collect_env; the description states the Python without the patch)
WHEELS = """[wheels] Missing CUDA wheels for pytorch<2.6.0
System: Windows-11-10.0.22631-SP0
Python version: 3.13
Using pip 25.3
` pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124 --isolated --verbose`
ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.6.0+cu124)
### Versions
Python version: 3.13.7 (main, Sep 18 2025, 19:43:45) [MSC v.1944 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-11-10.0.22631-SP0
"""


def test_a_version_and_its_fuller_spelling_are_one_version() -> None:
    env = parse_environments(WHEELS, "t", load_matrices())[0]
    python = env.snapshot.python
    assert isinstance(python, PythonInfo) and python.version == "3.13.7"
    assert not any("contradictory python" in n for n in env.notes)


def test_a_real_disagreement_is_still_noted() -> None:
    env = parse_environments(WHEELS.replace("3.13.7", "3.12.7"), "t", load_matrices())[0]
    assert any("contradictory python" in n for n in env.notes)


# jax-ml/jax#18027 (XLA's warning quoted in the text: the driver's CUDA, not a toolkit)
XLA = """CUDA error when importing torch before creating any jax.numpy.array
will fail with `CUDA backend failed to initialize: Found cuDNN version 8500, but JAX was built against version 8600, \
which is newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was built.`
will work with only a mildly annoying warning `The NVIDIA driver's CUDA version is 11.7 which is older than the ptxas \
CUDA version (11.8.89). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, \
which may slow down compilation.`
"""


def test_a_number_a_message_states_is_not_read_again_as_a_sentence() -> None:
    snapshot = first_snapshot(XLA)
    assert not isinstance(snapshot.cuda_toolkits, tuple) or not any(
        isinstance(t, CudaToolkit) and t.version == "11.7" for t in snapshot.cuda_toolkits)
    assert snapshot.driver is not None and getattr(snapshot.driver, "cuda_driver_version", None) == "11.7"
    assert any(f.code == "cudnn-mismatch" and f.severity is Severity.ERROR for f in findings(XLA))


def test_a_framework_named_without_its_release_says_so_in_words() -> None:
    m = load_matrices()
    env = parse_environments(XLA, "t", m)[0]
    report = run_rules(env.snapshot, m, notes=env.notes)
    text = make_formatter("text").format(report, command="check", exit_code=1)
    assert "version not reported (build unknown)" in text
    assert " ? (" not in text


# microsoft/onnxruntime#19292 (the ONNX Runtime issue form; its older "Failed to create CUDAExecutionProvider" wording)
ORT_FORM = """Does onnruntime-gpu support CUDA12.1？
But, when I set provider=['CUDAExecutionProvider'], the error 'Failed to create cuda provider' was coming.
'Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/reference/execution-providers/\
CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.'

### Platform

Linux

### OS Version

ubuntu 22.04

### ONNX Runtime Version or Commit ID

onnxrumtime 1.16.2

### Execution Provider Library Version

CUDA12.1
"""


def test_the_onnxruntime_issue_form_gives_the_release_and_the_providers_libraries() -> None:
    snapshot = first_snapshot(ORT_FORM)
    assert not isinstance(snapshot.packages, Unavailable)
    assert any(d.name == "onnxruntime" and d.version == "1.16.2" for d in snapshot.packages)
    cuda = [f for f in findings(ORT_FORM) if f.code == "cuda-libs-missing"]
    assert cuda and cuda[0].severity is Severity.ERROR and "1.16.2" in cuda[0].message


def test_the_older_provider_failure_alone_is_a_warning() -> None:
    text = ORT_FORM.split("### ONNX Runtime Version", maxsplit=1)[0]
    assert {f.severity for f in findings(text) if f.code == "cuda-libs-missing"} == {Severity.WARNING}


def test_a_form_label_that_names_another_providers_library_is_not_a_cuda() -> None:
    text = ORT_FORM.replace("CUDA12.1", "TensorRT 8.6").replace("Does onnruntime-gpu support CUDA12.1？", "Question")
    snapshot = first_snapshot(text)
    assert not isinstance(snapshot.cuda_toolkits, tuple) or not snapshot.cuda_toolkits


def test_a_bare_system_and_its_distribution_are_one_system() -> None:
    env = parse_environments(ORT_FORM, "t", load_matrices())[0]
    assert env.snapshot.host.distro == "ubuntu 22.04"
    assert not any("contradictory os" in n for n in env.notes)
    other = parse_environments(ORT_FORM.replace("ubuntu 22.04", "Windows 11"), "t", load_matrices())[0]
    assert any("contradictory os" in n for n in other.notes)


# chatchat-space/Langchain-Chatchat#294 (Chinese prose: the PyTorch installed is the CPU version; the GPU is an A10)
ZH_CPU = """使用requirements安装，PyTorch安装的是CPU版本

如题目，使用requirements安装，PyTorch安装的是CPU版本，运行程序的时候，也是使用CPU在工作。
我是在虚拟机上使用，系统是Windows 2016，GPU是A10。
"""


def test_a_chinese_cpu_build_claim_beside_a_gpu_is_a_cpu_only_build() -> None:
    found = [f for f in findings(ZH_CPU) if f.code == "cpu-only-build"]
    assert found and found[0].severity is Severity.ERROR
    assert all(item.value != "?" for item in found[0].evidence)
    snapshot = first_snapshot(ZH_CPU)
    assert snapshot.host.system == "Windows"


def test_a_chinese_question_about_the_cpu_build_claims_nothing() -> None:
    text = "torch是否是CPU版本？我的GPU是A10。\n"
    assert not [f for f in findings(text) if f.code == "cpu-only-build"]


# ComfyUI_RopeWrapper's report to microsoft/onnxruntime#24715 (an "Environment" table of two columns)
KV_TABLE = """### Environment
| item | value |
|------|-------|
| **OS** | Windows 11 Pro 22H2 (26100.3775) |
| **GPU** | NVIDIA RTX 5090 (24 GB) |
| **Python** | _portable_ 3.12.10 (`python_embeded` shipped with ComfyUI) |
| **Torch** | 2.8.0 + cu128 |
"""


def test_a_two_column_environment_table_is_read_as_fields() -> None:
    snapshot = first_snapshot(KV_TABLE)
    python = snapshot.python
    assert isinstance(python, PythonInfo) and python.version == "3.12.10"
    assert snapshot.host.system == "Windows"
    assert not isinstance(snapshot.gpus, Unavailable) and "5090" in snapshot.gpus[0].name
    assert [b.version for b in snapshot.frameworks if b.name == "torch"] == ["2.8.0"]


# bitsandbytes-foundation/bitsandbytes#551 (python -m bitsandbytes on CUDA 12.2, a release without its binary)
BNB = """bin /datadrive/anaconda3/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda122.so
CUDA SETUP: Highest compute capability among GPUs detected: 8.0
CUDA SETUP: Detected CUDA version 122
CUDA SETUP: Required library version not found: libbitsandbytes_cuda122.so. Maybe you need to compile it from source?
CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...
"""


def test_bitsandbytes_without_a_binary_for_the_cuda_it_detects_is_an_error() -> None:
    assert any(f.code == "cuda-libs-missing" and f.severity is Severity.ERROR for f in findings(BNB))


# Public-BOTs/GaussianPretrain#4 (conda's CPU package named, "rather than" the CUDA one)
CONDA_CPU = """When I try `conda install pytorch==1.9.1 torchvision==0.10.1 torchaudio==0.9.1 cudatoolkit=11.3 \
-c pytorch -c conda-forge`, it shows that I installed `pytorch_cpu` rather than `pytorch_cuda`.
"""


def test_condas_cpu_package_installed_rather_than_the_cuda_one_is_a_cpu_only_build() -> None:
    assert any(f.code == "cpu-only-build" and f.severity is Severity.ERROR for f in findings(CONDA_CPU))
    wish = CONDA_CPU.replace("it shows that I installed `pytorch_cpu` rather than `pytorch_cuda`",
                             "I would rather not get pytorch_cpu")
    assert not any(f.code == "cpu-only-build" for f in findings(wish))


# microsoft/onnxruntime#20223 (the ONNX Runtime form; cuDNN named by its major only)
ORT_CUDNN9 = """Whether CUDA12.4 and cudnn9 matches onnxruntime-win-x64-cuda12-1.17.1
  Loadlibrary failed with error 126 when trying to load onnxruntime_providers_cuda.dll
apply yolov8n.onnx with cuda12.4 cudnn9 onnxruntime-win-x64-cuda12-1.17.1

### Platform

Windows

### ONNX Runtime Version or Commit ID

onnxruntime-win-x64-cuda12-1.17.1
"""


def test_a_cudnn_major_alone_is_enough_for_a_build_per_cudnn_major() -> None:
    found = [f for f in findings(ORT_CUDNN9) if f.code == "cudnn-mismatch"]
    assert found and found[0].severity is Severity.ERROR and "9.x" in found[0].message
    assert not [f for f in findings(ORT_CUDNN9.replace("cudnn9", "cudnn8")) if f.code == "cudnn-mismatch"]


def test_a_cudnn_major_in_an_image_tag_or_with_its_minor_is_not_a_major_alone() -> None:
    for text in ("docker run nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04\n", "I use cudnn 8.9 here\n"):
        assert extract.CUDNN_MAJOR not in {m.kind for m in extract.prose(text.splitlines(), 0)}


# YaoFANGUK/video-subtitle-extractor#48 (Chinese prose: cuDNN 7.6.5 installed, the GPU build asks for cudnn64_8.dll)
ZH_CUDNN = """我是GTX1650 TI的显卡，按照说明装的是cudn10.1和cudnn-7.6.5，对应的库应该是cudnn64_7.dll
但GPU版本报错说找不到cudnn64_8.dll, 这个肯定是没有的，GPU版本默认找cudnn-8+吗？
"""


def test_a_dll_said_missing_in_chinese_beside_another_cudnn_major_is_a_cudnn_mismatch() -> None:
    assert any(f.code == "cudnn-mismatch" and f.severity is Severity.ERROR for f in findings(ZH_CUDNN))


def test_the_cuda_in_an_old_cudnn_archive_name_is_not_a_cudnn_version() -> None:
    text = "I used cudnn-9.0-linux-x64-v7.1.tgz and cudnn-10.2-windows10-x64-v7.6.5.32.zip\n"
    # the archive's own cuDNN version (after "-v") is read, never the CUDA it names first
    read = [m.value for m in extract.prose(text.splitlines(), 0) if m.kind == "cudnn"]
    assert read and set(read) <= {"7.1", "7.6.5.32"}
    assert [m.value for m in extract.prose(["I installed cudnn-7.6.5 here"], 0) if m.kind == "cudnn"] == ["7.6.5"]


# pytorch/torchtitan#853 (a CI container's /dev/shm): recognised, and never an environment finding
SHM = """NCCL errors like
  Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)
torch 2.6.0
"""


def test_nccls_shared_memory_segment_error_is_not_an_environment_finding() -> None:
    assert not [f for f in findings(SHM) if f.severity is not Severity.INFO]


# 1hew/ComfyUI-1hewNodes#3 (the build said in brackets after the version)
PAREN = """Running `pip install -r requirements.txt` pulls `torch 2.9.1` and `torchvision 0.24.1` from PyPI.
In my case, it replaced:
- `torch 2.10.0+cu130` → `torch 2.9.1` (no CUDA)
- NVIDIA GeForce RTX 3050 Laptop GPU (4GB VRAM)
"""


def test_a_build_said_in_brackets_after_the_version_is_read() -> None:
    assert any(f.code == "cpu-only-build" and f.severity is Severity.ERROR for f in findings(PAREN))
    hedged = "If pip had installed torch 2.9.1 (no CUDA) it would break.\n- NVIDIA GeForce RTX 3050 Laptop GPU\n"
    assert not [f for f in findings(hedged) if f.code == "cpu-only-build"]
